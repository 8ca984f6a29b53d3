import { headerValue, type S3Call } from './call.ts';
import { invalidArgument, notImplemented } from './errors.ts';
import type { BucketRecord } from './store.ts';

/** Headers that ask for SSE-KMS whether or not x-amz-server-side-encryption says aws:kms. */
const KMS_HEADERS = ['x-amz-server-side-encryption-aws-kms-key-id', 'x-amz-server-side-encryption-context'];

/**
 * The server-side encryption a write asks for. SPEC behaviour 5: the only algorithm is AES256, so
 * SSE-KMS and customer-provided keys (SSE-C) are features the service does not offer, refused as
 * not implemented (behaviour 6) rather than stored in plain text as if they had been honoured.
 */
export function requestedEncryption(call: S3Call): 'AES256' | undefined {
  const names = Object.keys(call.req.headers);
  if (
    names.some((h) => h.startsWith('x-amz-server-side-encryption-customer-')) &&
    !call.ctx.faults.has('s3-sse-c-ignored')
  ) {
    throw notImplemented('Server-side encryption with customer-provided keys');
  }
  const kms = names.filter((h) => KMS_HEADERS.includes(h));
  const sse = headerValue(call.req, 'x-amz-server-side-encryption');
  if (sse === undefined) {
    // A KMS key without x-amz-server-side-encryption: Amazon S3 refuses it (400), as SSE-KMS needs
    // aws:kms; here SSE-KMS itself is not offered (behaviour 6). Under a fault the key is ignored.
    if (kms.length > 0 && !call.ctx.faults.has('s3-sse-kms-key-alone-accepted'))
      throw notImplemented(`Server-side encryption with AWS KMS keys (${kms.join(', ')})`);
    return undefined;
  }
  if (sse === 'AES256') {
    if (kms.length > 0)
      throw invalidArgument(`${kms[0]} is not allowed with x-amz-server-side-encryption AES256.`);
    return 'AES256';
  }
  if (sse.startsWith('aws:kms')) {
    if (call.ctx.faults.has('s3-sse-kms-ignored')) return undefined;
    throw notImplemented(`Server-side encryption ${sse}`);
  }
  throw invalidArgument('The encryption method specified is not supported.');
}

/**
 * The encryption a new object (or upload) gets: the one its write asks for, else its bucket's default,
 * AES256, which every bucket has (SPEC behaviour 5: GetBucketEncryption reports it) as every Amazon S3
 * bucket has had SSE-S3 since 2023.
 */
export function writeEncryption(call: S3Call, bucket: BucketRecord): 'AES256' | undefined {
  const asked = requestedEncryption(call);
  if (asked) return asked;
  if (bucket.encryption !== 'AES256' || bucket.encryptionDefaultOff) return undefined;
  // Under a fault, the default is kept for GetBucketEncryption but never applied to a write.
  if (call.ctx.faults.has('s3-sse-bucket-default-not-applied')) return undefined;
  return 'AES256';
}

/**
 * GetObject and HeadObject take no x-amz-server-side-encryption: Amazon S3 refuses it with 400
 * InvalidArgument (an object's SSE-S3 or SSE-KMS encryption needs nothing from the reader).
 */
export function refuseEncryptionOnRead(call: S3Call): void {
  if (headerValue(call.req, 'x-amz-server-side-encryption') === undefined) return;
  const f = call.ctx.faults;
  if (f.has('s3-sse-read-header-ignored')) return;
  if (call.method === 'HEAD' && f.has('s3-sse-head-header-ignored')) return;
  throw invalidArgument('x-amz-server-side-encryption header is not supported for this operation.');
}

/** The x-amz-server-side-encryption header of an answer about an object or upload encrypted with `sse`. */
export function encryptionHeader(
  call: S3Call,
  sse: string | undefined,
  omitFault?: string,
): Record<string, string> {
  if (!sse || (omitFault && call.ctx.faults.has(omitFault))) return {};
  return { 'x-amz-server-side-encryption': sse };
}
