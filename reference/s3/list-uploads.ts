import type { S3Call } from './call.ts';
import { invalidArgument } from './errors.ts';
import { keyOrder } from './key-order.ts';
import { urlEncodeKey } from './listing.ts';
import { boundedInt } from './multipart.ts';
import { sendResult } from './respond.ts';

/** Under a fault, keys are escaped as JavaScript's escape() does: é is %E9, not its UTF-8 bytes. */
function latin1Escape(ctx: S3Call['ctx']): ((s: string) => string) | undefined {
  if (!ctx.faults.has('s3-list-uploads-encoding-latin1')) return undefined;
  return (s) =>
    [...s]
      .map((c) => {
        const code = c.codePointAt(0) ?? 0;
        if (/[A-Za-z0-9@*_+\-./]/.test(c)) return c;
        return code < 256 ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : urlEncodeKey(c);
      })
      .join('');
}

/** ListMultipartUploads; with `encoding-type=url` the keys are URL-encoded (SPEC behaviour 11). */
export function listMultipartUploads(call: S3Call): void {
  const bucket = call.store.bucket(call.bucket);
  const q = call.query;
  const encodingType = q.get('encoding-type');
  if (encodingType !== null && encodingType !== 'url')
    throw invalidArgument('Invalid Encoding Method specified in Request');
  const encode =
    encodingType === 'url' && !call.ctx.faults.has('s3-list-uploads-encoding-ignored')
      ? (latin1Escape(call.ctx) ?? urlEncodeKey)
      : (s: string) => s;
  // Under a fault, keys are URL-encoded whether encoding-type was given or not.
  const keyOf = (k: string) =>
    encodingType === null &&
    urlEncodeKey(k) !== k &&
    call.ctx.faults.has('s3-list-uploads-keys-always-encoded')
      ? urlEncodeKey(k)
      : encode(k);
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const keyMarker = q.get('key-marker') ?? '';
  const uploadIdMarker = q.get('upload-id-marker') ?? '';
  const max = boundedInt(q.get('max-uploads'), 1000, 'max-uploads');
  const hidden = bucket.uploads.size > 0 && call.ctx.faults.has('s3-list-uploads-empty');
  // Under a fault, uploads are found through their parts, so one with no part yet is not listed.
  const partless = (u: { parts: Map<unknown, unknown> }) =>
    u.parts.size === 0 && call.ctx.faults.has('s3-list-uploads-without-parts-hidden');
  const all = [...(hidden ? [] : bucket.uploads.values())]
    .filter((u) => !partless(u))
    .filter((u) => u.key.startsWith(prefix))
    .sort((a, b) => keyOrder(a.key, b.key) || a.initiated.getTime() - b.initiated.getTime())
    .filter(
      (u) =>
        keyOrder(u.key, keyMarker) > 0 ||
        (u.key === keyMarker && uploadIdMarker !== '' && u.uploadId > uploadIdMarker),
    );
  const uploads: typeof all = [];
  const prefixes: string[] = [];
  let truncated = false;
  for (const u of all) {
    const i = delimiter ? u.key.indexOf(delimiter, prefix.length) : -1;
    const group = i < 0 ? undefined : u.key.slice(0, i + delimiter.length);
    if (group !== undefined && prefixes.includes(group)) continue;
    if (uploads.length + prefixes.length >= max) {
      truncated = true;
      break;
    }
    if (group !== undefined) prefixes.push(group);
    else uploads.push(u);
  }
  const owner = { ID: call.ctx.ids.accountId, DisplayName: call.ctx.ids.accountId };
  const lastUpload = uploads[uploads.length - 1];
  sendResult(
    call.res,
    'ListMultipartUploadsResult',
    {
      Bucket: call.bucket,
      KeyMarker: encode(keyMarker),
      UploadIdMarker: uploadIdMarker,
      ...(truncated && lastUpload
        ? { NextKeyMarker: encode(lastUpload.key), NextUploadIdMarker: lastUpload.uploadId }
        : {}),
      Prefix: encode(prefix),
      ...(delimiter ? { Delimiter: encode(delimiter) } : {}),
      MaxUploads: max,
      ...(encodingType === 'url' ? { EncodingType: 'url' } : {}),
      IsTruncated: truncated,
      Upload: uploads.map((u) => ({
        Key: keyOf(u.key),
        UploadId: u.uploadId,
        Initiator: owner,
        Owner: owner,
        StorageClass: 'STANDARD',
        Initiated: u.initiated.toISOString(),
      })),
      CommonPrefixes: prefixes.map((p) => ({ Prefix: encode(p) })),
    },
    {},
    call.ctx,
  );
}
