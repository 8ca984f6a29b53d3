import { headerValue, type S3Call } from './call.ts';
import { invalidArgument, notImplemented } from './errors.ts';

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
  const sse = headerValue(call.req, 'x-amz-server-side-encryption');
  if (sse === undefined) return undefined;
  if (sse === 'AES256') return 'AES256';
  if (sse.startsWith('aws:kms')) {
    if (call.ctx.faults.has('s3-sse-kms-ignored')) return undefined;
    throw notImplemented(`Server-side encryption ${sse}`);
  }
  throw invalidArgument('The encryption method specified is not supported.');
}
