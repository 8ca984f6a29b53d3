import { createHash } from 'node:crypto';
import type { Agent } from 'undici';
import type { S3Target } from '../model/target.ts';
import { TargetError } from '../util/errors.ts';
import { type SendOptions, sendHttp } from './http.ts';
import type { StepResponse } from './response.ts';
import { buildS3Request } from './s3-raw.ts';

/*
 * A bucket's teardown with the engine's own signed requests: listing, deleting and aborting are no
 * case's subject, so they need none of the SDK's parsers, and a run tears down one bucket a case.
 */

type Doc = Record<string, unknown[]>;

/** The children named `name` of an element of the parsed document (every element is an array). */
function children(el: unknown, name: string): unknown[] {
  return el && typeof el === 'object' ? (((el as Doc)[name] as unknown[] | undefined) ?? []) : [];
}

/** An element's text: a leaf is its string, or `#text` beside attributes. */
function text(el: unknown): string | undefined {
  if (typeof el === 'string') return el;
  if (el && typeof el === 'object' && '#text' in el) return String((el as { '#text': unknown })['#text']);
  return el && typeof el === 'object' ? '' : undefined;
}

const first = (el: unknown, name: string) => text(children(el, name)[0]);

const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');

/** A request of the teardown the target refused, said as the target answered it. */
function failed(what: string, name: string, res: StepResponse): TargetError {
  return new TargetError(`${what} of ${name} answered ${res.describe()}`);
}

/**
 * Empties (objects, then unfinished uploads) and deletes a bucket, then confirms it is gone, each
 * request paced and retried as `opts.traffic` allows: a busy target is no reason to leave a bucket.
 * A bucket the target removed itself is gone, not left: a 404 on the bucket, confirmed by
 * HeadBucket, ends the teardown. `userAgent` names the case whose teardown this is.
 */
export async function destroyBucket(
  agent: Agent,
  target: S3Target,
  name: string,
  opts: SendOptions,
  userAgent?: string,
): Promise<void> {
  const send = async (req: Parameters<typeof buildS3Request>[1]) => {
    const out = await buildS3Request(target, req);
    if (userAgent) out.headers['user-agent'] = userAgent;
    return sendHttp(agent, out, opts);
  };
  const gone = async () => {
    const head = await send({ method: 'HEAD', bucket: name });
    if (head.status === 404) return true;
    if (head.status < 300) return false;
    throw failed('HeadBucket', name, head);
  };
  const missing = async (res: StepResponse) => res.status === 404 && (await gone());
  let token: string | undefined;
  do {
    const query: Record<string, string> = { 'list-type': '2' };
    if (token) query['continuation-token'] = token;
    const listed = await send({ method: 'GET', bucket: name, query });
    if (await missing(listed)) return;
    if (listed.status >= 300) throw failed('ListObjectsV2', name, listed);
    const page = children(listed.xml(), 'ListBucketResult')[0];
    const keys = children(page, 'Contents').map((c) => first(c, 'Key') ?? '');
    if (keys.length) await deleteObjects(send, name, keys);
    token = first(page, 'IsTruncated') === 'true' ? first(page, 'NextContinuationToken') : undefined;
  } while (token);
  await abortUploads(send, name);
  const deleted = await send({ method: 'DELETE', bucket: name });
  if (await missing(deleted)) return;
  if (deleted.status >= 300) throw failed('DeleteBucket', name, deleted);
  // A delete is done only when the bucket is gone.
  if (!(await gone())) throw new TargetError(`bucket ${name} still exists after DeleteBucket`);
}

type Send = (req: Parameters<typeof buildS3Request>[1]) => Promise<StepResponse>;

/** DeleteObjects of a page of keys (at most 1000, as a listing page holds), quiet: only errors come back. */
async function deleteObjects(send: Send, name: string, keys: string[]): Promise<void> {
  const body = `<Delete><Quiet>true</Quiet>${keys.map((k) => `<Object><Key>${escapeXml(k)}</Key></Object>`).join('')}</Delete>`;
  const md5 = createHash('md5').update(body).digest('base64');
  const res = await send({
    method: 'POST',
    bucket: name,
    query: { delete: '' },
    headers: { 'content-md5': md5, 'content-type': 'application/xml' },
    body,
  });
  if (res.status >= 300) throw failed('DeleteObjects', name, res);
  const errors = children(children(res.xml(), 'DeleteResult')[0], 'Error');
  if (errors.length) {
    const e = errors[0];
    throw new TargetError(
      `could not delete ${errors.length} objects of ${name}: ${first(e, 'Key')}: ${first(e, 'Code')}`,
    );
  }
}

/**
 * Aborts the bucket's unfinished uploads. A target without ListMultipartUploads (501) cannot say
 * what is open: DeleteBucket, and the HeadBucket after it, then tell whether anything kept the bucket.
 */
async function abortUploads(send: Send, name: string): Promise<void> {
  let keyMarker: string | undefined;
  let uploadMarker: string | undefined;
  do {
    const query: Record<string, string> = { uploads: '' };
    if (keyMarker) query['key-marker'] = keyMarker;
    if (uploadMarker) query['upload-id-marker'] = uploadMarker;
    const listed = await send({ method: 'GET', bucket: name, query });
    if (listed.status === 501) return;
    if (listed.status >= 300) throw failed('ListMultipartUploads', name, listed);
    const page = children(listed.xml(), 'ListMultipartUploadsResult')[0];
    for (const u of children(page, 'Upload')) {
      const key = first(u, 'Key') ?? '';
      const aborted = await send({
        method: 'DELETE',
        bucket: name,
        key,
        query: { uploadId: first(u, 'UploadId') ?? '' },
      });
      // Listed just now, so open: a 404 here is an upload the target would not abort.
      if (aborted.status >= 300) throw failed('AbortMultipartUpload', name, aborted);
    }
    const more = first(page, 'IsTruncated') === 'true';
    keyMarker = more ? first(page, 'NextKeyMarker') : undefined;
    uploadMarker = more ? first(page, 'NextUploadIdMarker') : undefined;
  } while (keyMarker);
}
