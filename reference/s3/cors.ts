import type http from 'node:http';
import type { ReferenceContext } from '../context.ts';
import type { S3Call } from './call.ts';
import { invalidArgument, malformedXml, S3Error } from './errors.ts';
import { readRequestXml } from './request-xml.ts';
import { sendEmpty, sendResult } from './respond.ts';
import type { BucketRecord, CorsRule } from './store.ts';
import { asArray, text } from './xml.ts';

const RULE_KEYS = new Set([
  'ID',
  'AllowedOrigin',
  'AllowedMethod',
  'AllowedHeader',
  'ExposeHeader',
  'MaxAgeSeconds',
]);
const METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'HEAD']);

/** `*`, or scheme://host[:port] where at most one `*` stands for any run of characters. */
function validOrigin(origin: string): boolean {
  if (origin === '*') return true;
  if ((origin.match(/\*/g) ?? []).length > 1) return false;
  return /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#]+$/i.test(origin);
}

/** Element names of a parsed element, without whitespace text between them. */
function childNames(el: unknown): string[] {
  if (!el || typeof el !== 'object') return [];
  return Object.keys(el).filter(
    (k) => !(k === '#text' && String((el as Record<string, unknown>)[k]).trim() === ''),
  );
}

/** PutBucketCors (SPEC behaviour 14): valid origins only, no unknown keys, no empty AllowedHeader. */
export function parseCorsConfiguration(
  doc: Record<string, unknown> | undefined,
  ctx: ReferenceContext,
): CorsRule[] {
  const root = doc?.CORSConfiguration;
  if (!root || typeof root !== 'object') throw malformedXml();
  // Asked only where an unknown element is there to refuse.
  const strict = () => !ctx.faults.has('s3-cors-unknown-keys-accepted');
  if (childNames(root).some((k) => k !== 'CORSRule') && strict())
    throw malformedXml('Unknown element in CORSConfiguration.');
  const rules = asArray((root as Record<string, unknown>).CORSRule as Record<string, unknown>[]);
  if (rules.length === 0 || rules.length > 100)
    throw malformedXml('A CORS configuration holds 1 to 100 rules.');
  return rules.map((r) => {
    const unknown = childNames(r).filter((k) => !RULE_KEYS.has(k));
    // Under a fault, only the top level is checked for unknown elements.
    if (unknown.length > 0 && strict() && !ctx.faults.has('s3-cors-rule-unknown-keys-accepted'))
      throw malformedXml(`Unknown element '${unknown[0]}' in CORSRule.`);
    const list = (name: string) => asArray(r[name] as unknown).map((v) => text(v) ?? '');
    const rule: CorsRule = {
      id: text(r.ID),
      allowedOrigins: list('AllowedOrigin').map((s) => s.trim()),
      allowedMethods: list('AllowedMethod').map((s) => s.trim()),
      allowedHeaders: list('AllowedHeader').map((s) => s.trim()),
      exposeHeaders: list('ExposeHeader').map((s) => s.trim()),
      maxAgeSeconds: r.MaxAgeSeconds === undefined ? undefined : Number(text(r.MaxAgeSeconds)),
    };
    if (rule.allowedOrigins.length === 0 || rule.allowedMethods.length === 0) {
      throw malformedXml('Each CORSRule needs an AllowedOrigin and an AllowedMethod.');
    }
    const bad = rule.allowedOrigins.find((o) => !validOrigin(o));
    if (bad !== undefined && !ctx.faults.has('s3-cors-invalid-origin-accepted')) {
      throw invalidArgument(`Invalid AllowedOrigin '${bad}'.`);
    }
    const badMethod = rule.allowedMethods.find((m) => !METHODS.has(m));
    if (badMethod !== undefined)
      throw invalidArgument(`Found unsupported HTTP method in CORS config: ${badMethod}`);
    if (rule.allowedHeaders.some((h) => h === '') && !ctx.faults.has('s3-cors-empty-header-accepted'))
      throw invalidArgument('AllowedHeader must not be an empty string.');
    if (
      rule.maxAgeSeconds !== undefined &&
      !(Number.isInteger(rule.maxAgeSeconds) && rule.maxAgeSeconds >= 0)
    ) {
      throw malformedXml('MaxAgeSeconds must be a non-negative integer.');
    }
    return rule;
  });
}

export async function putBucketCors(call: S3Call): Promise<void> {
  const bucket = call.store.bucket(call.bucket);
  let doc: Record<string, unknown> | undefined;
  try {
    doc = await readRequestXml(call, 64 * 1024);
  } catch (err) {
    // Under a fault, a body that is not XML is refused as a bare 400, with no error document.
    if (
      !(
        err instanceof S3Error &&
        err.code === 'MalformedXML' &&
        call.ctx.faults.has('s3-cors-malformed-bare-400')
      )
    )
      throw err;
    return void sendEmpty(call.res, 400);
  }
  try {
    bucket.cors = parseCorsConfiguration(doc, call.ctx);
  } catch (err) {
    throw refusal(err, doc, bucket, call.ctx);
  }
  // A granted write in a form SPEC leaves open: asked only by the control fault.
  sendEmpty(call.res, call.ctx.faults.has('s3-cors-open-forms') ? 204 : 200);
}

/** Under a fault, a document that one lenience would let through is stored though refused. */
const STORED_ANYWAY: Record<string, string> = {
  's3-cors-unknown-keys-stored': 's3-cors-unknown-keys-accepted',
  's3-cors-empty-header-stored': 's3-cors-empty-header-accepted',
};

/** What a refused CORS document is answered with, and what a fault lets it leave behind. */
function refusal(
  err: unknown,
  doc: Record<string, unknown> | undefined,
  bucket: BucketRecord,
  ctx: ReferenceContext,
): unknown {
  if (!(err instanceof S3Error)) return err;
  for (const [fault, lenience] of Object.entries(STORED_ANYWAY)) {
    if (!ctx.faults.has(fault)) continue;
    try {
      bucket.cors = parseCorsConfiguration(doc, {
        ...ctx,
        faults: { names: [...ctx.faults.names, lenience], has: (n) => n === lenience || ctx.faults.has(n) },
      });
    } catch {
      // Refused for another reason as well: nothing is stored.
    }
  }
  const unknown = err.message.startsWith('Unknown element');
  const origin = err.message.startsWith('Invalid AllowedOrigin');
  if (
    (unknown && ctx.faults.has('s3-cors-unknown-keys-500')) ||
    (origin && ctx.faults.has('s3-cors-invalid-origin-500'))
  )
    return new S3Error(500, 'InternalError', 'We encountered an internal error. Please try again.');
  // A refusal in a form SPEC leaves open (it names no status): asked only by the control fault.
  if (ctx.faults.has('s3-cors-open-forms') && (unknown || origin || err.message.startsWith('AllowedHeader')))
    return new S3Error(422, err.code, err.message);
  return err;
}

export function getBucketCors(call: S3Call): void {
  const bucket = call.store.bucket(call.bucket);
  if (!bucket.cors) {
    throw new S3Error(404, 'NoSuchCORSConfiguration', 'The CORS configuration does not exist', {
      BucketName: bucket.name,
    });
  }
  sendResult(
    call.res,
    'CORSConfiguration',
    {
      CORSRule: bucket.cors.map((r) => ({
        ...(r.id !== undefined ? { ID: r.id } : {}),
        AllowedOrigin: r.allowedOrigins,
        AllowedMethod: r.allowedMethods,
        AllowedHeader: r.allowedHeaders,
        ExposeHeader: r.exposeHeaders,
        ...(r.maxAgeSeconds !== undefined ? { MaxAgeSeconds: r.maxAgeSeconds } : {}),
      })),
    },
    {},
    call.ctx,
  );
}

export function deleteBucketCors(call: S3Call): void {
  const bucket = call.store.bucket(call.bucket);
  bucket.cors = undefined;
  sendEmpty(call.res, 204);
}

function wildcard(pattern: string, value: string, caseInsensitive: boolean): boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    caseInsensitive ? 'i' : '',
  );
  return re.test(value);
}

/** The first rule allowing this origin, method and every requested header (header names case-insensitive). */
export function matchCors(
  bucket: BucketRecord,
  origin: string,
  method: string,
  requestHeaders: string[],
  ctx: ReferenceContext,
): CorsRule | undefined {
  const insensitive = !ctx.faults.has('s3-cors-headers-case-sensitive');
  const noWildcard = ctx.faults.has('s3-cors-wildcard-unmatched');
  return bucket.cors?.find(
    (r) =>
      r.allowedOrigins.some((o) => !(o === '*' && noWildcard) && wildcard(o, origin, false)) &&
      r.allowedMethods.includes(method) &&
      requestHeaders.every((h) => r.allowedHeaders.some((a) => wildcard(a, h, insensitive))),
  );
}

function exposeHeaders(rule: CorsRule, ctx: ReferenceContext): Record<string, string> {
  // SPEC behaviour 14: Access-Control-Expose-Headers only when ExposeHeader is defined.
  if (rule.exposeHeaders.length > 0)
    return { 'access-control-expose-headers': rule.exposeHeaders.join(', ') };
  return ctx.faults.has('s3-cors-expose-headers-always') ? { 'access-control-expose-headers': '' } : {};
}

/** The requested headers a granted preflight allows: all of them, since the rule matched each. */
function allowHeaders(
  rule: CorsRule,
  requested: string[],
  asSent: string[],
  ctx: ReferenceContext,
): Record<string, string> {
  // Under a fault, only the headers spelled as an AllowedHeader spells them are echoed.
  const listed =
    requested.length > 0 && ctx.faults.has('s3-cors-allow-headers-as-spelled')
      ? asSent.filter((h) => rule.allowedHeaders.some((a) => a === '*' || a === h))
      : requested;
  return listed.length > 0 ? { 'access-control-allow-headers': listed.join(', ') } : {};
}

/**
 * Access-Control-Allow-Origin of a granted request: the request's origin when the rule lists it (by
 * name or pattern), * when the rule allows any origin, as Amazon S3 answers (a browser refuses * for
 * a request with credentials). Under faults: * whatever the rule; the matching AllowedOrigin as the
 * rule writes it (a pattern too); the request's origin for a rule of *.
 */
function allowOrigin(rule: CorsRule, origin: string, ctx: ReferenceContext): string {
  const f = ctx.faults;
  if (rule.allowedOrigins.includes('*')) return f.has('s3-cors-wildcard-echoes-origin') ? origin : '*';
  if (f.has('s3-cors-allow-origin-star')) return '*';
  if (f.has('s3-cors-allow-origin-as-written'))
    return rule.allowedOrigins.find((o) => wildcard(o, origin, false)) ?? origin;
  return origin;
}

/**
 * A CORS preflight (OPTIONS) for the S3 interface and public buckets. No matching rule is answered 200 without
 * Access-Control headers (SPEC error table: it no longer yields 403); the browser then refuses the request.
 */
export function preflight(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  bucket: BucketRecord,
  ctx: ReferenceContext,
): void {
  const origin = String(req.headers.origin ?? '');
  const method = String(req.headers['access-control-request-method'] ?? '');
  if (!method)
    throw new S3Error(
      400,
      'BadRequest',
      'Insufficient information. Access-Control-Request-Method header needed.',
    );
  const asSent = String(req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const requested = asSent.map((h) => h.toLowerCase());
  let rule = matchCors(bucket, origin, method, requested, ctx);
  // A preflight granted by origin alone, whatever method the rule lists: asked only when no rule matched.
  if (!rule && ctx.faults.has('s3-cors-preflight-any-method')) {
    const listed = bucket.cors?.find((r) => r.allowedMethods.length > 0)?.allowedMethods[0];
    if (listed) rule = matchCors(bucket, origin, listed, requested, ctx);
  }
  // A preflight that checks a rule's method and headers, never its origin: asked only when no rule matched.
  if (!rule && ctx.faults.has('s3-cors-unlisted-origin-granted')) {
    const anyOrigin = bucket.cors?.map((r) => ({ ...r, allowedOrigins: ['*'] }));
    rule = matchCors({ ...bucket, cors: anyOrigin }, origin, method, requested, ctx);
  }
  const vary = { vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method' };
  if (!rule) {
    if (ctx.faults.has('s3-cors-no-match-403')) {
      throw new S3Error(403, 'AccessForbidden', 'CORSResponse: This CORS request is not allowed.');
    }
    sendEmpty(res, 200, vary);
    return;
  }
  // A granted preflight in a form the Fetch standard also takes (any 2xx): asked only by the control fault.
  sendEmpty(res, ctx.faults.has('s3-cors-open-forms') ? 204 : 200, {
    ...vary,
    'access-control-allow-origin': allowOrigin(rule, origin, ctx),
    'access-control-allow-methods': rule.allowedMethods.join(', '),
    ...allowHeaders(rule, requested, asSent, ctx),
    ...(rule.maxAgeSeconds !== undefined ? { 'access-control-max-age': String(rule.maxAgeSeconds) } : {}),
    ...exposeHeaders(rule, ctx),
  });
}

/** Access-Control headers for an actual (non-preflight) request that carries Origin. */
export function corsHeaders(
  req: http.IncomingMessage,
  bucket: BucketRecord | undefined,
  ctx: ReferenceContext,
): Record<string, string> {
  const origin = req.headers.origin;
  if (!origin || !bucket?.cors || ctx.faults.has('s3-cors-actual-headers-missing')) return {};
  const rule = matchCors(bucket, origin, req.method ?? 'GET', [], ctx);
  if (!rule) return {};
  return {
    'access-control-allow-origin': allowOrigin(rule, origin, ctx),
    vary: 'Origin',
    ...exposeHeaders(rule, ctx),
  };
}
