import type { ObservedView, Observer, PropertyContext, PropertyDef } from 'edgecheck/kit';
import { rawBucket } from './support/bucket.ts';
import { described, errorCodeOf, operationOf } from './support/exchange.ts';
import { completeXml } from './support/multipart.ts';
import { type Replayed, replayedProperty, type Sent } from './support/replay.ts';
import { bare, completedEtag, partsAnswered, UploadsSeen } from './support/uploads.ts';
import { expectThat } from './support/wire.ts';
import { xmlResult } from './support/xml.ts';

// What a multipart upload's later requests must answer, given what the traffic showed of it before:
// only the uploader knows an upload id, so what it saw is all that happened to the upload. The run
// sends the same requests and its observer judges them as it judges traffic.

/** An observer judging each exchange against the uploads seen before it, then remembering it. */
function againstUploads(
  judge: (ex: ObservedView, seen: UploadsSeen) => boolean | undefined,
  parts = false,
): Observer {
  const seen = new UploadsSeen();
  return (ex) => {
    try {
      return judge(ex, seen);
    } finally {
      seen.observe(ex, parts);
    }
  };
}

/** ListParts answered 200 lists each part seen uploaded within its page, with the size sent and the ETag answered. */
function listsParts(ex: ObservedView, seen: UploadsSeen): boolean | undefined {
  if (operationOf(ex) !== 'ListParts' || ex.status !== 200) return undefined;
  const u = seen.get(ex);
  if (!u || u.overflow || !u.parts.size) return undefined;
  const page = partsAnswered(ex);
  if (!page) return undefined;
  let judged = false;
  for (const [n, part] of u.parts) {
    if (n <= page.after || (page.until !== undefined && n > page.until)) continue;
    const listed = page.parts.get(n);
    expectThat(listed !== undefined, `${described(ex)}: part ${n}, uploaded, is not listed`);
    if (part.size !== undefined)
      expectThat(
        listed?.size === part.size,
        `${described(ex)}: part ${n} listed with Size ${listed?.size}, ${part.size} bytes were uploaded`,
      );
    if (part.etag !== undefined)
      expectThat(
        bare(listed?.etag ?? '') === bare(part.etag),
        `${described(ex)}: part ${n} listed with ETag ${listed?.etag}, its UploadPart answered ${part.etag}`,
      );
    judged = true;
  }
  return judged || undefined;
}

/** An abort of an upload already aborted answers no error. */
function abortRepeatable(ex: ObservedView, seen: UploadsSeen): boolean | undefined {
  if (operationOf(ex) !== 'AbortMultipartUpload' || !seen.get(ex)?.aborted) return undefined;
  expectThat(
    ex.status < 300,
    `${described(ex)} ${errorCodeOf(ex) ?? ''}: the upload was aborted before, a repeated abort answers no error`,
  );
  return true;
}

/** UploadPart, ListParts or Complete of an upload aborted before answers 404 NoSuchUpload. */
function noSuchUpload(ex: ObservedView, seen: UploadsSeen): boolean | undefined {
  const op = operationOf(ex);
  if (op !== 'UploadPart' && op !== 'ListParts' && op !== 'CompleteMultipartUpload') return undefined;
  if (!seen.get(ex)?.aborted) return undefined;
  const code = errorCodeOf(ex);
  // A refusal whose document was not kept, or made before the upload is looked up, says nothing.
  if (ex.status >= 400 && ex.status < 500 && ex.status !== 404 && code === undefined) return undefined;
  if (code === 'AccessDenied' || code === 'SignatureDoesNotMatch' || code === 'InvalidAccessKeyId')
    return undefined;
  expectThat(
    ex.status === 404 && code === 'NoSuchUpload',
    `${described(ex)}${code ? ` ${code}` : ''}: the upload was aborted before, expected 404 NoSuchUpload`,
  );
  return true;
}

/** A Complete of an upload completed before answers 200 with the same ETag. */
function completeRepeatable(ex: ObservedView, seen: UploadsSeen): boolean | undefined {
  if (operationOf(ex) !== 'CompleteMultipartUpload') return undefined;
  const before = seen.get(ex)?.completed;
  if (before === undefined) return undefined;
  const etag = ex.status === 200 ? completedEtag(ex) : undefined;
  expectThat(
    etag !== undefined && bare(etag) === bare(before),
    `${described(ex)} ${errorCodeOf(ex) ?? ''}: completed before with ETag ${before}, now answered ${etag ?? 'no ETag'}`,
  );
  return true;
}

/** An upload whose Complete failed its condition (412) is gone: later UploadPart, ListParts or Complete are not carried out. */
function conditionAborts(ex: ObservedView, seen: UploadsSeen): boolean | undefined {
  const op = operationOf(ex);
  if (op !== 'UploadPart' && op !== 'ListParts' && op !== 'CompleteMultipartUpload') return undefined;
  if (!seen.get(ex)?.conditionFailed || seen.get(ex)?.aborted) return undefined;
  expectThat(
    ex.status >= 300,
    `${described(ex)}: the upload's Complete failed its condition (412) before; it was carried out`,
  );
  return ex.status === 404 && errorCodeOf(ex) === 'NoSuchUpload' ? true : undefined;
}

/** UploadPart and Complete of an upload created with AES256 answer x-amz-server-side-encryption AES256. */
function sseMultipart(ex: ObservedView, seen: UploadsSeen): boolean | undefined {
  const op = operationOf(ex);
  if ((op !== 'UploadPart' && op !== 'CompleteMultipartUpload') || ex.status !== 200) return undefined;
  if (seen.get(ex)?.sse !== 'AES256') return undefined;
  expectThat(
    ex.headers['x-amz-server-side-encryption'] === 'AES256',
    `${described(ex)}: upload created with AES256, answered x-amz-server-side-encryption ${ex.headers['x-amz-server-side-encryption'] ?? 'absent'}`,
  );
  return true;
}

type Send = (req: Sent) => Promise<Replayed>;

/** An upload of one small part through `send`: its id and the part's ETag. */
async function oneFilePart(
  ctx: PropertyContext,
  send: Send,
  bucket: string,
  key: string,
  headers: Record<string, string> = {},
): Promise<{ uploadId: string; etag: string }> {
  const created = await send({ method: 'POST', bucket, key, query: { uploads: '' }, headers });
  const uploadId = xmlResult(created.answer.text(), 'InitiateMultipartUploadResult')?.UploadId;
  if (created.answer.status !== 200 || typeof uploadId !== 'string')
    ctx.blocked(`CreateMultipartUpload answered ${created.answer.status}`);
  ctx.defer(
    () => ctx.http({ method: 'DELETE', bucket, key, query: { uploadId } }),
    `upload ${uploadId} of ${key}`,
  );
  const part = await send({
    method: 'PUT',
    bucket,
    key,
    query: { partNumber: '1', uploadId },
    body: `part of ${key}`,
  });
  if (part.answer.status !== 200 || !part.answer.headers.etag)
    ctx.blocked(`UploadPart answered ${part.answer.status}`);
  return { uploadId, etag: part.answer.headers.etag };
}

const completing = (
  bucket: string,
  key: string,
  uploadId: string,
  etag: string,
  headers?: Record<string, string>,
): Sent => ({
  method: 'POST',
  bucket,
  key,
  query: { uploadId },
  headers,
  body: completeXml([{ number: 1, etag }]),
});

const properties: PropertyDef[] = [
  replayedProperty({
    id: 's3.prop.list-parts-seen',
    title: 'ListParts lists each part uploaded, with the size sent and the ETag UploadPart answered',
    clause: 's3.mpu.list-parts',
    selects: 'ListParts answered 200, against the parts seen uploaded to the upload (up to 100 each)',
    observer: () => againstUploads(listsParts, true),
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'up');
      const { uploadId } = await oneFilePart(ctx, send, bucket, 'listed.bin');
      await send({
        method: 'PUT',
        bucket,
        key: 'listed.bin',
        query: { partNumber: '3', uploadId },
        body: 'third',
      });
      await send({ method: 'GET', bucket, key: 'listed.bin', query: { uploadId } });
    },
  }),
  replayedProperty({
    id: 's3.prop.abort-repeatable',
    title: 'AbortMultipartUpload of an upload already aborted answers no error',
    clause: 's3.mpu.abort-repeatable',
    selects: 'AbortMultipartUpload of an upload seen aborted before',
    observer: () => againstUploads(abortRepeatable),
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'up');
      const { uploadId } = await oneFilePart(ctx, send, bucket, 'aborted.bin');
      const first = await send({ method: 'DELETE', bucket, key: 'aborted.bin', query: { uploadId } });
      if (first.answer.status >= 300) ctx.blocked(`the first abort answered ${first.answer.status}`);
      await send({ method: 'DELETE', bucket, key: 'aborted.bin', query: { uploadId } });
    },
  }),
  replayedProperty({
    id: 's3.prop.no-such-upload',
    title: 'UploadPart, ListParts and Complete of an aborted upload answer 404 NoSuchUpload',
    clause: 's3.error.no-such-upload',
    selects: 'UploadPart, ListParts and CompleteMultipartUpload of an upload seen aborted before',
    observer: () => againstUploads(noSuchUpload),
    judges: 3,
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'up');
      const key = 'gone.bin';
      const { uploadId, etag } = await oneFilePart(ctx, send, bucket, key);
      const abort = await send({ method: 'DELETE', bucket, key, query: { uploadId } });
      if (abort.answer.status >= 300) ctx.blocked(`the abort answered ${abort.answer.status}`);
      await send({ method: 'PUT', bucket, key, query: { partNumber: '2', uploadId }, body: 'late' });
      await send({ method: 'GET', bucket, key, query: { uploadId } });
      await send(completing(bucket, key, uploadId, etag));
    },
  }),
  replayedProperty({
    id: 's3.prop.complete-repeatable',
    title: 'A repeated CompleteMultipartUpload answers 200 with the same ETag',
    clause: 's3.mpu.complete-repeatable',
    selects: 'CompleteMultipartUpload of an upload seen completed (200) before',
    observer: () => againstUploads(completeRepeatable),
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'up');
      const { uploadId, etag } = await oneFilePart(ctx, send, bucket, 'twice.bin');
      const first = await send(completing(bucket, 'twice.bin', uploadId, etag));
      if (first.answer.status !== 200) ctx.blocked(`the first Complete answered ${first.answer.status}`);
      await send(completing(bucket, 'twice.bin', uploadId, etag));
    },
  }),
  replayedProperty({
    id: 's3.prop.condition-aborts-upload',
    title: 'After a Complete that failed its condition, the upload answers NoSuchUpload',
    clause: 's3.mpu.conditional-complete-aborts',
    selects:
      'UploadPart, ListParts and CompleteMultipartUpload of an upload whose Complete was seen answered 412',
    observer: () => againstUploads(conditionAborts),
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'up');
      const key = 'exists.bin';
      const put = await send({ method: 'PUT', bucket, key, body: 'there already' });
      if (put.answer.status !== 200) ctx.blocked(`PutObject answered ${put.answer.status}`);
      const { uploadId, etag } = await oneFilePart(ctx, send, bucket, key);
      const failed = await send(completing(bucket, key, uploadId, etag, { 'if-none-match': '*' }));
      if (failed.answer.status !== 412)
        ctx.blocked(`Complete with If-None-Match * of an existing key answered ${failed.answer.status}`);
      await send({ method: 'GET', bucket, key, query: { uploadId } });
    },
  }),
  replayedProperty({
    id: 's3.prop.sse-multipart-answered',
    title:
      'UploadPart and Complete of an upload created with AES256 answer x-amz-server-side-encryption AES256',
    clause: 's3.sse.multipart',
    selects: 'UploadPart and CompleteMultipartUpload answered 200, of an upload seen created with AES256',
    observer: () => againstUploads(sseMultipart),
    judges: 2,
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'up');
      const aes = { 'x-amz-server-side-encryption': 'AES256' };
      const { uploadId, etag } = await oneFilePart(ctx, send, bucket, 'sealed.bin', aes);
      await send(completing(bucket, 'sealed.bin', uploadId, etag));
    },
  }),
];

export default properties;
