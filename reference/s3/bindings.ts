import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { Readable } from 'node:stream';
import type { ReferenceContext } from '../context.ts';
import { bucketOwner, requestContext } from '../fault-trace.ts';
import { newVersionId } from './objects.ts';
import type { BucketRecord, ObjectRecord, S3Store } from './store.ts';

/**
 * The bindings probe's contract (suites/s3/bindings-probe/probe.mjs) served over the reference's
 * own storage: one JSON call of an R2 binding in, what the binding returned or threw out. SPEC
 * behaviour 18 where it speaks; where it is silent (which error a malformed range throws), what
 * the workers runtime does.
 */

/** Where the probe lives on the S3 endpoint: no bucket name starts with a dot. */
export const BINDINGS_PATH = '/.edgecheck-bindings/';
/** The bucket the reference's probe is bound to, created with the store. */
export const BINDINGS_BUCKET = 'edgecheck-bindings';
const ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha384', 'sha512'] as const;
/** list() shrinks a page whose included metadata would pass this many bytes. */
const PAGE_BYTES = 16 * 1024;

class BindingError extends Error {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

interface Call {
  call: string;
  key?: string;
  keys?: string[];
  value?: string;
  options?: Record<string, any>;
  uploadId?: string;
  partNumber?: number;
  parts?: { partNumber: number; etag: string }[];
}

/** Serves a probe request; `legacy` is the deployment without r2_list_honor_include. */
export async function serveBinding(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  serverCtx: ReferenceContext,
  store: S3Store,
  legacy: boolean,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const answer = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (!secretMatches(req.headers['x-edgecheck-probe-secret'], serverCtx.credentials.bindingsSecret))
    return answer(401, { probeError: 'missing or wrong x-edgecheck-probe-secret' });
  let call: Call;
  try {
    call = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return answer(400, { probeError: 'the body is not JSON' });
  }
  // Fault consults are noted under the run's name the key starts with, as for a bucket.
  const ctx = requestContext(serverCtx, () =>
    bucketOwner((call.key ?? call.keys?.[0] ?? call.options?.prefix)?.split('/')[0]),
  );
  try {
    const returned = await perform(call, ctx, store, legacy);
    answer(200, returned === undefined ? {} : { result: returned });
  } catch (err) {
    if (err instanceof BindingError) return answer(200, { error: { name: err.kind, message: err.message } });
    if (err instanceof Unknown) return answer(400, { probeError: 'unknown call' });
    throw err;
  }
}

class Unknown extends Error {}

function secretMatches(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, createHash('sha256').update(expected).digest());
}

async function perform(call: Call, ctx: ReferenceContext, store: S3Store, legacy: boolean): Promise<unknown> {
  const bucket = store.bucket(BINDINGS_BUCKET);
  const f = ctx.faults;
  switch (call.call) {
    case 'put':
      return put(call, ctx, store, bucket);
    case 'get':
      return get(call, ctx, store, bucket);
    case 'head': {
      const obj = bucket.objects.get(call.key ?? '');
      if (!obj) return null;
      const d = describe(obj);
      if (d.checksums.md5 && f.has('bindings-head-md5-missing')) delete d.checksums.md5;
      return d;
    }
    case 'delete': {
      let keys = call.keys ?? [call.key ?? ''];
      if (keys.length > 1 && f.has('bindings-delete-first-key-only')) keys = keys.slice(0, 1);
      // Under a fault, an array is taken as one key, its elements joined by commas (String(keys)).
      if (keys.length > 1 && f.has('bindings-delete-array-as-one-key')) keys = [keys.join(',')];
      for (const k of keys) store.deleteObject(bucket, k);
      return undefined;
    }
    case 'list':
      return list(call.options ?? {}, ctx, bucket, legacy);
    case 'createMultipartUpload': {
      if (f.has('bindings-multipart-missing'))
        throw new BindingError('TypeError', 'env.BUCKET.createMultipartUpload is not a function');
      const uploadId = randomBytes(16).toString('hex');
      const key = call.key ?? '';
      bucket.uploads.set(uploadId, {
        uploadId,
        key,
        initiated: new Date(),
        headers: {},
        metadata: { ...(call.options?.customMetadata ?? {}) },
        parts: new Map(),
      });
      return { key, uploadId };
    }
    case 'uploadPart': {
      const upload = uploadOf(call, bucket, 'uploadPart');
      const n = call.partNumber ?? 0;
      const body = Buffer.from(call.value ?? '', 'utf8');
      const blob = await store.blobs.write(Readable.from([body]));
      const etag = createHash('md5').update(body).digest('hex');
      const old = upload.parts.get(n);
      if (old) store.blobs.release(old.blob);
      upload.parts.set(n, { partNumber: n, blob, etag: `"${etag}"`, lastModified: new Date() });
      return { partNumber: n, etag };
    }
    case 'completeMultipartUpload': {
      const upload = uploadOf(call, bucket, 'completeMultipartUpload');
      const parts = [...(call.parts ?? [])].sort((a, b) => a.partNumber - b.partNumber);
      const stored = parts.map((p) => {
        const part = upload.parts.get(p.partNumber);
        if (!part || part.etag.replace(/"/g, '') !== p.etag.replace(/"/g, ''))
          throw new BindingError(
            'Error',
            'completeMultipartUpload: One or more of the specified parts could not be found. (10025)',
          );
        return part;
      });
      const md5s = Buffer.concat(stored.map((p) => Buffer.from(p.etag.replace(/"/g, ''), 'hex')));
      const record: ObjectRecord = {
        key: upload.key,
        blob: store.blobs.concat(stored.map((p) => p.blob)),
        etag: `"${createHash('md5').update(md5s).digest('hex')}-${stored.length}"`,
        lastModified: new Date(),
        versionId: newVersionId(),
        contentType: 'application/octet-stream',
        headers: {},
        metadata: upload.metadata,
        checksums: {},
        partSizes: stored.map((p) => p.blob.size),
      };
      store.putObject(bucket, record);
      for (const p of upload.parts.values()) store.blobs.release(p.blob);
      store.dropUpload(bucket, upload);
      return describe(record);
    }
    case 'abortMultipartUpload': {
      const upload = bucket.uploads.get(call.uploadId ?? '');
      if (upload) {
        for (const p of upload.parts.values()) store.blobs.release(p.blob);
        store.dropUpload(bucket, upload);
      }
      return undefined;
    }
    default:
      throw new Unknown();
  }
}

function uploadOf(call: Call, bucket: BucketRecord, what: string) {
  const upload = bucket.uploads.get(call.uploadId ?? '');
  if (!upload || upload.key !== call.key)
    throw new BindingError('Error', `${what}: The specified multipart upload does not exist. (10024)`);
  return upload;
}

async function put(call: Call, ctx: ReferenceContext, store: S3Store, bucket: BucketRecord) {
  const options = call.options ?? {};
  const key = call.key ?? '';
  const body = Buffer.from(call.value ?? '', 'utf8');
  const given = ALGORITHMS.filter((a) => options[a] !== undefined);
  if (given.length > 1)
    throw new BindingError('TypeError', 'You cannot specify multiple hashing algorithms.');
  const checksums: Record<string, string> = {};
  checksums.md5 = createHash('md5').update(body).digest('hex');
  for (const alg of given) {
    const want = String(options[alg]).toLowerCase();
    const actual = createHash(alg).update(body).digest('hex');
    if (want !== actual) {
      const name = alg === 'md5' ? 'MD5' : `SHA-${alg.slice(3)}`;
      throw new BindingError(
        'Error',
        `put: The ${name} checksum you specified did not match what we received.\nYou provided a ${name} checksum with value: ${want}\nActual ${name} was: ${actual} (10037)`,
      );
    }
    const dropped =
      (alg === 'sha384' && ctx.faults.has('bindings-put-sha384-dropped')) ||
      (alg === 'sha512' && ctx.faults.has('bindings-put-sha512-dropped'));
    if (!dropped) checksums[alg] = actual;
  }
  const old = bucket.objects.get(key);
  const holds =
    options.onlyIf === undefined ||
    ctx.faults.has('bindings-put-only-if-ignored') ||
    conditionsHold(options.onlyIf, old, ctx);
  // Under a fault, failed conditions are noticed only after the object is written.
  if (!holds && !ctx.faults.has('bindings-put-only-if-after-write')) return null;
  const blob = await store.blobs.write(Readable.from(body.length ? [body] : []));
  const http = options.httpMetadata ?? {};
  const record: ObjectRecord = {
    key,
    blob,
    etag: `"${checksums.md5}"`,
    lastModified: new Date(),
    versionId: newVersionId(),
    contentType: http.contentType ?? 'application/octet-stream',
    headers: {},
    metadata: { ...(options.customMetadata ?? {}) },
    // Kept as S3 keeps them (base64 by algorithm); the MD5 is the ETag.
    checksums: Object.fromEntries(
      Object.entries(checksums)
        .filter(([a]) => a !== 'md5')
        .map(([a, v]) => [a, Buffer.from(v, 'hex').toString('base64')]),
    ),
  };
  store.putObject(bucket, record);
  if (!holds) return null;
  return describe(record);
}

async function get(call: Call, ctx: ReferenceContext, store: S3Store, bucket: BucketRecord) {
  const options = call.options ?? {};
  const obj = bucket.objects.get(call.key ?? '');
  const range = options.range === undefined ? undefined : rangeOf(options.range, ctx);
  if (!obj) return null;
  if (options.onlyIf !== undefined && !conditionsHold(options.onlyIf, obj, ctx)) return describe(obj);
  let start = 0;
  let end = obj.blob.size - 1;
  if (range) {
    if (range.suffix !== undefined) {
      if (range.suffix === 0)
        throw new BindingError('Error', 'get: The requested range is not satisfiable (10039)');
      start = Math.max(0, obj.blob.size - range.suffix);
    } else {
      start = range.offset ?? 0;
      if (start >= obj.blob.size && obj.blob.size > 0)
        throw new BindingError('Error', 'get: The requested range is not satisfiable (10039)');
      if (range.length !== undefined) end = Math.min(end, start + range.length - 1);
    }
  }
  const chunks: Buffer[] = [];
  if (end >= start) for await (const c of store.blobs.read(obj.blob, start, end)) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks);
  const out = describe(obj);
  // Under a fault, get() reports only the checksums given at put(), not the MD5 every whole object has.
  if (out.checksums.md5 && ctx.faults.has('bindings-get-md5-missing')) delete out.checksums.md5;
  return {
    ...out,
    range: range ? { offset: start, length: Math.max(0, end - start + 1) } : undefined,
    body: { text: text.toString('utf8'), length: text.length },
  };
}

/** A range as the runtime validates it; a Headers range the runtime cannot read means the whole object. */
function rangeOf(
  range: any,
  ctx: ReferenceContext,
): { offset?: number; length?: number; suffix?: number } | undefined {
  if (range && typeof range === 'object' && '$headers' in range) {
    const m = /^bytes=(\d+)-(\d+)$/.exec(String(range.$headers?.range ?? ''));
    if (!m || Number(m[2]) < Number(m[1])) return undefined;
    return { offset: Number(m[1]), length: Number(m[2]) - Number(m[1]) + 1 };
  }
  const bad = (kind: string, message: string): never => {
    if (ctx.faults.has('bindings-malformed-range-internal'))
      throw new BindingError('Error', 'get: We encountered an internal error. Please try again. (10001)');
    throw new BindingError(kind, message);
  };
  if (!range || typeof range !== 'object') return bad('TypeError', 'Incorrect type for the range field.');
  const num = (v: unknown) => (typeof v === 'number' ? v : Number.NaN);
  if (range.suffix !== undefined && range.offset !== undefined)
    return bad('TypeError', 'Suffix is incompatible with offset.');
  if (range.suffix !== undefined && range.length !== undefined)
    return bad('TypeError', 'Suffix is incompatible with length.');
  if (range.offset !== undefined && !(num(range.offset) >= 0))
    return bad(
      'RangeError',
      `Invalid range. Starting offset (${range.offset}) must be greater than or equal to 0.`,
    );
  if (range.length !== undefined && !(num(range.length) >= 0))
    return bad('RangeError', `Invalid range. Length (${range.length}) must be greater than or equal to 0.`);
  if (range.suffix !== undefined && !(num(range.suffix) >= 0))
    return bad('RangeError', `Invalid range. Suffix (${range.suffix}) must be greater than or equal to 0.`);
  return { offset: range.offset, length: range.length, suffix: range.suffix };
}

/** onlyIf as an R2Conditional or as conditional headers ({$headers}); false when the call should not go ahead. */
function conditionsHold(onlyIf: any, obj: ObjectRecord | undefined, ctx: ReferenceContext): boolean {
  const etag = obj?.etag.replace(/"/g, '');
  if (onlyIf && typeof onlyIf === 'object' && '$headers' in onlyIf) {
    const h = Object.fromEntries(
      Object.entries(onlyIf.$headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
    );
    if (h['if-match'] !== undefined && !headerListMatches(h['if-match'], etag, false, ctx)) return false;
    if (h['if-none-match'] !== undefined && headerListMatches(h['if-none-match'], etag, true, ctx))
      return false;
    return true;
  }
  const c = onlyIf ?? {};
  if (c.etagMatches !== undefined && !(c.etagMatches === '*' ? obj : etag === c.etagMatches)) return false;
  if (c.etagDoesNotMatch !== undefined && (c.etagDoesNotMatch === '*' ? obj : etag === c.etagDoesNotMatch))
    return false;
  const at = obj?.lastModified.getTime();
  const date = (v: any) => new Date(v?.$date ?? v).getTime();
  if (c.uploadedBefore !== undefined && !(at !== undefined && at < date(c.uploadedBefore))) return false;
  if (c.uploadedAfter !== undefined && !(at !== undefined && at > date(c.uploadedAfter))) return false;
  return true;
}

/**
 * A conditional header's list of ETags: strong ones compared strongly; a weak one matches only
 * in If-None-Match (weak comparison), as the runtime does; `*` matches any object.
 */
function headerListMatches(
  header: string,
  etag: string | undefined,
  weakAllowed: boolean,
  ctx: ReferenceContext,
): boolean {
  if (etag === undefined) return false;
  let tags = header
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (tags.length > 1 && ctx.faults.has('bindings-etag-list-first-only')) tags = tags.slice(0, 1);
  return tags.some((t) => {
    if (t === '*') return !ctx.faults.has('bindings-wildcard-ignored');
    if (t.startsWith('W/')) {
      if (!weakAllowed) return false;
      if (ctx.faults.has('bindings-weak-etag-rejected'))
        throw new BindingError('Error', 'Invalid ETag in if-none-match header');
      return t.slice(2).replace(/^"|"$/g, '') === etag;
    }
    return t.replace(/^"|"$/g, '') === etag;
  });
}

function list(options: Record<string, any>, ctx: ReferenceContext, bucket: BucketRecord, legacy: boolean) {
  const prefix = String(options.prefix ?? '');
  let limit = Math.min(1000, Number(options.limit ?? 1000));
  if (ctx.faults.has('bindings-list-limit-ignored')) limit = 1000;
  const after = options.cursor
    ? Buffer.from(String(options.cursor), 'base64url').toString('utf8')
    : String(options.startAfter ?? '');
  // Without the flag, list() returns both kinds of metadata whatever include says.
  const asked: string[] = options.include ?? [];
  const include: string[] =
    legacy ||
    ctx.faults.has('bindings-list-include-ignored') ||
    // Under a fault, include is read as a flag: naming either kind returns both.
    (asked.length === 1 && ctx.faults.has('bindings-list-include-any-means-all'))
      ? ['httpMetadata', 'customMetadata']
      : asked;
  const keys = [...bucket.objects.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
  const objects: unknown[] = [];
  let bytes = 0;
  for (const k of keys) {
    if (objects.length >= limit) break;
    const obj = bucket.objects.get(k)!;
    const d = describe(obj);
    if (!include.includes('customMetadata')) d.customMetadata = {};
    if (!include.includes('httpMetadata')) d.httpMetadata = {};
    bytes += JSON.stringify(d.customMetadata).length + JSON.stringify(d.httpMetadata).length;
    // The data would be too large: a smaller page, truncated, with a cursor to the rest.
    if (bytes > PAGE_BYTES && objects.length > 0) break;
    objects.push(d);
  }
  const truncated =
    objects.length < keys.length &&
    !(objects.length < limit && ctx.faults.has('bindings-list-shrunk-not-truncated'));
  const last = (objects[objects.length - 1] as { key: string } | undefined)?.key;
  return {
    objects,
    truncated,
    cursor: truncated && last ? Buffer.from(last, 'utf8').toString('base64url') : undefined,
    delimitedPrefixes: [],
  };
}

/** An R2Object as the probe serialises it: checksums in hex, MD5 for objects written whole. */
function describe(obj: ObjectRecord) {
  const checksums: Record<string, string> = {};
  // An object written whole has its MD5 as its ETag; a multipart one has none.
  if (!obj.partSizes && /^"?[0-9a-f]{32}"?$/.test(obj.etag)) checksums.md5 = obj.etag.replace(/"/g, '');
  for (const [alg, v] of Object.entries(obj.checksums))
    if ((ALGORITHMS as readonly string[]).includes(alg))
      checksums[alg] = Buffer.from(v, 'base64').toString('hex');
  return {
    key: obj.key,
    version: obj.versionId,
    size: obj.blob.size,
    etag: obj.etag.replace(/"/g, ''),
    httpEtag: obj.etag,
    uploaded: obj.lastModified.toISOString(),
    httpMetadata: obj.contentType ? ({ contentType: obj.contentType } as Record<string, string>) : {},
    customMetadata: { ...obj.metadata } as Record<string, string>,
    checksums,
    storageClass: 'Standard',
  };
}
