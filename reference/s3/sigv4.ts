import { createRequire } from 'node:module';
import type { Hash } from '@smithy/hash-node';
import type { HttpRequest } from '@smithy/protocol-http';
import type { SignatureV4 } from '@smithy/signature-v4';
import type { ReferenceContext } from '../context.ts';
import { accessDenied, S3Error } from './errors.ts';

/** What the signature says about the body that follows. */
export interface Authenticated {
  /** x-amz-content-sha256 (or UNSIGNED-PAYLOAD for presigned URLs): hex SHA-256, UNSIGNED-PAYLOAD or STREAMING-... */
  payloadHash: string;
  /** For STREAMING-AWS4-HMAC-SHA256-PAYLOAD bodies: the signature each chunk must carry. */
  chunkSignature?: ChunkSignature;
  /** The region the request was signed for; absent for an unsigned request a fault let through. */
  region?: string;
}

/** The expected signature of one aws-chunked chunk, from the previous signature and the chunk's SHA-256 (hex). */
export type ChunkSignature = (previous: string | undefined, chunkSha256: string) => Promise<string>;

interface Smithy {
  HttpRequest: typeof HttpRequest;
  SignatureV4: typeof SignatureV4;
  /** SHA-256 for AWS's signer, on Node's crypto, from the library itself, as the reference shares no module with the engine. */
  NodeSha256: new (
    secret?: unknown,
  ) => Hash;
}

let smithy: Smithy | undefined;

/**
 * AWS's signer, loaded (CommonJS, as the packages are) by the first signed request: a run of the
 * management API alone verifies no signature, and the signer's modules were most of the CPU the
 * reference spent to start.
 */
function aws(): Smithy {
  if (smithy) return smithy;
  const require = createRequire(import.meta.url);
  const { Hash: NodeHash } = require('@smithy/hash-node') as typeof import('@smithy/hash-node');
  smithy = {
    HttpRequest: (require('@smithy/protocol-http') as typeof import('@smithy/protocol-http')).HttpRequest,
    SignatureV4: (require('@smithy/signature-v4') as typeof import('@smithy/signature-v4')).SignatureV4,
    NodeSha256: NodeHash.bind(null, 'sha256') as unknown as new (secret?: unknown) => Hash,
  };
  return smithy;
}

const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** Streaming SigV4: each chunk is signed over the previous signature, starting from the request's own. */
function chunkSigner(scope: Scope, date: Date, seed: string, ctx: ReferenceContext): ChunkSignature {
  const s = signer(scope, ctx);
  const longDate = date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const credentialScope = `${longDate.slice(0, 8)}/${scope.region}/s3/aws4_request`;
  return (previous, chunkSha256) => {
    const prev = previous ?? seed;
    const stringToSign = [
      'AWS4-HMAC-SHA256-PAYLOAD',
      longDate,
      credentialScope,
      prev,
      EMPTY_SHA256,
      chunkSha256,
    ].join('\n');
    return s.sign(stringToSign, { signingDate: date, signingRegion: scope.region });
  };
}

export interface SignedRequestParts {
  method: string;
  /** Path exactly as sent, without the query. */
  rawPath: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** What the request addresses ('' when absent), for faults that bend the rule for some requests. */
  bucket?: string;
  key?: string;
}

// SPEC behaviour 2: the only region is auto; "" and us-east-1 are aliases.
const REGIONS = new Set(['auto', '', 'us-east-1']);
const MAX_SKEW_MS = 15 * 60 * 1000;
const MAX_EXPIRES_S = 7 * 24 * 3600;

const mismatch = (ctx: ReferenceContext, provided: string) =>
  // Under a fault, the generic refusal Amazon S3 gives for most authorization failures.
  ctx.faults.has('s3-signature-mismatch-access-denied')
    ? accessDenied('Access Denied')
    : new S3Error(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your secret access key and signing method.',
        ctx.faults.has('s3-secret-echoed')
          ? { SignatureProvided: provided, Expected: ctx.credentials.secretAccessKey }
          : {},
      );

/** Verifies SigV4 (Authorization header or presigned query); the expected signature comes from AWS's signer. */
export async function authenticate(parts: SignedRequestParts, ctx: ReferenceContext): Promise<Authenticated> {
  const auth = header(parts.headers, 'authorization');
  if (auth !== undefined) return verifyHeader(parts, auth, ctx);
  if (parts.query.has('X-Amz-Signature') || parts.query.has('X-Amz-Credential'))
    return verifyPresigned(parts, ctx);
  if (ctx.faults.has('s3-unsigned-accepted')) return { payloadHash: 'UNSIGNED-PAYLOAD' };
  // Under a fault, unsigned reads are served as a public bucket's would be.
  if (parts.method === 'GET' && ctx.faults.has('s3-unsigned-get-accepted'))
    return { payloadHash: 'UNSIGNED-PAYLOAD' };
  // Under a fault, unsigned reads of a bucket (its listings) are served; object reads are still refused.
  if (parts.method === 'GET' && parts.bucket && !parts.key && ctx.faults.has('s3-unsigned-list-accepted'))
    return { payloadHash: 'UNSIGNED-PAYLOAD' };
  throw accessDenied('Access Denied: the request is not signed.');
}

function header(headers: SignedRequestParts['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

interface Scope {
  accessKeyId: string;
  date: string;
  region: string;
}

function parseCredential(credential: string, ctx: ReferenceContext): Scope {
  const [accessKeyId, date, region, service, terminator, ...rest] = credential.split('/');
  if (rest.length > 0 || terminator !== 'aws4_request' || service !== 's3' || region === undefined) {
    throw new S3Error(
      400,
      'AuthorizationHeaderMalformed',
      `The credential scope '${date}/${region}/${service}' is malformed.`,
    );
  }
  if (accessKeyId !== ctx.credentials.accessKeyId) {
    throw new S3Error(
      403,
      'InvalidAccessKeyId',
      'The access key ID you provided does not exist in our records.',
    );
  }
  if (
    !REGIONS.has(region) ||
    (region !== 'auto' && ctx.faults.has('s3-region-alias-rejected')) ||
    // Under a fault, an empty region is read as a malformed scope (us-east-1 is still accepted).
    (region === '' && ctx.faults.has('s3-region-empty-rejected'))
  ) {
    throw new S3Error(
      400,
      'AuthorizationHeaderMalformed',
      `The authorization region '${region}' is wrong; expecting 'auto'.`,
    );
  }
  return { accessKeyId, date, region };
}

function parseAmzDate(value: string | null | undefined): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (!m) throw accessDenied('X-Amz-Date is missing or not in the form YYYYMMDDTHHMMSSZ.');
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
}

/**
 * AWS's signer for a scope, one per context and scope: it keeps the signing key it derives (four
 * HMACs) for the day, which a signer made afresh for each request would derive again.
 */
const signers = new WeakMap<ReferenceContext, Map<string, SignatureV4>>();

function signer(scope: Scope, ctx: ReferenceContext): SignatureV4 {
  const { secretAccessKey } = ctx.credentials;
  let byScope = signers.get(ctx);
  if (!byScope) {
    byScope = new Map();
    signers.set(ctx, byScope);
  }
  const key = `${scope.accessKeyId}\0${scope.region}\0${secretAccessKey}`;
  let s = byScope.get(key);
  if (!s) {
    const { SignatureV4, NodeSha256 } = aws();
    s = new SignatureV4({
      credentials: { accessKeyId: scope.accessKeyId, secretAccessKey },
      region: scope.region,
      service: 's3',
      sha256: NodeSha256,
      uriEscapePath: false,
      applyChecksum: false,
    });
    byScope.set(key, s);
  }
  return s;
}

/** S3 signs the path as sent; some clients encode it differently from AWS's rule, so try the strict form too. */
function pathCandidates(rawPath: string): string[] {
  const strict = rawPath
    .split('/')
    .map((seg) => {
      let decoded: string;
      try {
        decoded = decodeURIComponent(seg);
      } catch {
        return seg;
      }
      return encodeURIComponent(decoded).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      );
    })
    .join('/');
  return strict === rawPath ? [rawPath] : [rawPath, strict];
}

function queryObject(query: URLSearchParams, drop: string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of query) {
    if (drop.includes(k)) continue;
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function signedHeaderValues(parts: SignedRequestParts, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const v = header(parts.headers, name);
    if (v === undefined) throw accessDenied(`The signed header '${name}' is missing from the request.`);
    out[name] = v;
  }
  return out;
}

function equalSignatures(a: string, b: string): boolean {
  return a.length === b.length && a.toLowerCase() === b.toLowerCase();
}

/**
 * Header signatures verified lately, for a fault: a server that caches verified signatures to spare the
 * HMAC and takes a signature it has seen as proof, whatever the request now carries.
 */
const verified = new Set<string>();

function rememberVerified(signature: string): void {
  verified.add(signature.toLowerCase());
  if (verified.size > 10_000) verified.delete(verified.values().next().value as string);
}

async function verifyHeader(
  parts: SignedRequestParts,
  auth: string,
  ctx: ReferenceContext,
): Promise<Authenticated> {
  const m =
    /^AWS4-HMAC-SHA256\s+Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-fA-F]+)\s*$/.exec(
      auth,
    );
  if (!m) {
    // Under a fault, the parser's own failure escapes as an internal error.
    if (ctx.faults.has('s3-signature-malformed-internal-error'))
      throw new Error('the Authorization header does not parse');
    throw new S3Error(
      400,
      'AuthorizationHeaderMalformed',
      'The authorization header is malformed; use AWS4-HMAC-SHA256.',
    );
  }
  const scope = parseCredential(m[1], ctx);
  const signedNames = m[2].split(';');
  const given = m[3];
  const date = parseAmzDate(header(parts.headers, 'x-amz-date'));
  if (Math.abs(Date.now() - date.getTime()) > MAX_SKEW_MS) {
    throw new S3Error(
      403,
      'RequestTimeTooSkewed',
      'The difference between the request time and the server time is too large.',
    );
  }
  const payloadHash = header(parts.headers, 'x-amz-content-sha256') ?? 'UNSIGNED-PAYLOAD';
  if (/^[0-9a-f]{64}$/i.test(payloadHash) && ctx.faults.has('s3-signed-payload-rejected'))
    throw mismatch(ctx, given);
  const headers = signedHeaderValues(parts, dropAcceptEncoding(signedNames, ctx));
  headers['x-amz-content-sha256'] = payloadHash;
  const unsignable = signedNames.includes('x-amz-content-sha256')
    ? undefined
    : new Set(['x-amz-content-sha256']);
  for (const path of pathCandidates(parts.rawPath)) {
    const request = new (aws().HttpRequest)({
      method: parts.method,
      protocol: 'http:',
      hostname: 'unused',
      path,
      query: queryObject(parts.query, []),
      headers,
    });
    const signed = await signer(scope, ctx).sign(request, {
      signingDate: date,
      signableHeaders: new Set(dropAcceptEncoding(signedNames, ctx)),
      unsignableHeaders: unsignable,
    });
    const expected = /Signature=([0-9a-f]+)/.exec(String(signed.headers.authorization))?.[1] ?? '';
    if (equalSignatures(expected, given)) {
      rememberVerified(given);
      const streamingSigned = payloadHash.startsWith('STREAMING-AWS4-HMAC-SHA256-PAYLOAD');
      return {
        payloadHash,
        chunkSignature: streamingSigned ? chunkSigner(scope, date, given, ctx) : undefined,
        region: scope.region,
      };
    }
  }
  // Under a fault, a signature verified before is taken again unchecked: a signed header changed since passes.
  if (verified.has(given.toLowerCase()) && ctx.faults.has('s3-signature-replay-accepted'))
    return { payloadHash, region: scope.region };
  // Under a fault, a signature that does not match passes too. Asked only here, where it changes
  // the answer, so that the fault-sensitivity test's trace names only the cases it can change.
  if (ctx.faults.has('s3-signature-unchecked')) return { payloadHash, region: scope.region };
  throw mismatch(ctx, given);
}

/**
 * Under a fault, Accept-Encoding is left out of the signature as if it were unsignable (SPEC behaviour 17);
 * under another, only when a presigned URL is verified.
 */
function dropAcceptEncoding(names: string[], ctx: ReferenceContext, presigned = false): string[] {
  if (!names.includes('accept-encoding')) return names;
  const drop =
    ctx.faults.has('s3-accept-encoding-unsigned') ||
    (presigned && ctx.faults.has('s3-presign-accept-encoding-unsigned'));
  return drop ? names.filter((n) => n !== 'accept-encoding') : names;
}

/** Whether a presigned URL is past X-Amz-Date plus X-Amz-Expires seconds (faults bend the window). */
function presignExpired(date: Date, expires: number, ctx: ReferenceContext): boolean {
  const age = Date.now() - date.getTime();
  // Faults are asked only of a URL older than a minute, so that a fresh one still proves presigning works.
  if (age > 60_000) {
    if (ctx.faults.has('s3-presign-fixed-window')) return age > 15 * 60_000;
    if (ctx.faults.has('s3-presign-expires-as-ms')) return age > expires;
  }
  return age > expires * 1000 && !ctx.faults.has('s3-presign-expiry-unchecked');
}

async function verifyPresigned(parts: SignedRequestParts, ctx: ReferenceContext): Promise<Authenticated> {
  const q = parts.query;
  if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') {
    throw new S3Error(400, 'AuthorizationQueryParametersError', 'X-Amz-Algorithm must be AWS4-HMAC-SHA256.');
  }
  const scope = parseCredential(q.get('X-Amz-Credential') ?? '', ctx);
  const date = parseAmzDate(q.get('X-Amz-Date'));
  const expires = Number(q.get('X-Amz-Expires'));
  if (!Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES_S) {
    throw new S3Error(
      400,
      'AuthorizationQueryParametersError',
      'X-Amz-Expires must be between 1 and 604800 seconds.',
    );
  }
  if (presignExpired(date, expires, ctx)) throw accessDenied('Request has expired.');
  const given = q.get('X-Amz-Signature') ?? '';
  const payloadHash = q.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  const signedNames = dropAcceptEncoding(
    (q.get('X-Amz-SignedHeaders') ?? '').split(';').filter(Boolean),
    ctx,
    true,
  );
  const headers = signedHeaderValues(parts, signedNames);
  if (!signedNames.includes('x-amz-content-sha256')) headers['x-amz-content-sha256'] = payloadHash;
  const drop = [
    'X-Amz-Algorithm',
    'X-Amz-Credential',
    'X-Amz-Date',
    'X-Amz-Expires',
    'X-Amz-SignedHeaders',
    'X-Amz-Signature',
  ];
  // Under a fault, the canonical query is built of the X-Amz-* parameters alone, as if nothing else were signed.
  const others = [...new Set(q.keys())].filter((k) => !/^x-amz-/i.test(k));
  if (others.length && ctx.faults.has('s3-presign-extra-query-unsigned')) drop.push(...others);
  for (const path of pathCandidates(parts.rawPath)) {
    const request = new (aws().HttpRequest)({
      method: parts.method,
      protocol: 'http:',
      hostname: 'unused',
      path,
      query: queryObject(q, drop),
      headers,
    });
    const presigned = await signer(scope, ctx).presign(request, {
      signingDate: date,
      expiresIn: expires,
      signableHeaders: new Set(signedNames),
      unsignableHeaders: new Set(['x-amz-content-sha256']),
      unhoistableHeaders: new Set(Object.keys(headers)),
    });
    const expected = String(presigned.query?.['X-Amz-Signature'] ?? '');
    if (equalSignatures(expected, given)) return { payloadHash, region: scope.region };
  }
  // Under a fault, a presigned URL is served whatever its signature, once its other parameters parse.
  if (ctx.faults.has('s3-presign-signature-unchecked') || ctx.faults.has('s3-signature-unchecked'))
    return { payloadHash, region: scope.region };
  throw mismatch(ctx, given);
}
