import { type ObservedView, type Observer, type PropertyDef, RecentMap } from 'edgecheck/kit';
import { rawBucket } from './support/bucket.ts';
import {
  CHECKSUM_ALGORITHMS,
  CHECKSUM_REFUSALS,
  checksumOf,
  md5Of,
  wellFormedMd5,
} from './support/checksums.ts';
import { accepted, described, errorCodeOf, operationOf, payloadOf, placeOf } from './support/exchange.ts';
import { replayedProperty } from './support/replay.ts';
import { expectThat } from './support/wire.ts';

// Checksums a request sends with its body, judged against the body the proxy kept whole: the run
// sends the same requests and its observer judges them as it judges traffic.

const BODY = 'checksummed body\n';

/** A PutObject whose x-amz-checksum-<algorithm> is that of its body: any answer but a checksum refusal. */
function correctChecksumAccepted(algorithm: 'sha1' | 'sha256'): Observer {
  return (ex) => {
    if (operationOf(ex) !== 'PutObject') return undefined;
    const sent = ex.requestHeaders[`x-amz-checksum-${algorithm}`];
    const body = payloadOf(ex);
    if (sent === undefined || body === undefined || checksumOf(algorithm, body) !== sent) return undefined;
    if (accepted(ex)) return true;
    const code = errorCodeOf(ex);
    expectThat(
      code === undefined || !CHECKSUM_REFUSALS.includes(code),
      `${described(ex)} ${code}: a PutObject whose x-amz-checksum-${algorithm} is its body's was refused`,
    );
    return undefined;
  };
}

/**
 * A PutObject sending x-amz-checksum-<algorithm> in a header, the algorithm named in
 * x-amz-sdk-checksum-algorithm as the SDKs name it, answered 200, answers the same header and value.
 * A checksum header sent without it is left unjudged: some servers (moto) answer the checksum only
 * of an algorithm so named, and no probe decides what a target owes the bare header.
 */
function checksumAnswered(ex: ObservedView): boolean | undefined {
  if (operationOf(ex) !== 'PutObject' || ex.status !== 200) return undefined;
  const a = (ex.requestHeaders['x-amz-sdk-checksum-algorithm'] ?? '').toLowerCase();
  const name = `x-amz-checksum-${a}`;
  if (!(CHECKSUM_ALGORITHMS as readonly string[]).includes(a) || ex.requestHeaders[name] === undefined)
    return undefined;
  expectThat(
    ex.headers[name] === ex.requestHeaders[name],
    `${described(ex)}: sent ${name} ${ex.requestHeaders[name]}, answered ${ex.headers[name] ?? 'none'}`,
  );
  return true;
}

/**
 * GET and HEAD with x-amz-checksum-mode ENABLED, answered 200: a single-part checksum answered is that
 * of the whole body kept; and an object whose PutObject was seen answered with a checksum (the same
 * ETag: the same object) answers that checksum.
 */
function checksumModeObserver(): Observer {
  const stored = new RecentMap<string, { etag: string; checksums: Record<string, string> }>(10_000);
  return (ex) => {
    const op = operationOf(ex);
    if (op === 'PutObject' && ex.status === 200 && ex.headers.etag) {
      const checksums: Record<string, string> = {};
      for (const a of CHECKSUM_ALGORITHMS) {
        const v = ex.headers[`x-amz-checksum-${a}`];
        if (v !== undefined) checksums[a] = v;
      }
      if (Object.keys(checksums).length) stored.set(placeOf(ex), { etag: ex.headers.etag, checksums });
      else stored.delete(placeOf(ex));
      return undefined;
    }
    if ((op !== 'GetObject' && op !== 'HeadObject') || ex.status !== 200) return undefined;
    if ((ex.requestHeaders['x-amz-checksum-mode'] ?? '').toUpperCase() !== 'ENABLED') return undefined;
    // A part of the object (a range, a part number) has no checksum of the object's to answer.
    if (ex.requestHeaders.range !== undefined || ex.query.has('partNumber')) return undefined;
    let judged = false;
    const seen = stored.get(placeOf(ex));
    if (seen && seen.etag === ex.headers.etag) {
      for (const [a, v] of Object.entries(seen.checksums)) {
        expectThat(
          ex.headers[`x-amz-checksum-${a}`] === v,
          `${described(ex)}: x-amz-checksum-${a} ${ex.headers[`x-amz-checksum-${a}`] ?? 'absent'}, the object was stored with ${v}`,
        );
      }
      judged = true;
    }
    const body = op === 'GetObject' ? ex.body : undefined;
    for (const a of CHECKSUM_ALGORITHMS) {
      const answered = ex.headers[`x-amz-checksum-${a}`];
      const want = body && answered && !answered.includes('-') ? checksumOf(a, body) : undefined;
      if (want === undefined) continue;
      expectThat(
        answered === want,
        `${described(ex)}: x-amz-checksum-${a} ${answered}, the body's is ${want}`,
      );
      judged = true;
    }
    return judged || undefined;
  };
}

/** Refusal: a PutObject whose SHA-256 or SHA-1 checksum is not its body's, accepted or failing with a 5xx. */
function checksumMismatchRefused(ex: ObservedView): boolean | undefined {
  if (operationOf(ex) !== 'PutObject' || (ex.status >= 300 && ex.status < 500)) return undefined;
  const body = payloadOf(ex);
  if (body === undefined) return undefined;
  for (const a of ['sha256', 'sha1']) {
    const sent = ex.requestHeaders[`x-amz-checksum-${a}`];
    expectThat(
      sent === undefined || sent === checksumOf(a, body),
      `${described(ex)}: x-amz-checksum-${a} ${sent} is not the body's (${checksumOf(a, body)}), expected 400`,
    );
  }
  return undefined;
}

/** Refusal: a PutObject or UploadPart whose Content-MD5 is not its body's, answered otherwise than 400 BadDigest. */
function contentMd5Refused(ex: ObservedView): boolean | undefined {
  const op = operationOf(ex);
  if (op !== 'PutObject' && op !== 'UploadPart') return undefined;
  const sent = ex.requestHeaders['content-md5'];
  const body = payloadOf(ex);
  if (sent === undefined || !wellFormedMd5(sent) || body === undefined || md5Of(body) === sent)
    return undefined;
  if (ex.status >= 300 && ex.status < 500 && ex.status !== 400) return undefined;
  const code = errorCodeOf(ex);
  // A 400 whose document was not kept says nothing of its code.
  if (ex.status === 400 && (code === undefined || code === 'BadDigest')) return undefined;
  expectThat(
    false,
    `${described(ex)}${code ? ` ${code}` : ''}: Content-MD5 ${sent} is not the body's (${md5Of(body)}), expected 400 BadDigest`,
  );
  return undefined;
}

const properties: PropertyDef[] = [
  ...(['sha256', 'sha1'] as const).map((a) =>
    replayedProperty({
      id: `s3.prop.put-checksum-${a}`,
      title: `A PutObject whose x-amz-checksum-${a} is that of its body is not refused for it`,
      clause: `s3.put.checksum-${a}`,
      selects: `PutObject with x-amz-checksum-${a} of its body (kept whole), not answered a checksum refusal`,
      observer: () => correctChecksumAccepted(a),
      async scenario(ctx, send) {
        const bucket = await rawBucket(ctx, 'ck');
        const headers = { [`x-amz-checksum-${a}`]: checksumOf(a, Buffer.from(BODY)) as string };
        await send({ method: 'PUT', bucket, key: `correct-${a}.txt`, headers, body: BODY });
      },
    }),
  ),
  replayedProperty({
    id: 's3.prop.checksum-answered',
    title: 'PutObject answers each x-amz-checksum-<algorithm> header it was sent, with the value sent',
    clause: 's3.checksum.put-algorithms',
    selects:
      'PutObject sending x-amz-checksum-<algorithm> of the algorithm x-amz-sdk-checksum-algorithm names, answered 200',
    observer: () => checksumAnswered,
    judges: 3,
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'ck');
      for (const a of ['crc32', 'sha1', 'sha256']) {
        const headers = {
          'x-amz-sdk-checksum-algorithm': a.toUpperCase(),
          [`x-amz-checksum-${a}`]: checksumOf(a, Buffer.from(BODY)) as string,
        };
        await send({ method: 'PUT', bucket, key: `answered-${a}.txt`, headers, body: BODY });
      }
    },
  }),
  replayedProperty({
    id: 's3.prop.checksum-mode',
    title:
      'GET and HEAD with x-amz-checksum-mode ENABLED answer the checksum the object was stored with, that of its body',
    clause: 's3.checksum.mode-enabled',
    selects:
      'GET and HEAD with x-amz-checksum-mode ENABLED answered 200, against the body and the PutObject of the same ETag seen before',
    observer: checksumModeObserver,
    judges: 2,
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'ck');
      const key = 'mode.txt';
      const headers = { 'x-amz-checksum-sha256': checksumOf('sha256', Buffer.from(BODY)) as string };
      const put = await send({ method: 'PUT', bucket, key, headers, body: BODY });
      if (put.answer.status !== 200)
        ctx.blocked(`PutObject with x-amz-checksum-sha256 answered ${put.answer.status}`);
      for (const method of ['GET', 'HEAD'])
        await send({ method, bucket, key, headers: { 'x-amz-checksum-mode': 'ENABLED' } });
    },
  }),
  replayedProperty({
    id: 's3.prop.checksum-mismatch',
    title: 'A PutObject whose x-amz-checksum-sha256 or -sha1 is not that of its body is not accepted',
    clause: 's3.put.checksum-mismatch',
    selects:
      'PutObject whose x-amz-checksum-sha256 or -sha1 is not that of its body (kept whole), accepted or failing with a 5xx',
    observer: () => checksumMismatchRefused,
    judges: 0,
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'ck');
      for (const a of ['sha256', 'sha1']) {
        const right = checksumOf(a, Buffer.from(BODY)) as string;
        const twin = await send({
          method: 'PUT',
          bucket,
          key: `twin-${a}.txt`,
          headers: { [`x-amz-checksum-${a}`]: right },
          body: BODY,
        });
        if (twin.answer.status !== 200)
          ctx.blocked(`the twin with the body's own ${a} answered ${twin.answer.status}`);
        const wrong = checksumOf(a, Buffer.from(`${BODY}!`)) as string;
        const res = await send({
          method: 'PUT',
          bucket,
          key: `wrong-${a}.txt`,
          headers: { [`x-amz-checksum-${a}`]: wrong },
          body: BODY,
        });
        expectThat(
          res.answer.status === 400,
          `PutObject with a wrong x-amz-checksum-${a} answered ${res.answer.status}`,
        );
      }
    },
  }),
  replayedProperty({
    id: 's3.prop.content-md5',
    title:
      'A PutObject or UploadPart whose Content-MD5 is not that of its body is refused with 400 BadDigest',
    clause: 's3.put.content-md5',
    selects:
      'PutObject and UploadPart whose Content-MD5 is not that of its body (kept whole), answered otherwise than 400 BadDigest',
    observer: () => contentMd5Refused,
    judges: 0,
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'md5');
      const twin = await send({
        method: 'PUT',
        bucket,
        key: 'twin.txt',
        headers: { 'content-md5': md5Of(Buffer.from(BODY)) },
        body: BODY,
      });
      if (twin.answer.status !== 200)
        ctx.blocked(`the twin with the body's own Content-MD5 answered ${twin.answer.status}`);
      const res = await send({
        method: 'PUT',
        bucket,
        key: 'wrong.txt',
        headers: { 'content-md5': md5Of(Buffer.from(`${BODY}!`)) },
        body: BODY,
      });
      expectThat(
        res.answer.status === 400,
        `PutObject with a wrong Content-MD5 answered ${res.answer.status}`,
      );
    },
  }),
];

export default properties;
