import { createHash } from 'node:crypto';
import { type ObservedView, type PropertyDef, RecentMap } from 'edgecheck/kit';
import { described, errorCodeOf, operationOf, placeOf } from './support/exchange.ts';
import { REMEMBERED, seenRead, seenWrite } from './support/observed-objects.ts';
import { bare } from './support/uploads.ts';
import { expectThat } from './support/wire.ts';

/*
 * aws-chunked in the Content-Encoding of a PutObject that is not streaming-signed frames nothing:
 * the body as sent is the object, and the object's Content-Encoding is the one sent less aws-chunked.
 * A later GET or HEAD of the version that PutObject answered shows both: a whole GET answers the
 * bytes sent, and either answers the codings sent but aws-chunked. A refusal saying the body was
 * cut short (the body read as chunks), of a body the proxy saw whole, contradicts it too. The
 * PutObject's own ETag is left to s3.object.etag-md5: it tells the stored bytes only through that clause.
 */

/** Refusals that read the body as aws-chunked framing: cut short, or a chunk size that is no number. */
const READ_AS_CHUNKS = new Set(['IncompleteBody', 'InvalidChunkSizeError']);

interface Sent {
  etag: string;
  md5: string;
  /** The codings the object must keep: those sent, less aws-chunked, in order, lower case. */
  codings: string;
}

const codingsOf = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '');

/** A PutObject with aws-chunked in Content-Encoding, not streaming-signed, its body kept whole. */
function chunkedNotStreaming(ex: ObservedView): Buffer | undefined {
  if (operationOf(ex) !== 'PutObject') return undefined;
  const h = ex.requestHeaders;
  if (!codingsOf(h['content-encoding']).includes('aws-chunked')) return undefined;
  if (/^STREAMING-/i.test(h['x-amz-content-sha256'] ?? '') || ex.requestBody === undefined) return undefined;
  const length = h['content-length'];
  return length === undefined || Number(length) === ex.requestBody.length ? ex.requestBody : undefined;
}

/** What a GET or HEAD of the version a PutObject wrote answers against what it sent. */
function judgeRead(ex: ObservedView, sent: Sent): true {
  const where = `${described(ex)} (ETag ${ex.headers.etag}), written with Content-Encoding aws-chunked and no streaming signature`;
  const codings = codingsOf(ex.headers['content-encoding']).join(',');
  expectThat(
    codings === sent.codings,
    `${where}: Content-Encoding ${JSON.stringify(ex.headers['content-encoding'] ?? null)}, expected ${sent.codings ? JSON.stringify(sent.codings) : 'none'}`,
  );
  if (ex.method === 'GET' && ex.body !== undefined) {
    const got = createHash('md5').update(ex.body).digest('hex');
    expectThat(
      got === sent.md5,
      `${where}: ${ex.body.length} bytes of MD5 ${got}, the body sent has MD5 ${sent.md5}`,
    );
  }
  return true;
}

function observeChunkedNotStreaming() {
  // By object (host and path): the version the last such PutObject of it wrote.
  const written = new RecentMap<string, Sent>(REMEMBERED);
  return (ex: ObservedView): boolean | undefined => {
    const body = chunkedNotStreaming(ex);
    const write = seenWrite(ex);
    if (body && write) {
      const codings = codingsOf(ex.requestHeaders['content-encoding']).filter((c) => c !== 'aws-chunked');
      const md5 = createHash('md5').update(body).digest('hex');
      written.set(placeOf(ex), { etag: bare(write.etag), md5, codings: codings.join(',') });
      return undefined;
    }
    if (body && READ_AS_CHUNKS.has(errorCodeOf(ex) ?? ''))
      throw new Error(
        `${described(ex)} ${errorCodeOf(ex)}: a body of ${body.length} bytes, sent whole and not streaming-signed, read as aws-chunked`,
      );
    const op = operationOf(ex);
    if (op === 'PutObject' || op === 'CopyObject' || op === 'DeleteObject') {
      written.delete(placeOf(ex));
      return undefined;
    }
    const sent = seenRead(ex) ? written.get(placeOf(ex)) : undefined;
    const etag = ex.headers.etag;
    if (!sent || etag === undefined || bare(etag.replace(/^W\//, '')) !== sent.etag) return undefined;
    return judgeRead(ex, sent);
  };
}

const chunkedNotStreamingObserved: PropertyDef = {
  id: 's3.prop.aws-chunked-not-streaming-observed',
  title:
    'A PutObject naming aws-chunked without a streaming signature stores its body as sent, its Content-Encoding less aws-chunked',
  clauses: ['s3.put.aws-chunked-not-streaming'],
  observe: {
    selects:
      'GET and HEAD answered 200 of the version a PutObject with aws-chunked in Content-Encoding and no STREAMING- payload wrote (its body kept whole), and such PutObjects refused as cut short',
    observer: observeChunkedNotStreaming,
  },
};

export default [chunkedNotStreamingObserved] satisfies PropertyDef[];
