import { createHash } from 'node:crypto';
import type { ObservedView, PropertyContext, PropertyDef } from 'edgecheck/kit';
import { rawBucket } from './support/bucket.ts';
import { DELETE_LIMIT, deleteAnswered, deleteAsked, deleteXml } from './support/delete-objects.ts';
import { described, errorCodeOf, refusedAs } from './support/exchange.ts';
import { type Replayed, replayedProperty, type Sent } from './support/replay.ts';
import { expectThat } from './support/wire.ts';

// DeleteObjects judged from its request document (kept whole) and its answer: the run sends the
// requests below and its observer judges them as it judges traffic.

/** The answer lists, in Deleted and Error, only keys the request sent, byte for byte. */
function noTrim(ex: ObservedView): boolean | undefined {
  const asked = deleteAsked(ex);
  if (!asked || ex.status !== 200) return undefined;
  const answered = deleteAnswered(ex);
  if (!answered) return undefined;
  const sent = new Set(asked.keys);
  for (const k of [...answered.deleted, ...answered.failed])
    expectThat(sent.has(k), `${described(ex)}: lists key ${JSON.stringify(k)}, which was not sent as such`);
  return true;
}

/** Without Quiet every key sent is listed, in Deleted or Error; with Quiet true no Deleted is. */
function quiet(ex: ObservedView): boolean | undefined {
  const asked = deleteAsked(ex);
  if (!asked || ex.status !== 200) return undefined;
  const answered = deleteAnswered(ex);
  if (!answered) return undefined;
  if (asked.quiet) {
    expectThat(
      answered.deleted.length === 0,
      `${described(ex)}: Quiet true, yet ${answered.deleted.length} keys listed in Deleted`,
    );
    return true;
  }
  // Counted, not compared byte for byte: which bytes a key is listed with is s3.delete.no-trim's.
  const listed = new Set([...answered.deleted, ...answered.failed]);
  const sent = new Set(asked.keys);
  const left = [...sent].filter((k) => !listed.has(k));
  expectThat(
    listed.size >= sent.size,
    `${described(ex)}: without Quiet, ${sent.size} keys sent, ${listed.size} listed in Deleted or Error (not listed: ${JSON.stringify(left.slice(0, 5))})`,
  );
  return true;
}

/** A well-formed document of at most 1000 keys answered MalformedXML; with exactly 1000 answered 200, it holds. */
function withinLimit(ex: ObservedView): boolean | undefined {
  const asked = deleteAsked(ex);
  if (!asked?.wellFormed || asked.keys.length > DELETE_LIMIT) return undefined;
  const code = errorCodeOf(ex);
  expectThat(
    code !== 'MalformedXML',
    `${described(ex)} MalformedXML: a DeleteObjects of ${asked.keys.length} keys (at most ${DELETE_LIMIT})`,
  );
  return ex.status === 200 && asked.keys.length === DELETE_LIMIT ? true : undefined;
}

/** More than 1000 keys answered anything but 400 MalformedXML (refusals made before the document is read aside). */
function overLimit(ex: ObservedView): boolean | undefined {
  const asked = deleteAsked(ex);
  if (!asked || asked.keys.length <= DELETE_LIMIT) return undefined;
  return refusedAs(ex, 400, 'MalformedXML', `a DeleteObjects of ${asked.keys.length} keys`);
}

const KEYS = [' lead', 'trail ', ' both ', 'plain'];

/** A DeleteObjects of `keys` with the Content-MD5 S3 asks of it. */
function deleting(bucket: string, keys: string[], quietly?: boolean): Sent {
  const body = deleteXml(keys, quietly);
  const md5 = createHash('md5').update(body).digest('base64');
  return { method: 'POST', bucket, query: { delete: '' }, headers: { 'content-md5': md5 }, body };
}

/** Stores `keys` in a bucket of the property's own. */
async function stored(ctx: PropertyContext, keys: string[]): Promise<string> {
  const bucket = await rawBucket(ctx, 'del');
  for (const key of keys) {
    const res = await ctx.http({ method: 'PUT', bucket, key, body: key });
    if (res.status !== 200) ctx.blocked(`PUT ${JSON.stringify(key)} answered ${res.status}`);
  }
  return bucket;
}

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `k${String(i).padStart(4, '0')}`);

/** The twin of 1000 keys must be carried out, or a refusal of 1001 says nothing. */
async function twinOfLimit(ctx: PropertyContext, send: (req: Sent) => Promise<Replayed>, bucket: string) {
  const twin = await send(deleting(bucket, numbered(DELETE_LIMIT), true));
  if (twin.answer.status !== 200)
    ctx.blocked(`the twin of ${DELETE_LIMIT} keys answered ${twin.answer.status}`);
}

const properties: PropertyDef[] = [
  replayedProperty({
    id: 's3.prop.delete-no-trim',
    title: 'DeleteObjects lists only the keys sent, spaces around them kept',
    clause: 's3.delete.no-trim',
    selects: 'DeleteObjects answered 200, with its request document',
    observer: () => noTrim,
    async scenario(ctx, send) {
      await send(deleting(await stored(ctx, KEYS), KEYS));
    },
  }),
  replayedProperty({
    id: 's3.prop.delete-quiet',
    title: 'DeleteObjects lists every key sent without Quiet, and no Deleted with Quiet true',
    clause: 's3.delete.quiet',
    selects: 'DeleteObjects answered 200, with its request document',
    observer: () => quiet,
    judges: 3,
    async scenario(ctx, send) {
      const bucket = await stored(ctx, KEYS);
      await send(deleting(bucket, [...KEYS.slice(0, 2), 'never-there']));
      await send(deleting(bucket, [KEYS[2], 'never-there'], false));
      await send(deleting(bucket, [KEYS[3], 'never-there'], true));
    },
  }),
  replayedProperty({
    id: 's3.prop.delete-thousand',
    title: 'DeleteObjects of 1000 keys in well-formed XML is carried out, not refused as MalformedXML',
    clause: 's3.delete.max-keys',
    selects:
      'DeleteObjects of well-formed XML with at most 1000 keys, judged on MalformedXML (held at exactly 1000, answered 200)',
    observer: () => withinLimit,
    async scenario(ctx, send) {
      await send(deleting(await rawBucket(ctx, 'del'), numbered(DELETE_LIMIT), true));
    },
  }),
  replayedProperty({
    id: 's3.prop.delete-keys-limit',
    title: 'DeleteObjects takes 1000 keys and refuses 1001',
    clause: 's3.limit.delete-objects-keys',
    selects:
      'DeleteObjects with its request document: at most 1000 keys not refused as MalformedXML, more not carried out',
    observer: () => (ex) => {
      const asked = deleteAsked(ex);
      if (asked && asked.keys.length > DELETE_LIMIT)
        expectThat(
          ex.status >= 300,
          `${described(ex)}: a DeleteObjects of ${asked.keys.length} keys was carried out`,
        );
      return withinLimit(ex);
    },
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'del');
      await twinOfLimit(ctx, send, bucket);
      const res = await send(deleting(bucket, numbered(DELETE_LIMIT + 1), true));
      expectThat(
        res.answer.status >= 400,
        `DeleteObjects of ${DELETE_LIMIT + 1} keys answered ${res.answer.status}`,
      );
    },
  }),
  replayedProperty({
    id: 's3.prop.delete-over-limit',
    title: 'DeleteObjects of more than 1000 keys is refused with 400 MalformedXML',
    clause: 's3.error.delete-over-limit',
    selects: 'DeleteObjects of more than 1000 keys, answered anything but 400 MalformedXML',
    observer: () => overLimit,
    judges: 0,
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'del');
      await twinOfLimit(ctx, send, bucket);
      const res = await send(deleting(bucket, numbered(DELETE_LIMIT + 1), true));
      expectThat(
        res.answer.status === 400,
        `DeleteObjects of ${DELETE_LIMIT + 1} keys answered ${res.answer.status}`,
      );
    },
  }),
];

export default properties;
