import { createHash } from 'node:crypto';
import type { SignatureV4 } from '@smithy/signature-v4';
import { generatedDigest } from '../data/generate.ts';
import type { HttpRequest } from '../model/case.ts';
import type { S3Target } from '../model/target.ts';
import { GeneratedBody } from '../template/resolve.ts';
import { InputError } from '../util/errors.ts';
import type { OutgoingRequest, RequestBody } from './http.ts';
import { withQuery } from './management.ts';
import { presign, signerFor, signHeaders } from './sigv4.ts';

/** RFC 3986 encoding of a key, keeping '/': what SigV4's canonical URI expects of S3 paths. */
export function encodeKey(key: string): string {
  return key
    .split('/')
    .map((seg) =>
      encodeURIComponent(seg).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');
}

export function objectUrl(
  target: S3Target,
  bucket: string | undefined,
  key: string | undefined,
  publicEntry = false,
): URL {
  const keyPath = key === undefined ? '' : `/${encodeKey(key)}`;
  if (publicEntry) {
    if (!target.publicUrl) throw new InputError('target.s3.publicUrl', 'the target has no public bucket URL');
    return new URL(`${target.publicUrl.replace(/\/+$/, '')}/${bucket ?? ''}${keyPath}`);
  }
  const base = new URL(target.endpoint);
  if (!bucket) return new URL(`${base.origin}/`);
  if (target.addressing === 'virtual')
    return new URL(`${base.protocol}//${bucket}.${base.host}${keyPath || '/'}`);
  return new URL(`${base.origin}/${bucket}${keyPath}`);
}

function payloadHash(body: RequestBody): string {
  if (body === undefined) return createHash('sha256').digest('hex');
  if (body instanceof GeneratedBody) return generatedDigest('sha256', body.seed, 0, body.size);
  return createHash('sha256').update(body).digest('hex');
}

export function toRequestBody(body: unknown): RequestBody {
  if (body === undefined || body === null) return undefined;
  if (body instanceof GeneratedBody || typeof body === 'string' || Buffer.isBuffer(body)) return body;
  return JSON.stringify(body);
}

const signers = new WeakMap<S3Target, { right?: SignatureV4; wrong?: SignatureV4 }>();

/** One signer per target (it caches derived signing keys), and one with a deliberately wrong secret. */
function cachedSigner(target: S3Target, wrong: boolean): SignatureV4 {
  let pair = signers.get(target);
  if (!pair) {
    pair = {};
    signers.set(target, pair);
  }
  if (wrong) {
    pair.wrong ??= signerFor(target, `${target.secretAccessKey}-wrong`);
    return pair.wrong;
  }
  pair.right ??= signerFor(target);
  return pair.right;
}

/** Whether a sign mode puts the signature in the query (a presigned URL). */
export const presigned = (sign: HttpRequest['sign']) =>
  sign === 'presign' || sign === 'presign-bad-signature';
/** Whether a sign mode signs with a wrong secret (a signature the target must refuse). */
export const wrongSecret = (sign: HttpRequest['sign']) =>
  sign === 'bad-signature' || sign === 'presign-bad-signature';

/** A resolved `http:` step as a request: addressed, then signed as the step says. */
export async function buildS3Request(target: S3Target, http: HttpRequest): Promise<OutgoingRequest> {
  const publicEntry = http.endpoint === 'public';
  const url = http.path
    ? new URL(`${(publicEntry ? target.publicUrl! : target.endpoint).replace(/\/+$/, '')}${http.path}`)
    : objectUrl(target, http.bucket, http.key, publicEntry);
  withQuery(url, http.query);
  const body = toRequestBody(http.body);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(http.headers ?? {})) headers[k.toLowerCase()] = v;
  const sign = publicEntry ? 'none' : (http.sign ?? 'header');
  if (sign === 'none') return { method: http.method, url: url.toString(), headers, body };

  const signer = cachedSigner(target, wrongSecret(sign));
  const unsigned = {
    method: http.method,
    url,
    headers,
    payloadHash: http.payload === 'signed' ? payloadHash(body) : 'UNSIGNED-PAYLOAD',
  };
  const signed = presigned(sign)
    ? await presign(signer, unsigned, http.expires ?? 300)
    : await signHeaders(signer, unsigned);
  const out = { ...signed.headers };
  delete out.host;
  return { method: http.method, url: signed.url.toString(), headers: out, body };
}
