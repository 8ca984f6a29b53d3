import { type ObservedView, type PropertyDef, RecentMap } from 'edgecheck/kit';
import { described, operationOf, placeOf } from './support/exchange.ts';
import { REMEMBERED, seenRead, userMetadata } from './support/observed-objects.ts';
import { CONTENT_HEADERS } from './support/round-trip-scripts.ts';
import { bare, completedEtag, createdUploadId, uploadOf } from './support/uploads.ts';
import { expectThat } from './support/wire.ts';

/*
 * The content headers and user metadata a CreateMultipartUpload sent are those of the object its
 * Complete made: the upload id links the Create to the Complete, whose answer gives the object's
 * ETag, and every later GET and HEAD of the object answering that ETag must carry them. A write to
 * the object since (a copy may keep the ETag and replace the metadata) ends what is known of it.
 * Headers the Create did not send are not judged (a server may infer a Content-Type).
 */

/** How many open uploads are remembered: a proxy may see millions, its memory must not grow. */
const UPLOADS = 2_000;

/** What a Create sent: its user metadata, and its content headers as each is compared. */
interface Given {
  meta: Record<string, string>;
  headers: Record<string, string>;
}

const show = (v: unknown) => JSON.stringify(v);

/**
 * A content header's value as compared: the list separators' spacing aside, and the case of the
 * values HTTP reads without case; Expires as the time it names. Undefined: not compared (an
 * Expires that is no date, a Content-Encoding naming aws-chunked, which s3.put.aws-chunked-not-streaming judges).
 */
function comparable(name: string, value: string): string | undefined {
  const spaced = value.trim().replace(/\s*([,;=])\s*/g, '$1');
  if (name === 'expires') {
    const at = Date.parse(value);
    return Number.isNaN(at) ? undefined : String(at);
  }
  if (name === 'content-encoding' && /aws-chunked/i.test(value)) return undefined;
  return name === 'cache-control' || name === 'content-disposition' ? spaced : spaced.toLowerCase();
}

function givenBy(ex: ObservedView): Given {
  const headers: Record<string, string> = {};
  for (const name of CONTENT_HEADERS) {
    const v = ex.requestHeaders[name];
    if (v !== undefined && comparable(name, v) !== undefined) headers[name] = v;
  }
  return { meta: userMetadata(ex.requestHeaders), headers };
}

/** What a GET or HEAD answered that differs from what the Create gave. */
function departures(ex: ObservedView, given: Given): string[] {
  const wrong: string[] = [];
  const meta = userMetadata(ex.headers);
  if (show(meta) !== show(given.meta))
    wrong.push(`user metadata ${show(meta)}, where its CreateMultipartUpload sent ${show(given.meta)}`);
  for (const [name, sent] of Object.entries(given.headers)) {
    const got = ex.headers[name];
    if (got === undefined || comparable(name, got) !== comparable(name, sent))
      wrong.push(`${name} ${show(got ?? null)}, where its CreateMultipartUpload sent ${show(sent)}`);
  }
  return wrong;
}

function observeMultipartHeaders() {
  const created = new RecentMap<string, Given>(UPLOADS);
  // By object (host and path): the ETag its Complete answered and what the Create gave.
  const completed = new RecentMap<string, { etag: string; given: Given }>(REMEMBERED);
  return (ex: ObservedView): boolean | undefined => {
    const op = operationOf(ex);
    if (op === 'CreateMultipartUpload') {
      const id = ex.status === 200 ? createdUploadId(ex) : undefined;
      if (id !== undefined) created.set(`${placeOf(ex)}?${id}`, givenBy(ex));
      return undefined;
    }
    if (op === 'CompleteMultipartUpload') {
      const given = created.get(uploadOf(ex) ?? '');
      const etag = given && ex.status === 200 ? completedEtag(ex) : undefined;
      if (given && etag !== undefined) completed.set(placeOf(ex), { etag: bare(etag), given });
      return undefined;
    }
    if (op === 'PutObject' || op === 'CopyObject' || op === 'DeleteObject') {
      completed.delete(placeOf(ex));
      return undefined;
    }
    const o = seenRead(ex) ? completed.get(placeOf(ex)) : undefined;
    const etag = ex.headers.etag;
    if (!o || etag === undefined || bare(etag.replace(/^W\//, '')) !== o.etag) return undefined;
    const wrong = departures(ex, o.given);
    expectThat(
      wrong.length === 0,
      `${described(ex)} (ETag ${etag}) of a completed upload: ${wrong.join('; ')}`,
    );
    return true;
  };
}

const multipartHeaders: PropertyDef = {
  id: 's3.prop.multipart-headers-observed',
  title:
    'GET and HEAD of a completed upload answer the content headers and user metadata its CreateMultipartUpload sent',
  clauses: ['s3.object.multipart-headers'],
  observe: {
    selects:
      'GET and HEAD answered 200 of an object whose ETag a CompleteMultipartUpload answered, of an upload whose CreateMultipartUpload the traffic saw',
    observer: observeMultipartHeaders,
  },
};

export default [multipartHeaders] satisfies PropertyDef[];
