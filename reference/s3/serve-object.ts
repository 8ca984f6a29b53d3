import type http from 'node:http';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { ReferenceContext } from '../context.ts';
import type { BlobStore } from './blobs.ts';
import { checkRead } from './conditionals.ts';
import { preconditionFailed, S3Error } from './errors.ts';
import { type ByteRange, invalidRange, invalidRangeKind, parseRange } from './ranges.ts';
import type { Headers } from './respond.ts';
import type { ObjectRecord } from './store.ts';

const OVERRIDES: Record<string, string> = {
  'response-content-type': 'content-type',
  'response-content-disposition': 'content-disposition',
  'response-content-encoding': 'content-encoding',
  'response-content-language': 'content-language',
  'response-cache-control': 'cache-control',
  'response-expires': 'expires',
};

export interface ServeOptions {
  /** The public entry point: gzip content is sent encoded only to clients that accept gzip. */
  publicEntry?: boolean;
  query?: URLSearchParams;
  extraHeaders?: Headers;
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

export function objectHeaders(obj: ObjectRecord): Headers {
  const h: Headers = {
    etag: obj.etag,
    'last-modified': obj.lastModified.toUTCString(),
    'content-type': obj.contentType,
    'accept-ranges': 'bytes',
    'x-amz-version-id': obj.versionId,
    ...obj.headers,
  };
  for (const [k, v] of Object.entries(obj.metadata)) h[`x-amz-meta-${k}`] = v;
  if (obj.sse) h['x-amz-server-side-encryption'] = obj.sse;
  return h;
}

/** GetObject / HeadObject, on the S3 endpoint and the public entry point: conditionals, ranges, parts, streaming. */
export async function serveObject(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  ctx: ReferenceContext,
  blobs: BlobStore,
  obj: ObjectRecord,
  options: ServeOptions = {},
): Promise<void> {
  const head = req.method === 'HEAD';
  const headers = answerHeaders(req, ctx, obj, options);
  const notModified = checkRead(
    {
      ifMatch: ifMatchCompared(req, ctx),
      ifNoneMatch: header(req, 'if-none-match'),
      ifModifiedSince: header(req, 'if-modified-since'),
      ifUnmodifiedSince: header(req, 'if-unmodified-since'),
    },
    obj.etag,
    obj.lastModified,
    ctx.faults,
  );
  // Under a fault, a matching If-None-Match is refused as a failed precondition, as on a write.
  if (notModified && header(req, 'if-none-match') !== undefined && ctx.faults.has('s3-cond-none-match-412'))
    throw preconditionFailed();
  if (notModified && !ctx.faults.has('s3-cond-get-304-ignored')) {
    res.writeHead(304, { etag: obj.etag, 'last-modified': obj.lastModified.toUTCString() });
    res.end();
    return;
  }
  applyOverrides(headers, options.query, ctx);

  const partNumber = options.query?.get('partNumber');
  const range = requestedRange(req, ctx, obj, partNumber, headers);

  const gzipped = /(^|,)\s*gzip\s*($|,)/i.test(obj.headers['content-encoding'] ?? '');
  if (options.publicEntry && gzipped) {
    const accepts = /\bgzip\b/i.test(header(req, 'accept-encoding') ?? '');
    if (ctx.faults.has('s3-public-gzip-no-content-encoding')) delete headers['content-encoding'];
    // Under a fault, the public entry decodes gzip whatever the client accepts.
    if (!accepts || ctx.faults.has('s3-public-gzip-always-decoded')) {
      // The client cannot decode gzip: serve the decoded bytes, whose length is unknown up front.
      delete headers['content-encoding'];
      delete headers['accept-ranges'];
      res.writeHead(200, headers);
      if (head) return void res.end();
      await pipeline(blobs.read(obj.blob), createGunzip(), res).catch(() => res.destroy());
      return;
    }
  }

  if (range && obj.blob.size > 0 && !(partNumber === '1' && !obj.partSizes)) {
    let { start, end } = range;
    if (end > start && ctx.faults.has('s3-range-off-by-one')) end -= 1;
    // Under a fault, a Range header (not a part number) is answered 206 with every byte of the object.
    const partial = start > 0 || end < obj.blob.size - 1;
    if (partial && partNumber == null && ctx.faults.has('s3-range-206-whole-object')) {
      start = 0;
      end = obj.blob.size - 1;
    }
    if (!ctx.faults.has('s3-range-no-content-range'))
      headers['content-range'] = `bytes ${start}-${end}/${obj.blob.size}`;
    headers['content-length'] = end - start + 1;
    const status = ctx.faults.has('s3-range-status-200') ? 200 : 206;
    return send(res, status, headers, head ? undefined : () => blobs.read(obj.blob, start, end));
  }
  // Under a fault, a whole answer gets a Content-Range; under another, only when it ignored a Range
  // header (no valid byte range).
  const ignoredRange = () => partNumber == null && header(req, 'range') !== undefined;
  if (
    obj.blob.size > 0 &&
    ((ignoredRange() && ctx.faults.has('s3-content-range-on-ignored-range')) ||
      ctx.faults.has('s3-content-range-on-full'))
  ) {
    headers['content-range'] = `bytes 0-${obj.blob.size - 1}/${obj.blob.size}`;
  }
  if (
    !options.publicEntry &&
    header(req, 'x-amz-checksum-mode')?.toUpperCase() === 'ENABLED' &&
    Object.keys(obj.checksums).length > 0 &&
    !ctx.faults.has('s3-checksum-mode-ignored') &&
    !(head && ctx.faults.has('s3-checksum-mode-head-ignored'))
  ) {
    for (const [alg, v] of Object.entries(obj.checksums)) headers[`x-amz-checksum-${alg}`] = v;
    // A multipart object's checksum is the composite of its parts' checksums.
    if (obj.partSizes) headers['x-amz-checksum-type'] = 'COMPOSITE';
  }
  // Under a fault, HEAD of an object a PutObject wrote answers the length of its own empty body.
  const zero = head && obj.byPut && ctx.faults.has('s3-head-content-length-zero');
  headers['content-length'] = zero ? 0 : obj.blob.size;
  return send(res, 200, headers, head || obj.blob.size === 0 ? undefined : () => blobs.read(obj.blob));
}

/**
 * If-Match as compared: under a fault, HEAD does not compare one strong ETag alone in it, with no
 * other condition, as a server answering HEAD from what it keeps of the object before the conditions.
 */
function ifMatchCompared(req: http.IncomingMessage, ctx: ReferenceContext): string | undefined {
  const value = header(req, 'if-match');
  if (value === undefined || req.method !== 'HEAD') return value;
  if (!ctx.faults.has('s3-cond-head-if-match-unchecked')) return value;
  const others = ['if-none-match', 'if-modified-since', 'if-unmodified-since'].some((h) => header(req, h));
  return /^\s*"[^",]*"\s*$/.test(value) && !others ? undefined : value;
}

/** The object's headers as this request gets them (HEAD or GET), before conditionals and ranges. */
function answerHeaders(
  req: http.IncomingMessage,
  ctx: ReferenceContext,
  obj: ObjectRecord,
  options: ServeOptions,
): Headers {
  const head = req.method === 'HEAD';
  const headers = { ...objectHeaders(obj), ...options.extraHeaders };
  // Under a fault, HEAD leaves out the encryption an object got from its bucket's default.
  if (head && obj.sse && obj.sseByDefault && ctx.faults.has('s3-sse-bucket-default-head-omitted'))
    delete headers['x-amz-server-side-encryption'];
  // Under a fault, HEAD of an object a PutObject wrote under a key without an extension answers no
  // Content-Type, as a server that types a HEAD by the key's extension may.
  const typedByKey = head && obj.byPut && !/\.[^./]+$/.test(obj.key);
  if (typedByKey && ctx.faults.has('s3-head-content-type-omitted')) delete headers['content-type'];
  // Under a fault, a GET (not a HEAD) answers no Last-Modified, as a server streaming the body may.
  if (!head && ctx.faults.has('s3-last-modified-get-omitted')) delete headers['last-modified'];
  // Under a fault, a GET of an object written whole answers its ETag weak, as a compressing proxy does.
  if (!head && !obj.partSizes && ctx.faults.has('s3-get-etag-weak')) headers.etag = `W/${obj.etag}`;
  if (head && Object.keys(obj.metadata).length > 0 && ctx.faults.has('s3-metadata-head-omitted')) {
    for (const k of Object.keys(obj.metadata)) delete headers[`x-amz-meta-${k}`];
  }
  return headers;
}

/**
 * The bytes asked for, by part number (whose count then goes in `headers`) or Range header; none
 * for the whole object. An unsatisfiable range throws.
 */
function requestedRange(
  req: http.IncomingMessage,
  ctx: ReferenceContext,
  obj: ObjectRecord,
  partNumber: string | null | undefined,
  headers: Headers,
): ByteRange | undefined {
  let range: ByteRange | undefined;
  if (partNumber !== null && partNumber !== undefined) {
    range = partRange(obj, partNumber);
    // As Amazon S3: the part count is reported for part requests.
    if (obj.partSizes) headers['x-amz-mp-parts-count'] = obj.partSizes.length;
  } else {
    // Faults of an ignored range: asked only for a header that is no valid byte range.
    const invalid = invalidRangeKind(header(req, 'range'));
    if (invalid === 'reversed' && ctx.faults.has('s3-range-reversed-416')) throw invalidRange(obj.blob.size);
    if (invalid === 'malformed' && ctx.faults.has('s3-range-malformed-500')) {
      throw new S3Error(500, 'InternalError', 'We encountered an internal error. Please try again.');
    }
    try {
      range = parseRange(
        header(req, 'range'),
        obj.blob.size,
        () => ctx.faults.has('s3-range-suffix-from-start'),
        () => ctx.faults.has('s3-range-start-at-size-satisfiable'),
        () => ctx.faults.has('s3-range-zero-end-open'),
      );
    } catch (err) {
      if (!ctx.faults.has('s3-range-unsatisfiable-200')) throw err;
      range = undefined;
    }
  }
  return range;
}

/**
 * Amazon S3's response-* query parameters of GetObject: the answer carries the given header values
 * instead of the object's (the object keeps its own). Each fault is asked only where it changes that.
 */
function applyOverrides(headers: Headers, query: URLSearchParams | undefined, ctx: ReferenceContext): void {
  const given = Object.entries(OVERRIDES).filter(([param]) => query?.get(param) != null);
  if (given.length === 0 || ctx.faults.has('s3-response-overrides-ignored')) return;
  // Under a fault, only the type and the disposition are taken, as a download-link feature would.
  const partial = given.some(([, name]) => name !== 'content-type' && name !== 'content-disposition');
  const onlyTypeAndDisposition = partial && ctx.faults.has('s3-response-overrides-type-and-disposition-only');
  for (const [param, name] of given) {
    if (onlyTypeAndDisposition && name !== 'content-type' && name !== 'content-disposition') continue;
    headers[name] = query?.get(param) ?? '';
  }
}

function partRange(obj: ObjectRecord, partNumber: string): ByteRange | undefined {
  const n = Number(partNumber);
  const sizes = obj.partSizes ?? [obj.blob.size];
  if (!Number.isInteger(n) || n < 1 || n > 10000) {
    throw new S3Error(
      400,
      'InvalidArgument',
      'Part number must be an integer between 1 and 10000, inclusive.',
    );
  }
  if (n > sizes.length)
    throw new S3Error(416, 'InvalidPartNumber', 'The requested partnumber is not satisfiable.');
  const start = sizes.slice(0, n - 1).reduce((a, b) => a + b, 0);
  if (sizes[n - 1] === 0) return undefined;
  return { start, end: start + sizes[n - 1] - 1 };
}

async function send(
  res: http.ServerResponse,
  status: number,
  headers: Headers,
  body: (() => NodeJS.ReadableStream) | undefined,
): Promise<void> {
  res.writeHead(status, headers);
  if (!body) {
    res.end();
    return;
  }
  await pipeline(body(), res).catch(() => res.destroy());
}
