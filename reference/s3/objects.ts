import { randomBytes } from 'node:crypto';
import { headerValue, type S3Call } from './call.ts';
import { anyCondition, type Conditions, checkWrite } from './conditionals.ts';
import { extensionContentType, sniffContentType } from './content-type.ts';
import { noSuchBucket, noSuchKey, notImplemented, S3Error } from './errors.ts';
import { sendEmpty } from './respond.ts';
import { serveObject } from './serve-object.ts';
import { requestedEncryption } from './sse.ts';
import type { BucketRecord, ObjectRecord } from './store.ts';
import { storeBody, storedHeaders } from './write-body.ts';

export const newVersionId = () => randomBytes(16).toString('hex');

/** The bucket of a write; SPEC behaviour 8: `cf-create-bucket-if-missing: true` creates it. */
export function bucketForWrite(call: S3Call): BucketRecord {
  const existing = call.store.buckets.get(call.bucket);
  if (existing) return existing;
  if (
    headerValue(call.req, 'cf-create-bucket-if-missing')?.toLowerCase() === 'true' &&
    !call.ctx.faults.has('s3-create-bucket-if-missing-ignored')
  ) {
    const made = call.store.createBucket(call.bucket);
    // Under a fault, the bucket is made but the write had already looked it up and found none.
    if (call.ctx.faults.has('s3-create-bucket-if-missing-then-no-such-bucket'))
      throw noSuchBucket(call.bucket);
    return made;
  }
  throw noSuchBucket(call.bucket);
}

export function writeConditions(call: S3Call): Conditions {
  return {
    ifMatch: headerValue(call.req, 'if-match'),
    ifNoneMatch: headerValue(call.req, 'if-none-match'),
    ifModifiedSince: headerValue(call.req, 'if-modified-since'),
    ifUnmodifiedSince: headerValue(call.req, 'if-unmodified-since'),
  };
}

/** Conditional writes against an existing object (SPEC behaviour 8). */
export function checkWriteConditions(call: S3Call, bucket: BucketRecord): void {
  const conditions = writeConditions(call);
  if (!anyCondition(conditions) || call.ctx.faults.has('s3-put-conditions-ignored')) return;
  checkWrite(conditions, bucket.objects.get(call.key), call.key, call.ctx.faults);
}

function checkKey(key: string): void {
  if (Buffer.byteLength(key) > 1024) throw new S3Error(400, 'KeyTooLongError', 'Your key is too long.');
}

/** PutObject, by PUT or POST (SPEC behaviour 8). */
export async function putObject(call: S3Call): Promise<void> {
  checkKey(call.key);
  const bucket = bucketForWrite(call);
  if (
    (call.req.headers['x-amz-checksum-sha256'] !== undefined ||
      call.req.headers['x-amz-checksum-sha1'] !== undefined) &&
    call.ctx.faults.has('s3-checksum-headers-rejected')
  ) {
    throw notImplemented('x-amz-checksum-sha256 and x-amz-checksum-sha1');
  }
  const sse = requestedEncryption(call);
  checkWriteConditions(call, bucket);
  const { blob, digest } = await storeBody(call);
  try {
    // The object may have appeared while the body streamed in.
    checkWriteConditions(call, bucket);
  } catch (err) {
    call.store.blobs.release(blob);
    throw err;
  }
  const given = headerValue(call.req, 'content-type');
  const contentType = given ?? inferContentType(call, digest.head);
  const record: ObjectRecord = {
    key: call.key,
    blob,
    etag: `"${digest.md5.toString('hex')}"`,
    lastModified: new Date(),
    versionId: newVersionId(),
    contentType,
    ...storedHeaders(call),
    checksums: digest.checksums,
    sse: sse && !call.ctx.faults.has('s3-sse-not-kept') ? sse : undefined,
  };
  call.store.putObject(bucket, record);
  const headers: Record<string, string> = { etag: record.etag, 'x-amz-version-id': record.versionId };
  if (Object.keys(digest.checksums).length > 0 && !call.ctx.faults.has('s3-checksum-not-answered'))
    for (const [alg, v] of Object.entries(digest.checksums)) headers[`x-amz-checksum-${alg}`] = v;
  if (sse && !call.ctx.faults.has('s3-sse-header-not-echoed')) headers['x-amz-server-side-encryption'] = sse;
  sendEmpty(call.res, 200, headers);
}

export async function getObject(call: S3Call): Promise<void> {
  const bucket = call.store.bucket(call.bucket);
  const obj = bucket.objects.get(call.key);
  if (!obj) throw noSuchKey(call.key);
  const versionId = call.query.get('versionId');
  if (versionId !== null && versionId !== obj.versionId && versionId !== 'null') {
    throw new S3Error(404, 'NoSuchVersion', 'The specified version does not exist.');
  }
  await serveObject(call.req, call.res, call.ctx, call.store.blobs, obj, { query: call.query });
}

export function deleteObject(call: S3Call): void {
  const bucket = call.store.bucket(call.bucket);
  if (!bucket.objects.has(call.key) && call.ctx.faults.has('s3-delete-missing-404'))
    throw noSuchKey(call.key);
  call.store.deleteObject(bucket, call.key);
  sendEmpty(call.res, 204);
}

/** SPEC behaviour 8: the type of a body sent without Content-Type. Each fault is asked only where it changes it. */
function inferContentType(call: S3Call, head: Buffer): string {
  const sniffed = sniffContentType(head);
  if (sniffed !== 'application/octet-stream' && call.ctx.faults.has('s3-content-type-not-inferred'))
    return 'application/octet-stream';
  // Under a fault, the type is guessed from the key's extension, as many static file servers do.
  const byName = extensionContentType(call.key);
  if (byName !== sniffed && call.ctx.faults.has('s3-content-type-from-extension')) return byName;
  return sniffed;
}
