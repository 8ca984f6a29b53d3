/**
 * What state a step reads and writes, as resource paths: a later step depends on an earlier one
 * only where the earlier one's writes reach what the later one reads or writes (runner/run/
 * dependencies.ts). Paths are written with the step's placeholders unresolved: within one case a
 * name stands for one value, so `${b}` and `${b}` are the same bucket before anything is sent.
 */
export type Resource = readonly string[];

export interface Footprint {
  reads: Resource[];
  writes: Resource[];
  /**
   * Writes that set the whole of a resource whatever it held (a PUT of an object, a DELETE): what
   * was written there before is no longer read after such a write.
   */
  replaces: Resource[];
}

/** Anything at all: a step whose reach cannot be told from the case (raw bytes, a binding call). */
export const ANYTHING: Resource = ['*'];

/**
 * Whether a write to `a` can change what `b` holds (or the other way round): one path holds the
 * other. A bucket holds its objects and its configurations; the objects of a bucket as a whole (a
 * listing) hold each object.
 */
export function overlaps(a: Resource, b: Resource): boolean {
  if (a[0] === '*' || b[0] === '*') return true;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

export const sameResource = (a: Resource, b: Resource) =>
  a.length === b.length && a.every((part, i) => part === b[i]);

export const readsOnly = (...reads: Resource[]): Footprint => ({ reads, writes: [], replaces: [] });

/** Unknown reach: reads everything, and writes everything unless it is a read. */
export const unknownFootprint = (writes: boolean): Footprint => ({
  reads: [ANYTHING],
  writes: writes ? [ANYTHING] : [],
  replaces: [],
});

/** Bucket configurations an S3 query names (`?cors`): each its own resource of the bucket. */
const BUCKET_CONFIGURATIONS = new Set([
  'accelerate',
  'acl',
  'analytics',
  'cors',
  'encryption',
  'intelligent-tiering',
  'inventory',
  'lifecycle',
  'location',
  'logging',
  'metrics',
  'notification',
  'object-lock',
  'ownershipControls',
  'policy',
  'policyStatus',
  'publicAccessBlock',
  'replication',
  'requestPayment',
  'tagging',
  'versioning',
  'website',
]);

/** The bucket itself: its existence. Creating or deleting it reaches everything in it. */
export const s3Bucket = (bucket: string): Resource => ['s3', bucket];
/** Whether the bucket is there (HeadBucket): only creating or deleting the bucket reaches it. */
export const s3Exists = (bucket: string): Resource => ['s3', bucket, 'exists'];
/** Every object (and upload) of a bucket: what a listing reads. */
export const s3Objects = (bucket: string): Resource => ['s3', bucket, 'objects'];
export const s3Object = (bucket: string, key: string): Resource => ['s3', bucket, 'objects', key];
export const s3Configuration = (bucket: string, name: string): Resource => ['s3', bucket, `?${name}`];
/** Every bucket of the account: what ListBuckets reads. */
export const S3_BUCKETS: Resource = ['s3'];

/** The configuration a query names, if any (the first one, as S3 reads a bucket sub-resource). */
export function configurationIn(query: Record<string, unknown> | undefined): string | undefined {
  return Object.keys(query ?? {}).find((k) => BUCKET_CONFIGURATIONS.has(k));
}

/** A copy's source header or input (`/bucket/key` or `bucket/key`, a version after `?`). */
export function copySource(source: unknown): Resource | undefined {
  if (typeof source !== 'string' || source === '') return undefined;
  const [path] = source.replace(/^\//, '').split('?');
  const slash = path.indexOf('/');
  return slash < 0 ? s3Bucket(path) : s3Object(path.slice(0, slash), path.slice(slash + 1));
}

/**
 * An S3 request by what it addresses: `bucket` and `key` (either may be missing), its method, query
 * and headers. Reads are GET, HEAD and OPTIONS; a PUT or DELETE of a bucket, an object or a
 * configuration replaces it; a POST to a bucket (DeleteObjects, a browser upload) writes its
 * objects; a multipart request, tags or an ACL add to an object without replacing it. A request
 * with an Origin (a preflight, a cross-origin read) reads the bucket's CORS rules too; an object
 * request reads the bucket's lifecycle rules, and a write its default encryption.
 */
export function s3Footprint(
  method: string,
  bucket: string | undefined,
  key: string | undefined,
  query: Record<string, unknown> | undefined,
  headers?: Record<string, unknown>,
): Footprint {
  const m = method.toUpperCase();
  const read = m === 'GET' || m === 'HEAD' || m === 'OPTIONS';
  if (bucket === undefined) return read ? readsOnly(S3_BUCKETS) : unknownFootprint(true);
  const configuration = key ? undefined : configurationIn(query);
  const at = key
    ? s3Object(bucket, key)
    : configuration
      ? s3Configuration(bucket, configuration)
      : m === 'GET' || m === 'POST'
        ? s3Objects(bucket)
        : read
          ? s3Exists(bucket)
          : s3Bucket(bucket);
  const header = (name: string) => Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
  const partial = m === 'POST' || Object.keys(query ?? {}).some((k) => OBJECT_PARTS.has(k));
  // A write that replaces the thing whole reads nothing of it, unless a condition compares with it.
  const conditional = ['if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since'].some(
    (h) => header(h) !== undefined,
  );
  const reads = read || partial || conditional ? [at] : [];
  const source = copySource(header('x-amz-copy-source'));
  if (source) reads.push(source);
  // An object's answers carry what the bucket's configurations give it: the default encryption
  // a new object takes, the expiration a lifecycle rule sets.
  if (key && !read) reads.push(s3Configuration(bucket, 'encryption'));
  if (key) reads.push(s3Configuration(bucket, 'lifecycle'));
  if (m === 'OPTIONS' || header('origin') !== undefined) reads.push(s3Configuration(bucket, 'cors'));
  if (read) return { reads, writes: [], replaces: [] };
  return { reads, writes: [at], replaces: partial ? [] : [at] };
}

/** Queries that address a part of an object (an upload, its parts, its tags): a write there adds to it. */
const OBJECT_PARTS = new Set([
  'uploads',
  'uploadId',
  'partNumber',
  'tagging',
  'acl',
  'retention',
  'legal-hold',
]);

/** A management API request: its path, without the query, split at `/`. */
export function apiFootprint(method: string, path: string): Footprint {
  const at: Resource = ['api', ...path.split('?')[0].split('/').filter(Boolean)];
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'OPTIONS') return readsOnly(at);
  // A PUT or DELETE sets the thing whole, whatever it held; a POST or PATCH adds to what is there.
  const whole = m === 'PUT' || m === 'DELETE';
  return { reads: whole ? [] : [at], writes: [at], replaces: whole ? [at] : [] };
}

/** A resource in words, for lint and messages: `s3 ${b}/k.txt`, `api /zones/${target.zoneId}`. */
export function describeResource(r: Resource): string {
  if (r[0] === '*') return 'anything';
  if (r[0] === 'api') return `api /${r.slice(1).join('/')}`;
  if (r.length === 1) return 's3 buckets';
  if (r.length === 2) return `s3 bucket ${r[1]}`;
  if (r[2] === 'objects') return r.length === 3 ? `s3 ${r[1]}/*` : `s3 ${r[1]}/${r[3]}`;
  if (r[2] === 'exists') return `s3 bucket ${r[1]} (whether it is there)`;
  return `s3 ${r[1]}${r[2]}`;
}
