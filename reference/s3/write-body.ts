import type { Blob } from './blobs.ts';
import { type BodyDigest, incomingBody } from './body.ts';
import type { S3Call } from './call.ts';

/** Streams the request body into the blob store; nothing is kept when the body or a digest check fails. */
export async function storeBody(call: S3Call): Promise<{ blob: Blob; digest: BodyDigest }> {
  const body = incomingBody(call.req, call.payloadHash, {
    verifyChecksums: (alg) =>
      !call.ctx.faults.has('s3-put-checksum-unverified') &&
      // Under a fault, PutObject (not UploadPart) checks a SHA-1 only after storing the object.
      !(
        alg === 'sha1' &&
        !call.query.has('uploadId') &&
        call.ctx.faults.has('s3-put-sha1-mismatch-stored')
      ) &&
      // Under faults, a CRC32 is never checked, or PutObject checks it only after storing the object.
      !(alg === 'crc32' && call.ctx.faults.has('s3-checksum-crc32-unverified')) &&
      !(
        alg === 'crc32' &&
        !call.query.has('uploadId') &&
        call.ctx.faults.has('s3-checksum-crc32-checked-after-store')
      ),
    // Under a fault, a CRC32 that does not match is refused as InvalidRequest.
    checksumCode: (alg) =>
      alg === 'crc32' && call.ctx.faults.has('s3-checksum-crc32-invalid-request')
        ? 'InvalidRequest'
        : 'BadDigest',
    // Under faults, Content-MD5 is not checked (by UploadPart alone, under one), or PutObject checks
    // it only after storing the object; under another, a mismatch is refused as InvalidDigest.
    verifyContentMd5: () =>
      !call.ctx.faults.has('s3-content-md5-ignored') &&
      !(call.query.has('uploadId') && call.ctx.faults.has('s3-part-content-md5-ignored')) &&
      !(!call.query.has('uploadId') && call.ctx.faults.has('s3-content-md5-checked-after-store')),
    contentMd5Code: () =>
      call.ctx.faults.has('s3-content-md5-invalid-digest') ? 'InvalidDigest' : 'BadDigest',
    chunkSignature: call.chunkSignature,
    // Under a fault, PutObject (not UploadPart) compares a signed payload hash with the body's SHA-256 in base64.
    payloadHashAsBase64: () =>
      !call.query.has('uploadId') && call.ctx.faults.has('s3-payload-hash-compared-as-base64'),
    awsChunkedByContentEncoding: () => call.ctx.faults.has('s3-aws-chunked-by-content-encoding'),
  });
  const blob = await call.store.blobs.write(body.stream);
  try {
    return { blob, digest: body.finish() };
  } catch (err) {
    call.store.blobs.release(blob);
    throw err;
  }
}

const STORED_HEADERS = [
  'content-disposition',
  'content-language',
  'cache-control',
  'expires',
  'content-encoding',
];

const isAwsChunked = (coding: string) => coding.toLowerCase() === 'aws-chunked';

/**
 * The Content-Encoding an object keeps. aws-chunked is the transfer framing of an upload, not a
 * property of the object, and Amazon S3 leaves it out wherever it stands (`gzip, aws-chunked` and
 * `aws-chunked, gzip` keep `gzip`; `aws-chunked` alone keeps none), whether or not the body was
 * streamed; the rest is kept as sent, spacing included (`deflate, gzip` stays `deflate, gzip`).
 */
function contentEncoding(call: S3Call, sent: string): string | undefined {
  const f = call.ctx.faults;
  const tokens = sent.split(',').map((s) => s.trim());
  const chunked = tokens.filter(isAwsChunked).length;
  if (chunked > 0) {
    // Faults, each asked only where it changes what is kept: aws-chunked is taken out only of a
    // streaming-signed upload's header, or only where it is the last coding (where SDKs put it).
    if (!call.payloadHash.startsWith('STREAMING-') && f.has('s3-aws-chunked-kept-when-not-streaming'))
      return sent;
    const notLast = tokens.slice(0, -1).some(isAwsChunked);
    if (notLast && f.has('s3-aws-chunked-only-trailing-stripped')) {
      return isAwsChunked(tokens[tokens.length - 1]) ? sent.replace(/\s*,?\s*aws-chunked\s*$/i, '') : sent;
    }
  }
  const kept = tokens.filter((s) => s && !isAwsChunked(s));
  if (kept.length === 0) return undefined;
  if (kept.length < tokens.length || (kept.length > 1 && f.has('s3-content-encoding-joined')))
    return kept.join(',');
  return sent;
}

/** The representation headers and user metadata an object keeps. */
export function storedHeaders(call: S3Call): {
  headers: Record<string, string>;
  metadata: Record<string, string>;
} {
  const headers: Record<string, string> = {};
  const metadata: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    let v = call.req.headers[name];
    if (Array.isArray(v)) v = v.join(',');
    if (v === undefined) continue;
    if (name === 'content-language' && call.ctx.faults.has('s3-content-language-dropped')) continue;
    if (name === 'content-encoding') {
      const kept = contentEncoding(call, v);
      if (kept === undefined) continue;
      v = kept;
    }
    headers[name] = v;
  }
  for (const [name, v] of Object.entries(call.req.headers)) {
    if (name.startsWith('x-amz-meta-') && v !== undefined) {
      metadata[name.slice('x-amz-meta-'.length)] = Array.isArray(v) ? v.join(',') : v;
    }
  }
  if (Object.keys(metadata).length > 0 && call.ctx.faults.has('s3-metadata-dropped'))
    return { headers, metadata: {} };
  return { headers, metadata };
}
