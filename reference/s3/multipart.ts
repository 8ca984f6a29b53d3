import { createHash, randomBytes } from 'node:crypto';
import type { Blob } from './blobs.ts';
import { headerValue, type S3Call } from './call.ts';
import { COMPOSITE, compositeChecksum } from './checksums.ts';
import { anyCondition, checkWrite } from './conditionals.ts';
import { copySource } from './copy.ts';
import { invalidArgument, malformedXml, noSuchUpload, S3Error } from './errors.ts';
import { bucketForWrite, checkWriteConditions, newVersionId, writeConditions } from './objects.ts';
import { readRequestXml } from './request-xml.ts';
import { sendEmpty, sendResult } from './respond.ts';
import { encryptionHeader, writeEncryption } from './sse.ts';
import type { BucketRecord, ObjectRecord, PartRecord, UploadRecord } from './store.ts';
import { storeBody, storedHeaders } from './write-body.ts';
import { asArray, text } from './xml.ts';

/** Limits: at most 10,000 parts; every part but the last at least 5 MiB and all of the same size. */
export const MAX_PARTS = 10000;
export const MIN_PART_SIZE = 5 * 1024 * 1024;

function upload(call: S3Call, bucket: BucketRecord, unknownFault?: string): UploadRecord {
  const id = call.query.get('uploadId') ?? '';
  const u = bucket.uploads.get(id);
  if (!u || u.key !== call.key) {
    // Under a fault, an unknown (or aborted) upload is an internal error instead of NoSuchUpload.
    if (unknownFault && call.ctx.faults.has(unknownFault)) throw internalError();
    throw noSuchUpload(id);
  }
  return u;
}

const internalError = () =>
  new S3Error(500, 'InternalError', 'We encountered an internal error. Please try again.');

function partNumber(call: S3Call): number {
  const raw = call.query.get('partNumber') ?? '';
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_PARTS) {
    throw invalidArgument(`Part number must be an integer between 1 and ${MAX_PARTS}, inclusive.`);
  }
  return n;
}

export function createMultipartUpload(call: S3Call): void {
  const bucket = bucketForWrite(call);
  const sse = writeEncryption(call, bucket);
  // SPEC behaviour 8: conditional headers also apply to CreateMultipartUpload.
  try {
    checkWriteConditions(call, bucket, 's3-cond-create-multipart-if-match-ignored');
  } catch (err) {
    // Under a fault, a failing condition is ignored here (PutObject still honours it).
    const failed = err instanceof S3Error && err.status === 412;
    if (!failed || !call.ctx.faults.has('s3-cond-create-multipart-ignored')) throw err;
  }
  const uploadId = randomBytes(24).toString('base64url');
  const alg = headerValue(call.req, 'x-amz-checksum-algorithm');
  const stored = storedHeaders(call);
  // Under a fault, an upload keeps only the first coding of a Content-Encoding list.
  const codings = stored.headers['content-encoding']?.split(',') ?? [];
  if (codings.length > 1 && call.ctx.faults.has('s3-multipart-content-encoding-first-coding'))
    stored.headers['content-encoding'] = codings[0].trim();
  bucket.uploads.set(uploadId, {
    uploadId,
    key: call.key,
    initiated: new Date(),
    contentType: headerValue(call.req, 'content-type'),
    ...stored,
    sse,
    checksumAlgorithm: alg?.toLowerCase(),
    parts: new Map(),
  });
  const headers: Record<string, string> = sse ? { 'x-amz-server-side-encryption': sse } : {};
  if (alg) headers['x-amz-checksum-algorithm'] = alg;
  sendResult(
    call.res,
    'InitiateMultipartUploadResult',
    { Bucket: call.bucket, Key: call.key, UploadId: uploadId },
    headers,
    call.ctx,
  );
}

function putPart(call: S3Call, u: UploadRecord, part: PartRecord): void {
  const old = u.parts.get(part.partNumber);
  u.parts.set(part.partNumber, part);
  if (old) call.store.blobs.release(old.blob);
}

/** UploadPart; a 0-length part is accepted (SPEC behaviour 11). */
export async function uploadPart(call: S3Call): Promise<void> {
  const bucket = call.store.bucket(call.bucket);
  const n = partNumber(call);
  const u = upload(call, bucket, 's3-upload-part-unknown-upload-500');
  const { blob, digest } = await storeBody(call);
  const f = call.ctx.faults;
  if (
    (digest.size === 0 && f.has('s3-zero-length-part-rejected')) ||
    (digest.size < MIN_PART_SIZE && f.has('s3-part-size-checked-at-upload'))
  ) {
    call.store.blobs.release(blob);
    throw new S3Error(
      400,
      'EntityTooSmall',
      'Your proposed upload is smaller than the minimum allowed size.',
    );
  }
  if (bucket.uploads.get(u.uploadId) !== u) {
    call.store.blobs.release(blob);
    throw noSuchUpload(u.uploadId);
  }
  // Under a control fault, part and multipart ETags are kept, and answered, without their quotes.
  const etag = f.has('s3-multipart-etags-unquoted')
    ? digest.md5.toString('hex')
    : `"${digest.md5.toString('hex')}"`;
  // Under a fault, a 0-length part is answered as accepted but never kept.
  if (digest.size === 0 && f.has('s3-zero-length-part-dropped')) call.store.blobs.release(blob);
  else putPart(call, u, { partNumber: n, blob, etag, lastModified: new Date(), checksums: digest.checksums });
  const headers: Record<string, string> = {
    etag,
    ...encryptionHeader(call, u.sse, 's3-sse-upload-part-header-missing'),
  };
  if (Object.keys(digest.checksums).length > 0 && !f.has('s3-part-checksum-not-answered'))
    for (const [alg, v] of Object.entries(digest.checksums)) headers[`x-amz-checksum-${alg}`] = v;
  sendEmpty(call.res, 200, headers);
}

/** UploadPartCopy (SPEC behaviour 9), with an optional x-amz-copy-source-range. */
export async function uploadPartCopy(call: S3Call): Promise<void> {
  const bucket = call.store.bucket(call.bucket);
  const n = partNumber(call);
  const u = upload(call, bucket);
  const src = copySource(call);
  const rangeHeader = headerValue(call.req, 'x-amz-copy-source-range');
  const range = rangeHeader ? copyRange(call, rangeHeader, src.obj.blob.size) : undefined;
  const md5 = createHash('md5');
  let blob: Blob;
  if (range || src.obj.blob.size === 0) {
    const stream = range
      ? call.store.blobs.read(src.obj.blob, range.start, range.end)
      : call.store.blobs.read(src.obj.blob);
    stream.on('data', (c: Buffer) => md5.update(c));
    blob = await call.store.blobs.write(stream);
  } else {
    blob = await copyWhole(call, src.obj, md5);
    // Under a fault, the whole source is hashed twice over, as a copy that reads it once to store and
    // once more to hash it, into one digest, would do.
    if (call.ctx.faults.has('s3-part-copy-etag-hashed-twice'))
      for await (const c of call.store.blobs.read(src.obj.blob)) md5.update(c as Buffer);
  }
  const etag = `"${md5.digest('hex')}"`;
  const lastModified = new Date();
  putPart(call, u, { partNumber: n, blob, etag, lastModified });
  sendResult(
    call.res,
    'CopyPartResult',
    // Under a control fault, the part ETag is answered without its quotes: a difference of form only.
    {
      ETag: call.ctx.faults.has('s3-part-copy-etag-unquoted') ? etag.replace(/"/g, '') : etag,
      LastModified: lastModified.toISOString(),
    },
    encryptionHeader(call, u.sse, 's3-sse-part-copy-header-missing'),
    call.ctx,
  );
}

/**
 * x-amz-copy-source-range: as Amazon S3, exactly `bytes=first-last` within the source; unlike a GET
 * range, one that ends past the source is not clipped but refused.
 */
function copyRange(call: S3Call, header: string, size: number): { start: number; end: number } {
  const m = /^bytes=(\d+)-(\d+)$/.exec(header.trim());
  if (!m || Number(m[1]) > Number(m[2]))
    throw invalidArgument('The x-amz-copy-source-range value must be of the form bytes=first-last.');
  const start = Number(m[1]);
  let end = Number(m[2]);
  if (end >= size) {
    // Faults: every such range is clipped, or (end > size instead of end >= size) one ending a byte past.
    const clipped =
      call.ctx.faults.has('s3-part-copy-range-clipped') ||
      (end === size && call.ctx.faults.has('s3-part-copy-range-end-at-size-accepted'));
    if (!clipped) throw new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable.');
    end = size - 1;
  }
  if (end > start && call.ctx.faults.has('s3-part-copy-range-exclusive')) end -= 1;
  return { start, end };
}

/** A whole-object part copy shares the stored bytes; the MD5 still has to be read once. */
async function copyWhole(call: S3Call, obj: ObjectRecord, md5: ReturnType<typeof createHash>) {
  for await (const c of call.store.blobs.read(obj.blob)) md5.update(c as Buffer);
  return call.store.blobs.concat([obj.blob]);
}

function stripQuotes(etag: string): string {
  // SPEC behaviour 11: leading and trailing quotes around ETags are ignored.
  return etag
    .trim()
    .replace(/^(&quot;|")+/, '')
    .replace(/(&quot;|")+$/, '');
}

/** CompleteMultipartUpload (SPEC behaviour 11, States and transitions, Limits). */
export async function completeMultipartUpload(call: S3Call): Promise<void> {
  const bucket = call.store.bucket(call.bucket);
  const done = bucket.completedUploads.get(call.query.get('uploadId') ?? '');
  if (done && done.key === call.key && !call.ctx.faults.has('s3-complete-repeat-no-such-upload')) {
    // As Amazon S3: completing a completed upload again answers what the first Complete did.
    call.req.resume();
    // Under a fault, the repeat is acknowledged without the result the first Complete gave.
    if (call.ctx.faults.has('s3-complete-repeat-empty-result')) return sendEmpty(call.res, 200);
    return sendResult(call.res, 'CompleteMultipartUploadResult', done.result, done.headers, call.ctx);
  }
  const u = upload(call, bucket, 's3-complete-unknown-upload-500');
  const claimed = COMPOSITE.some((alg) => call.req.headers[`x-amz-checksum-${alg}`] !== undefined);
  // x-amz-checksum-<alg> on Complete is the object's composite checksum, not one of the XML body.
  const ofBody = claimed && call.ctx.faults.has('s3-complete-checksum-of-body');
  const doc = await readRequestXml(call, undefined, !ofBody);
  const root = doc?.CompleteMultipartUpload as Record<string, unknown> | undefined;
  if (!root || typeof root !== 'object') throw malformedXml();
  const strictTags = call.ctx.faults.has('s3-complete-etag-quotes-strict');
  const listed = asArray(root.Part as Record<string, unknown> | Record<string, unknown>[]).map((p) => {
    const raw = (text(p?.ETag) ?? '').trim();
    // Under a fault, quotes are stripped only as a pair: a stray leading or trailing one is kept.
    const unpaired = raw.startsWith('"') !== raw.endsWith('"');
    const keep = strictTags || (unpaired && call.ctx.faults.has('s3-complete-etag-quotes-paired-only'));
    return { partNumber: Number(text(p?.PartNumber)?.trim()), etag: keep ? raw : stripQuotes(raw) };
  });
  if (listed.length === 0) throw malformedXml('You must specify at least one part.');
  if (listed.length > MAX_PARTS) throw invalidArgument(`At most ${MAX_PARTS} parts are allowed.`);

  // States and transitions: a failing condition aborts the upload.
  const conditions = writeConditions(call);
  if (anyCondition(conditions) && !call.ctx.faults.has('s3-put-conditions-ignored')) {
    try {
      checkWrite(conditions, bucket.objects.get(call.key), call.key, call.ctx.faults);
    } catch (err) {
      if (!call.ctx.faults.has('s3-complete-condition-keeps-upload')) call.store.dropUpload(bucket, u);
      throw err;
    }
  }

  const asListed = listed.map((p) => p.partNumber);
  const parts = assembleParts(call, u, listed, strictTags);
  checkPartSizes(call, parts);

  const etag = multipartEtag(call, listed, asListed, parts);
  const checksums = objectChecksum(call, u, parts);
  const record: ObjectRecord = {
    key: call.key,
    blob: call.store.blobs.concat(parts.map((p) => p.blob)),
    etag,
    lastModified: new Date(),
    versionId: newVersionId(),
    contentType: u.contentType ?? 'application/octet-stream',
    headers: u.headers,
    metadata: u.metadata,
    ...(hasStoredHeaders(u) && call.ctx.faults.has('s3-multipart-headers-dropped')
      ? { contentType: 'application/octet-stream', headers: {}, metadata: {} }
      : {}),
    checksums,
    partSizes: parts.map((p) => p.blob.size),
    sse: u.sse,
  };
  call.store.putObject(bucket, record);
  call.store.dropUpload(bucket, u);
  const result: Record<string, unknown> = {
    Location: `${call.ctx.urls.s3}/${encodeURIComponent(call.bucket)}/${encodeURIComponent(call.key).replace(/%2F/g, '/')}`,
    Bucket: call.bucket,
    Key: call.key,
    ETag: etag,
  };
  for (const [alg, v] of Object.entries(checksums)) {
    result[`Checksum${alg.toUpperCase()}`] = v;
    result.ChecksumType = 'COMPOSITE';
  }
  const headers = {
    'x-amz-version-id': record.versionId,
    ...encryptionHeader(call, record.sse, 's3-sse-complete-header-missing'),
  };
  bucket.completedUploads.set(u.uploadId, { key: call.key, result, headers });
  sendResult(call.res, 'CompleteMultipartUploadResult', result, headers, call.ctx);
}

/**
 * The stored parts a Complete lists, in part-number order (SPEC behaviour 11), each as its ETag
 * names it; `listed` is sorted in place. A part repeated, missing or of another ETag is refused.
 */
function assembleParts(
  call: S3Call,
  u: UploadRecord,
  listed: { partNumber: number; etag: string }[],
  strictTags: boolean,
): PartRecord[] {
  const ascending = listed.every((p, i) => i === 0 || listed[i - 1].partNumber < p.partNumber);
  if (!ascending && call.ctx.faults.has('s3-complete-unsorted-rejected')) {
    throw new S3Error(400, 'InvalidPartOrder', 'The list of parts was not in ascending order.');
  }
  // SPEC behaviour 11: parts are sorted ascending whatever the input order (under a fault, they
  // are accepted out of order but assembled as listed).
  if (ascending || !call.ctx.faults.has('s3-complete-parts-in-listed-order'))
    listed.sort((a, b) => a.partNumber - b.partNumber);
  const parts: PartRecord[] = [];
  const numbers = new Set<number>();
  for (const p of listed) {
    if (!Number.isInteger(p.partNumber) || numbers.has(p.partNumber)) {
      throw new S3Error(
        400,
        'InvalidPartOrder',
        'The list of parts was not in ascending order or repeats a part.',
      );
    }
    numbers.add(p.partNumber);
    const stored = u.parts.get(p.partNumber);
    if (!stored || (strictTags ? stored.etag : stripQuotes(stored.etag)) !== p.etag) {
      throw new S3Error(400, 'InvalidPart', 'One or more of the specified parts could not be found.', {
        PartNumber: String(p.partNumber),
      });
    }
    parts.push(stored);
  }
  return parts;
}

/** A multipart object's ETag: the MD5 of its parts' MD5s, with the count of parts after a dash. */
function multipartEtag(
  call: S3Call,
  listed: { partNumber: number; etag: string }[],
  asListed: number[],
  parts: PartRecord[],
): string {
  // Under a fault, the ETag hashes the part MD5s in the order Complete listed them.
  const byNumber = new Map(listed.map((p, i) => [p.partNumber, parts[i]]));
  const hashed = call.ctx.faults.has('s3-multipart-etag-parts-unsorted')
    ? asListed.map((n) => byNumber.get(n)!)
    : parts;
  const md5s = Buffer.concat(hashed.map((p) => Buffer.from(stripQuotes(p.etag), 'hex')));
  const digest = createHash('md5').update(md5s).digest('hex');
  // Under a fault, the suffix counts up to the highest part number instead of counting the parts.
  const last = parts[parts.length - 1].partNumber;
  const count =
    last !== parts.length && call.ctx.faults.has('s3-multipart-etag-suffix-last-number')
      ? last
      : parts.length;
  const tag = call.ctx.faults.has('s3-multipart-etag-no-suffix') ? digest : `${digest}-${count}`;
  return call.ctx.faults.has('s3-multipart-etags-unquoted') ? tag : `"${tag}"`;
}

/**
 * The composite checksum of an upload created with x-amz-checksum-algorithm, when every part was
 * sent with one; a checksum the Complete request claims must be that one.
 */
function objectChecksum(call: S3Call, u: UploadRecord, parts: PartRecord[]): Record<string, string> {
  const alg = u.checksumAlgorithm;
  if (!alg || parts.some((p) => p.checksums?.[alg] === undefined)) return {};
  const composite = compositeChecksum(
    alg,
    parts.map((p) => p.checksums?.[alg] ?? ''),
  );
  if (composite === undefined) return {};
  const claimed = headerValue(call.req, `x-amz-checksum-${alg}`);
  if (claimed !== undefined && claimed !== composite) {
    throw new S3Error(
      400,
      'BadDigest',
      `The ${alg.toUpperCase()} you specified did not match the calculated checksum.`,
    );
  }
  return call.ctx.faults.has('s3-complete-checksum-missing') ? {} : { [alg]: composite };
}

const hasStoredHeaders = (u: UploadRecord) =>
  u.contentType !== undefined || Object.keys(u.headers).length > 0 || Object.keys(u.metadata).length > 0;

function checkPartSizes(call: S3Call, parts: PartRecord[]): void {
  // Under a fault, the last two parts are left out of the comparison, one too many.
  const offByOne =
    parts.length > 2 &&
    parts[parts.length - 2].blob.size !== parts[0].blob.size &&
    call.ctx.faults.has('s3-multipart-size-check-off-by-one');
  const nonTrailing = parts.slice(0, offByOne ? -2 : -1);
  if (nonTrailing.some((p) => p.blob.size < MIN_PART_SIZE)) {
    throw new S3Error(
      400,
      'EntityTooSmall',
      'Your proposed upload is smaller than the minimum allowed object size.',
    );
  }
  const first = nonTrailing[0]?.blob.size;
  if (nonTrailing.some((p) => p.blob.size !== first) && !call.ctx.faults.has('s3-multipart-unequal-parts')) {
    // Under a fault, only a part smaller than the first is refused (a larger one is let through).
    const smaller = nonTrailing.some((p) => p.blob.size < first);
    if (smaller || !call.ctx.faults.has('s3-multipart-larger-part-accepted'))
      throw new S3Error(400, 'InvalidPart', 'All non-trailing parts must have the same length.');
  }
}

/** AbortMultipartUpload: repeating it is not an error (States and transitions). */
export function abortMultipartUpload(call: S3Call): void {
  const bucket = call.store.bucket(call.bucket);
  const id = call.query.get('uploadId') ?? '';
  const u = bucket.uploads.get(id);
  // Under a fault, the abort is acknowledged but the upload stays in progress.
  if (u && u.key === call.key) {
    if (!call.ctx.faults.has('s3-abort-keeps-upload')) call.store.dropUpload(bucket, u);
  } else if (!bucket.finishedUploads.has(id) || call.ctx.faults.has('s3-abort-repeat-error'))
    throw noSuchUpload(id);
  sendEmpty(call.res, 204);
}

export function listParts(call: S3Call): void {
  const bucket = call.store.bucket(call.bucket);
  const u = upload(call, bucket);
  const maxParts = boundedInt(call.query.get('max-parts'), 1000, 'max-parts');
  const marker = boundedInt(call.query.get('part-number-marker'), 0, 'part-number-marker', MAX_PARTS);
  const hidden = u.parts.size > 0 && call.ctx.faults.has('s3-list-parts-empty');
  const all = [...(hidden ? [] : u.parts.values())]
    .sort((a, b) => a.partNumber - b.partNumber)
    .filter((p) => p.partNumber > marker);
  const page = all.slice(0, maxParts);
  const truncated = all.length > page.length;
  // Under a fault, each part's index in the list (from 0) instead of its number.
  const zeroBased = page.length > 0 && call.ctx.faults.has('s3-list-parts-number-zero-based');
  const owner = { ID: call.ctx.ids.accountId, DisplayName: call.ctx.ids.accountId };
  sendResult(
    call.res,
    'ListPartsResult',
    {
      Bucket: call.bucket,
      Key: call.key,
      UploadId: u.uploadId,
      Initiator: owner,
      Owner: owner,
      StorageClass: 'STANDARD',
      PartNumberMarker: marker,
      ...(truncated ? { NextPartNumberMarker: page[page.length - 1].partNumber } : {}),
      MaxParts: maxParts,
      IsTruncated: truncated,
      Part: page.map((p, i) => ({
        PartNumber: zeroBased ? i : p.partNumber,
        LastModified: p.lastModified.toISOString(),
        ETag: p.etag,
        Size: p.blob.size,
      })),
    },
    {},
    call.ctx,
  );
}

export function boundedInt(raw: string | null, fallback: number, name: string, max = 1000): number {
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 0) throw invalidArgument(`${name} must be a non-negative integer.`);
  return Math.min(n, max);
}
