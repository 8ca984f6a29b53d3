import { randomUUID } from 'node:crypto';
import { badDigest, contentMd5Mismatch } from './body.ts';
import { headerValue, type S3Call } from './call.ts';
import { anyCondition, type Conditions, checkWrite } from './conditionals.ts';
import { extensionContentType, sniffContentType } from './content-type.ts';
import { noSuchBucket, noSuchKey, notImplemented, preconditionFailed, S3Error } from './errors.ts';
import { expirationHeaders } from './expiration.ts';
import { sendEmpty } from './respond.ts';
import { serveObject } from './serve-object.ts';
import { refuseEncryptionOnRead, writeEncryption } from './sse.ts';
import type { BucketRecord, ObjectRecord } from './store.ts';
import { storeBody, storedHeaders } from './write-body.ts';

// 32 hex digits, from Node's batched source of random UUIDs: a fresh randomBytes is a system call each.
export const newVersionId = () => randomUUID().replace(/-/g, '');

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
export function checkWriteConditions(call: S3Call, bucket: BucketRecord, ifMatchDroppedUnder?: string): void {
  const conditions = writeConditions(call);
  if (!anyCondition(conditions) || call.ctx.faults.has('s3-put-conditions-ignored')) return;
  // Under the operation's fault, it drops If-Match, as Amazon S3 did before it took If-Match on writes.
  if (
    ifMatchDroppedUnder !== undefined &&
    conditions.ifMatch !== undefined &&
    call.ctx.faults.has(ifMatchDroppedUnder)
  )
    conditions.ifMatch = undefined;
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
  // Under a fault, SHA-1, in a header or announced as a trailer, is refused: only SHA-256 is implemented.
  if (
    (call.req.headers['x-amz-checksum-sha1'] !== undefined ||
      /x-amz-checksum-sha1/i.test(headerValue(call.req, 'x-amz-trailer') ?? '')) &&
    call.ctx.faults.has('s3-checksum-sha1-not-implemented')
  )
    throw notImplemented('x-amz-checksum-sha1');
  // Under a fault, x-amz-checksum-sha256 is read as hex, as x-amz-content-sha256 is: a base64 digest is refused.
  const sha256 = headerValue(call.req, 'x-amz-checksum-sha256');
  if (
    sha256 !== undefined &&
    !/^[0-9a-f]{64}$/i.test(sha256) &&
    call.ctx.faults.has('s3-checksum-sha256-hex')
  )
    throw new S3Error(400, 'InvalidDigest', 'The x-amz-checksum-sha256 you specified is not a hex SHA-256.');
  // Under a fault, PutObject refuses the header whatever it names, as R2 documents for PutObject.
  if (
    call.req.headers['x-amz-server-side-encryption'] !== undefined &&
    call.ctx.faults.has('s3-sse-put-not-implemented')
  )
    throw notImplemented('x-amz-server-side-encryption on PutObject');
  const sse = writeEncryption(call, bucket);
  // Asked for, or the bucket's default: each has faults of its own.
  const asked = call.req.headers['x-amz-server-side-encryption'] !== undefined;
  checkWriteConditions(call, bucket, 's3-put-if-match-ignored');
  const { blob, digest } = await storeBody(call);
  try {
    // The object may have appeared while the body streamed in.
    checkWriteConditions(call, bucket, 's3-put-if-match-ignored');
  } catch (err) {
    call.store.blobs.release(blob);
    throw err;
  }
  const given = headerValue(call.req, 'content-type');
  const contentType = given ?? inferContentType(call, digest.head);
  const record: ObjectRecord = {
    key: call.key,
    blob,
    // Under a fault, a body of no bytes is never hashed: its ETag is empty quotes, not the MD5 of nothing;
    // under another, the ETag is kept without its double quotes, and every answer gives it so.
    etag:
      digest.size === 0 && call.ctx.faults.has('s3-empty-object-etag-blank')
        ? '""'
        : call.ctx.faults.has('s3-object-etag-unquoted')
          ? digest.md5.toString('hex')
          : `"${digest.md5.toString('hex')}"`,
    lastModified: lastModifiedOfWrite(call, bucket),
    versionId: newVersionId(),
    contentType,
    ...storedHeaders(call),
    checksums: digest.checksums,
    sse:
      sse && !call.ctx.faults.has(asked ? 's3-sse-not-kept' : 's3-sse-bucket-default-not-kept')
        ? sse
        : undefined,
    sseByDefault: !asked,
    byPut: true,
  };
  call.store.putObject(bucket, record);
  // Under a fault, a Content-MD5 that does not match is refused only once the object is stored.
  if (digest.mismatched.includes('md5') && call.ctx.faults.has('s3-content-md5-checked-after-store'))
    throw contentMd5Mismatch();
  // Under a fault, a CRC32 that does not match is refused only once the object is stored.
  if (digest.mismatched.includes('crc32') && call.ctx.faults.has('s3-checksum-crc32-checked-after-store'))
    throw badDigest('crc32');
  // Under a fault, a SHA-1 that does not match is refused only once the object is stored.
  if (digest.mismatched.includes('sha1') && call.ctx.faults.has('s3-put-sha1-mismatch-stored'))
    throw badDigest('sha1');
  // Under a fault, PutObject answers the ETag without its double quotes (GET and HEAD keep them).
  const etag = call.ctx.faults.has('s3-put-etag-unquoted') ? record.etag.replace(/^"|"$/g, '') : record.etag;
  const headers: Record<string, string> = { etag, 'x-amz-version-id': record.versionId };
  // Under a fault, PutObject of no bytes answers no ETag, as a server that hashes only the bytes it is fed may.
  if (digest.size === 0 && call.ctx.faults.has('s3-put-etag-omitted')) delete headers.etag;
  if (Object.keys(digest.checksums).length > 0 && !call.ctx.faults.has('s3-checksum-not-answered'))
    for (const [alg, v] of Object.entries(digest.checksums)) headers[`x-amz-checksum-${alg}`] = v;
  if (sse && !(asked && call.ctx.faults.has('s3-sse-header-not-echoed')))
    headers['x-amz-server-side-encryption'] = sse;
  // x-amz-expiration, where an enabled Expiration rule of the bucket covers the object.
  Object.assign(headers, expirationHeaders(bucket, call.key, record.lastModified, call.ctx));
  // A control: SPEC names no status for PutObject by POST, and 204 is Amazon S3's POST upload's default.
  sendEmpty(call.res, call.method === 'POST' && call.ctx.faults.has('s3-put-post-204') ? 204 : 200, headers);
}

export async function getObject(call: S3Call): Promise<void> {
  refuseEncryptionOnRead(call);
  const bucket = call.store.bucket(call.bucket);
  const obj = bucket.objects.get(call.key);
  if (!obj) {
    missingKey(call);
    return;
  }
  const versionId = call.query.get('versionId');
  if (versionId !== null && versionId !== obj.versionId && versionId !== 'null') {
    throw new S3Error(404, 'NoSuchVersion', 'The specified version does not exist.');
  }
  // x-amz-expiration, as PutObject answered it; under a fault, GET and HEAD leave it out.
  const expiration = expirationHeaders(bucket, obj.key, obj.lastModified, call.ctx);
  const extraHeaders =
    Object.keys(expiration).length > 0 && call.ctx.faults.has('s3-expiration-read-omitted') ? {} : expiration;
  await serveObject(call.req, call.res, call.ctx, call.store.blobs, obj, { query: call.query, extraHeaders });
}

/**
 * GET or HEAD of a missing key: 404 NoSuchKey, whatever conditions it carries, as Amazon S3 answers.
 * Under faults, each asked only of a request that carries the condition, If-Match (or If-Match *
 * alone) is a failed precondition, or an If-None-Match ETag is answered 304.
 */
function missingKey(call: S3Call): void {
  const ifMatch = headerValue(call.req, 'if-match');
  const f = call.ctx.faults;
  if (
    ifMatch !== undefined &&
    (f.has('s3-cond-missing-if-match-412') ||
      (ifMatch.trim() === '*' && f.has('s3-cond-missing-if-match-star-412')))
  )
    throw preconditionFailed();
  // If-None-Match * on a missing key is s3.cond.wildcard's: the fault takes ETags alone.
  const ifNoneMatch = headerValue(call.req, 'if-none-match');
  if (ifNoneMatch === undefined || ifNoneMatch.trim() === '*' || !f.has('s3-cond-missing-if-none-match-304'))
    throw noSuchKey(call.key);
  sendEmpty(call.res, 304);
}

export function deleteObject(call: S3Call): void {
  const bucket = call.store.bucket(call.bucket);
  if (!bucket.objects.has(call.key) && call.ctx.faults.has('s3-delete-missing-404'))
    throw noSuchKey(call.key);
  call.store.deleteObject(bucket, call.key);
  sendEmpty(call.res, 204);
}

/** A write's Last-Modified: now. Under a fault, an overwritten object keeps the time of its first write. */
function lastModifiedOfWrite(call: S3Call, bucket: BucketRecord): Date {
  const old = bucket.objects.get(call.key);
  if (old && call.ctx.faults.has('s3-last-modified-kept-on-overwrite')) return old.lastModified;
  return new Date();
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
