import { type ObservedView, type PropertyDef, RecentMap } from 'edgecheck/kit';
import { CHECKSUM_REFUSALS, compositeOf, partChecksumOf } from './support/checksums.ts';
import { described, errorCodeOf, operationOf, payloadOf, placeOf } from './support/exchange.ts';
import { REMEMBERED, seenRead } from './support/observed-objects.ts';
import { bare, createdUploadId, partsListed, uploadOf } from './support/uploads.ts';
import { expectThat } from './support/wire.ts';
import { xmlResult } from './support/xml.ts';

/*
 * An upload created with x-amz-checksum-algorithm (a composite one): each UploadPart sending the
 * checksum of its body, kept whole, answers that checksum; its Complete answers the composite, the
 * algorithm over the parts' binary checksums in part-number order, base64, then -N; a correct
 * composite claimed on the Complete is not refused for its checksum; and a GET or HEAD of the
 * object that Complete made, with checksum mode ENABLED, answers the composite. A part whose body
 * was not kept whole, or sent without its checksum, leaves the Complete and what follows unjudged.
 */

/** Uploads and parts remembered: a proxy may see millions, its memory must not grow. */
const UPLOADS = 2_000;
const PARTS = 100;

interface Tracked {
  alg: string;
  /** Each part's checksum, as its kept body gives it; null where the part is not known. */
  parts: Map<number, string | null>;
  overflow: boolean;
}

interface Completed {
  etag: string;
  alg: string;
  composite: string;
}

/** The algorithm a Create asks for, if the composite is what it asks (no FULL_OBJECT type). */
function compositeAlgorithm(ex: ObservedView): string | undefined {
  const alg = ex.requestHeaders['x-amz-checksum-algorithm']?.toLowerCase();
  const type = ex.requestHeaders['x-amz-checksum-type'];
  if (alg === undefined || (type !== undefined && !/^composite$/i.test(type))) return undefined;
  return partChecksumOf(alg, Buffer.alloc(0)) === undefined ? undefined : alg;
}

/** An UploadPart of a tracked upload: its answer judged where its kept body proves the checksum. */
function judgePart(ex: ObservedView, u: Tracked): boolean | undefined {
  const n = Number(ex.query.get('partNumber'));
  if (!Number.isInteger(n)) return undefined;
  if (!u.parts.has(n) && u.parts.size >= PARTS) {
    u.overflow = true;
    return undefined;
  }
  // A refusal leaves the part stored before; anything else unreadable leaves it unknown.
  if (ex.status >= 400 && ex.status < 500) return undefined;
  u.parts.set(n, null);
  const aws = /aws-chunked/i.test(ex.requestHeaders['content-encoding'] ?? '');
  const body = aws ? undefined : payloadOf(ex);
  if (ex.status !== 200 || body === undefined) return undefined;
  const want = partChecksumOf(u.alg, body);
  if (want === undefined || ex.requestHeaders[`x-amz-checksum-${u.alg}`] !== want) return undefined;
  const answered = ex.headers[`x-amz-checksum-${u.alg}`];
  expectThat(
    answered === want,
    `${described(ex)}: x-amz-checksum-${u.alg} ${answered ?? 'absent'}, the part's body has ${want}`,
  );
  u.parts.set(n, want);
  return true;
}

/** The composite of the parts a Complete lists, where every one is known. */
function compositeListed(ex: ObservedView, u: Tracked): string | undefined {
  const listed = partsListed(ex);
  if (!listed || u.overflow) return undefined;
  const numbers = [...new Set(listed.map((p) => p.number))].sort((a, b) => a - b);
  const sums = numbers.map((n) => u.parts.get(n));
  if (numbers.length === 0 || sums.some((s) => typeof s !== 'string')) return undefined;
  return compositeOf(u.alg, sums as string[]);
}

/** A Complete of a tracked upload: the composite answered, and a correct one claimed not refused. */
function judgeComplete(ex: ObservedView, u: Tracked, completed: RecentMap<string, Completed>) {
  const composite = compositeListed(ex, u);
  if (composite === undefined) return undefined;
  const element = `Checksum${u.alg.toUpperCase()}`;
  if (ex.status === 200) {
    const result = xmlResult(ex.text(), 'CompleteMultipartUploadResult');
    // A 200 holding an Error document is a refusal that says nothing of checksums.
    if (result === undefined) return undefined;
    const answered = result[element];
    expectThat(
      answered === composite,
      `${described(ex)}: ${element} ${answered ?? 'absent'}, the composite of its parts' checksums is ${composite}`,
    );
    if (typeof result.ETag === 'string')
      completed.set(placeOf(ex), { etag: bare(result.ETag), alg: u.alg, composite });
    return true;
  }
  const code = errorCodeOf(ex);
  if (ex.requestHeaders[`x-amz-checksum-${u.alg}`] !== composite || !CHECKSUM_REFUSALS.includes(code ?? ''))
    return undefined;
  throw new Error(
    `${described(ex)} ${code}: refused x-amz-checksum-${u.alg} ${composite}, the composite of its parts`,
  );
}

/** A GET or HEAD with checksum mode ENABLED of the version a judged Complete made. */
function judgeRead(ex: ObservedView, done: Completed | undefined): boolean | undefined {
  const etag = ex.headers.etag;
  if (!done || !/^enabled$/i.test(ex.requestHeaders['x-amz-checksum-mode'] ?? '')) return undefined;
  if (etag === undefined || bare(etag.replace(/^W\//, '')) !== done.etag) return undefined;
  const answered = ex.headers[`x-amz-checksum-${done.alg}`];
  expectThat(
    answered === done.composite,
    `${described(ex)} with checksum mode ENABLED: x-amz-checksum-${done.alg} ${answered ?? 'absent'}, its Complete answered ${done.composite}`,
  );
  return true;
}

function observeComposite() {
  const uploads = new RecentMap<string, Tracked>(UPLOADS);
  const completed = new RecentMap<string, Completed>(REMEMBERED);
  return (ex: ObservedView): boolean | undefined => {
    const op = operationOf(ex);
    if (op === 'CreateMultipartUpload') {
      const alg = ex.status === 200 ? compositeAlgorithm(ex) : undefined;
      const id = alg ? createdUploadId(ex) : undefined;
      if (alg && id !== undefined)
        uploads.set(`${placeOf(ex)}?${id}`, { alg, parts: new Map(), overflow: false });
      return undefined;
    }
    const u = uploads.get(uploadOf(ex) ?? '');
    if (op === 'UploadPart') return u && judgePart(ex, u);
    if (op === 'CompleteMultipartUpload') return u && judgeComplete(ex, u, completed);
    if (op === 'PutObject' || op === 'CopyObject' || op === 'DeleteObject') {
      completed.delete(placeOf(ex));
      return undefined;
    }
    return seenRead(ex) ? judgeRead(ex, completed.get(placeOf(ex))) : undefined;
  };
}

const multipartComposite: PropertyDef = {
  id: 's3.prop.multipart-composite-observed',
  title: "An upload created with a checksum algorithm answers each part's checksum and the composite of them",
  clauses: ['s3.checksum.multipart-composite'],
  observe: {
    selects:
      'UploadPart and CompleteMultipartUpload of uploads created with x-amz-checksum-algorithm (parts sent with their checksum, bodies kept whole), and GET and HEAD with checksum mode ENABLED of the objects they made',
    observer: observeComposite,
  },
};

export default [multipartComposite] satisfies PropertyDef[];
