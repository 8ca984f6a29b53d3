import { headerValue, type S3Call } from './call.ts';
import { anyCondition, checkRead, checkWrite } from './conditionals.ts';
import {
  invalidArgument,
  noSuchBucket,
  noSuchKey,
  notImplemented,
  preconditionFailed,
  S3Error,
} from './errors.ts';
import { checkWriteConditions, newVersionId } from './objects.ts';
import { sendResult } from './respond.ts';
import { encryptionHeader, writeEncryption } from './sse.ts';
import type { ObjectRecord } from './store.ts';
import { storedHeaders } from './write-body.ts';

export interface CopySource {
  bucket: string;
  key: string;
  obj: ObjectRecord;
}

/**
 * x-amz-copy-source: SPEC behaviour 9 requires a leading slash (`/bucket/key`, URL-encoded, optional
 * `?versionId=`). A missing source bucket is NoSuchBucket, a missing key NoSuchKey.
 */
export function copySource(call: S3Call): CopySource {
  const raw = headerValue(call.req, 'x-amz-copy-source') ?? '';
  if (call.ctx.faults.has('s3-copy-source-slash-rejected')) {
    if (raw.startsWith('/'))
      throw invalidArgument('Copy Source must not start with a slash: sourcebucket/sourcekey');
  } else if (!raw.startsWith('/') && !call.ctx.faults.has('s3-copy-source-no-slash-accepted')) {
    throw invalidArgument('Copy Source must start with a slash: /sourcebucket/sourcekey');
  }
  const [pathPart, queryPart] = raw.replace(/^\//, '').split('?', 2);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathPart);
  } catch {
    throw invalidArgument('Copy Source is not correctly URL-encoded.');
  }
  const slash = decoded.indexOf('/');
  if (slash <= 0 || slash === decoded.length - 1) {
    throw invalidArgument('Copy Source must mention the source bucket and key: /sourcebucket/sourcekey');
  }
  const bucket = decoded.slice(0, slash);
  const key = decoded.slice(slash + 1);
  const obj = call.store.bucket(bucket).objects.get(key);
  if (!obj) {
    const err = noSuchKey(key);
    // Under a fault, CopyObject (not UploadPartCopy) answers a missing source key with a bare 404.
    err.bodiless = !call.query.has('uploadId') && call.ctx.faults.has('s3-copy-missing-source-no-body');
    throw err;
  }
  const versionId = new URLSearchParams(queryPart ?? '').get('versionId');
  if (versionId !== null && versionId !== obj.versionId && versionId !== 'null') {
    throw new S3Error(404, 'NoSuchVersion', 'The specified version does not exist.');
  }
  const conditions = {
    ifMatch: headerValue(call.req, 'x-amz-copy-source-if-match'),
    ifNoneMatch: headerValue(call.req, 'x-amz-copy-source-if-none-match'),
    ifModifiedSince: headerValue(call.req, 'x-amz-copy-source-if-modified-since'),
    ifUnmodifiedSince: headerValue(call.req, 'x-amz-copy-source-if-unmodified-since'),
  };
  if (
    anyCondition(conditions) &&
    !call.ctx.faults.has('s3-copy-source-conditions-ignored') &&
    checkRead(conditions, obj.etag, obj.lastModified, call.ctx.faults) === 304
  ) {
    throw preconditionFailed();
  }
  return { bucket, key, obj };
}

/** The same error document with status 400: SPEC names the codes of a missing bucket or key, not the status. */
function withStatus400(e: S3Error): S3Error {
  const out = new S3Error(400, e.code, e.message, e.extra);
  out.bodiless = e.bodiless;
  return out;
}

/** CopyObject (SPEC behaviour 9): shares the source's stored bytes; multipart sources keep their part layout. */
export function copyObject(call: S3Call): void {
  const f = call.ctx.faults;
  const bucket = call.store.buckets.get(call.bucket);
  if (!bucket) {
    const err = f.has('s3-copy-missing-destination-nosuchkey')
      ? noSuchKey(call.key)
      : noSuchBucket(call.bucket);
    throw f.has('s3-copy-missing-400') ? withStatus400(err) : err;
  }
  const sse = writeEncryption(call, bucket);
  let src: CopySource;
  try {
    src = copySource(call);
  } catch (err) {
    const missing = err instanceof S3Error && (err.code === 'NoSuchKey' || err.code === 'NoSuchBucket');
    throw missing && f.has('s3-copy-missing-400') ? withStatus400(err) : err;
  }
  if (src.obj.partSizes && f.has('s3-multipart-copy-unsupported'))
    throw notImplemented('Copying a multipart object');
  checkWriteConditions(call, bucket);
  // Service-specific conditions on the destination object (SPEC behaviour 9).
  const destination = {
    ifMatch: headerValue(call.req, 'cf-copy-destination-if-match'),
    ifNoneMatch: headerValue(call.req, 'cf-copy-destination-if-none-match'),
    ifModifiedSince: headerValue(call.req, 'cf-copy-destination-if-modified-since'),
    ifUnmodifiedSince: headerValue(call.req, 'cf-copy-destination-if-unmodified-since'),
  };
  if (anyCondition(destination) && !f.has('s3-copy-destination-conditions-ignored'))
    checkWrite(destination, bucket.objects.get(call.key), call.key, f);
  const directive = (headerValue(call.req, 'x-amz-metadata-directive') ?? 'COPY').toUpperCase();
  if (directive !== 'COPY' && directive !== 'REPLACE') invalidDirective();
  const self = src.bucket === call.bucket && src.key === call.key;
  if (
    self &&
    (directive === 'COPY' ? !f.has('s3-copy-self-allowed') : f.has('s3-copy-self-replace-refused'))
  ) {
    throw new S3Error(
      400,
      'InvalidRequest',
      'This copy request is illegal because it is trying to copy an object to itself without changing the metadata.',
    );
  }
  const replace = directive === 'REPLACE' && !f.has('s3-copy-replace-ignored');
  const replaced = replace ? storedHeaders(call) : undefined;
  // Under a fault, REPLACE keeps the source's Content-Encoding when the request gives none, as if it
  // described the bytes rather than being metadata the directive replaces.
  const sourceEncoding = src.obj.headers['content-encoding'];
  if (
    replaced &&
    sourceEncoding !== undefined &&
    replaced.headers['content-encoding'] === undefined &&
    f.has('s3-copy-replace-keeps-content-encoding')
  )
    replaced.headers['content-encoding'] = sourceEncoding;
  // COPY keeps the source's representation headers and metadata; under a fault they are lost.
  const dropped =
    !replace &&
    Object.keys(src.obj.headers).length + Object.keys(src.obj.metadata).length > 0 &&
    f.has('s3-copy-metadata-not-copied');
  const record: ObjectRecord = {
    key: call.key,
    blob: call.store.blobs.concat([src.obj.blob]),
    // The copy's bytes are the source's, and so is its ETag (for a multipart source too, as its parts are kept).
    etag: f.has('s3-copy-etag-fresh') ? `"${newVersionId()}"` : src.obj.etag,
    lastModified: new Date(),
    versionId: newVersionId(),
    contentType: replace
      ? (headerValue(call.req, 'content-type') ?? 'application/octet-stream')
      : dropped
        ? 'application/octet-stream'
        : src.obj.contentType,
    headers: replaced?.headers ?? (dropped ? {} : { ...src.obj.headers }),
    metadata: replaced?.metadata ?? (dropped ? {} : { ...src.obj.metadata }),
    checksums: { ...src.obj.checksums },
    partSizes: src.obj.partSizes ? [...src.obj.partSizes] : undefined,
    sse,
  };
  call.store.putObject(bucket, record);
  const headers: Record<string, string> = call.ctx.faults.has('s3-copy-no-version-headers')
    ? {}
    : { 'x-amz-version-id': record.versionId, 'x-amz-copy-source-version-id': src.obj.versionId };
  // The copy's encryption, as PutObject answers it; under a fault, left out where the request asked for it.
  const asked = call.req.headers['x-amz-server-side-encryption'] !== undefined;
  Object.assign(headers, encryptionHeader(call, sse, asked ? 's3-sse-copy-header-missing' : undefined));
  sendResult(
    call.res,
    'CopyObjectResult',
    { ETag: record.etag, LastModified: record.lastModified.toISOString() },
    headers,
    call.ctx,
  );
}

function invalidDirective(): never {
  throw invalidArgument('Unknown metadata directive: use COPY or REPLACE.');
}
