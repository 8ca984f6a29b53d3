import { fc, generateBuffer, type PropertyContext, type PropertyDef } from 'edgecheck/kit';
import { rawBucket } from './support/bucket.ts';
import { completeXml } from './support/multipart.ts';
import { observedListings } from './support/observed-listing.ts';
import { expectThat } from './support/wire.ts';
import { xmlResult } from './support/xml.ts';

/*
 * What `aws s3 sync` and rclone read from a listing: each key's Size, ETag and LastModified, which
 * they compare with local files and with what HEAD answers. Objects written by PutObject, a one-part
 * multipart upload and CopyObject, some overwritten, are listed (V1 and V2) a second or more after
 * their last write, so that a listing reporting another time than the object's is seen.
 */

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const show = (v: unknown) => JSON.stringify(v);

type Write = { key: number; how: 'put' | 'mpu' | 'copy'; size: number; seed: number };

const writesArb = (ctx: PropertyContext) =>
  fc.array(
    fc.record({
      // A few keys, so that some writes overwrite an earlier one.
      key: fc.integer({ min: 0, max: 3 }),
      how: fc.constantFrom('put' as const, 'mpu' as const, 'copy' as const),
      size: fc.integer({ min: 0, max: ctx.profile === 'quick' ? 2048 : 64 * 1024 }),
      seed: fc.nat(1_000_000),
    }),
    { minLength: 1, maxLength: ctx.profile === 'quick' ? 4 : 8 },
  );

/** Writes one object; returns its size. */
async function write(
  ctx: PropertyContext,
  bucket: string,
  key: string,
  w: Write,
  sizes: Map<string, number>,
) {
  const bytes = generateBuffer(w.seed, 0, w.size);
  const refused = (what: string, status: number) =>
    ctx.blocked(`${what} of ${show(key)} answered ${status}; the listing has nothing to be compared with`);
  const source = [...sizes.keys()].find((k) => k !== key);
  if (w.how === 'copy' && source !== undefined) {
    const res = await ctx.http({
      method: 'PUT',
      bucket,
      key,
      headers: { 'x-amz-copy-source': `/${bucket}/${source.split('/').map(encodeURIComponent).join('/')}` },
    });
    if (res.status !== 200) refused('CopyObject', res.status);
    sizes.set(key, sizes.get(source)!);
    return;
  }
  if (w.how === 'mpu') {
    const created = await ctx.http({ method: 'POST', bucket, key, query: { uploads: '' } });
    const uploadId = xmlResult(created.text(), 'InitiateMultipartUploadResult')?.UploadId;
    if (created.status !== 200 || !uploadId) refused('CreateMultipartUpload', created.status);
    const part = await ctx.http({
      method: 'PUT',
      bucket,
      key,
      query: { uploadId: String(uploadId), partNumber: '1' },
      body: bytes,
    });
    if (part.status !== 200 || !part.headers.etag) refused('UploadPart', part.status);
    const done = await ctx.http({
      method: 'POST',
      bucket,
      key,
      query: { uploadId: String(uploadId) },
      body: completeXml([{ number: 1, etag: part.headers.etag }]),
    });
    if (done.status !== 200) refused('CompleteMultipartUpload', done.status);
    sizes.set(key, w.size);
    return;
  }
  const res = await ctx.http({ method: 'PUT', bucket, key, body: bytes });
  if (res.status !== 200) refused('PutObject', res.status);
  sizes.set(key, w.size);
}

const properties: PropertyDef[] = [
  {
    id: 's3.prop.listing-attributes',
    title:
      'For any objects written, overwritten and copied, ListObjects and ListObjectsV2 give each key its size, the ETag HEAD answers and a LastModified in ISO 8601 UTC of the second HEAD names',
    clauses: ['s3.list.object-attributes'],
    // Seen in traffic: each key's LastModified is ISO 8601 UTC. Which second it names, and the Size
    // and ETag, need what HEAD answered of the same write, which an ETag alone does not tell.
    observe: observedListings('that list keys', (l) => {
      if (l.page.keys.length === 0) return false;
      const at = l.page.modified.findIndex((m) => !ISO_UTC.test(m));
      expectThat(
        at < 0,
        `${l.where}: ${show(l.page.keys[at])} has LastModified ${show(l.page.modified[at])}, not ISO 8601 UTC`,
      );
    }),
    // Quick: one run of at most 4 writes (up to 3 requests each), two listings and a HEAD per key.
    requests: 4 * 3 + 2 + 4,
    async run(ctx) {
      let bucket: Promise<string> | undefined;
      // Counted in this run's own bucket: a key never depends on what ran before in the process.
      let worlds = 0;
      await fc.assert(
        fc.asyncProperty(writesArb(ctx), async (writes) => {
          bucket ??= rawBucket(ctx, 'lsattr');
          const b = await bucket;
          const ns = `w${worlds++}/`;
          const sizes = new Map<string, number>();
          for (const w of writes) await write(ctx, b, `${ns}k${w.key}`, w, sizes);
          // Listed in a later second than any write: a listing that reports its own time is seen.
          await sleep(1100);
          const heads = new Map<string, { etag?: string; modified: number }>();
          for (const key of sizes.keys()) {
            const head = await ctx.http({ method: 'HEAD', bucket: b, key });
            if (head.status !== 200) ctx.blocked(`HEAD ${show(key)} answered ${head.status}`);
            heads.set(key, {
              etag: head.headers.etag,
              modified: Math.floor(Date.parse(head.headers['last-modified'] ?? '') / 1000),
            });
          }
          for (const v2 of [true, false]) {
            const query: Record<string, string> = { prefix: ns };
            if (v2) query['list-type'] = '2';
            const res = await ctx.http({ method: 'GET', bucket: b, query });
            const page = xmlResult(res.text(), 'ListBucketResult');
            const name = v2 ? 'ListObjectsV2' : 'ListObjects';
            if (res.status !== 200 || !page) ctx.unjudgeable(`${name} answered ${res.status}`);
            const listed = new Map<string, Record<string, unknown>>(
              (page?.Contents ?? []).map((c: Record<string, unknown>) => [String(c.Key), c]),
            );
            for (const [key, size] of sizes) {
              const entry = listed.get(key);
              expectThat(entry !== undefined, `${name} of ${show(ns)} does not list ${show(key)}`);
              const head = heads.get(key)!;
              const modified = String(entry?.LastModified ?? '');
              const where = `${name}: ${show(key)} (written by ${show(writes.map((w) => w.how))})`;
              expectThat(
                String(entry?.Size) === String(size),
                `${where} has Size ${entry?.Size}, not ${size}`,
              );
              expectThat(
                String(entry?.ETag) === head.etag,
                `${where} has ETag ${entry?.ETag}, where HEAD answers ${head.etag}`,
              );
              expectThat(
                ISO_UTC.test(modified) && Math.floor(Date.parse(modified) / 1000) === head.modified,
                `${where} has LastModified ${show(modified)}, where HEAD answers Last-Modified ${new Date(head.modified * 1000).toUTCString()}`,
              );
            }
          }
        }),
        { seed: ctx.fc.seed, numRuns: ctx.profile === 'quick' ? 1 : Math.min(ctx.fc.numRuns, 5) },
      );
    },
  },
];

export default properties;
