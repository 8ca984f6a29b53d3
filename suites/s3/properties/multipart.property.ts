import { createHash } from 'node:crypto';
import {
  fc,
  generateChunks,
  generatedBody,
  generatedDigest,
  type ObservedView,
  type PropertyContext,
  type PropertyDef,
} from 'edgecheck/kit';
import { rawBucket } from './support/bucket.ts';
import { quotesIgnored, sortsParts, unequalRefused } from './support/complete-observers.ts';
import { completeXml } from './support/multipart.ts';
import { expectThat, s3Target, sendS3 } from './support/wire.ts';
import { parseXml, xmlResult } from './support/xml.ts';

// Amazon S3 and the service refuse non-last parts under 5 MiB, so equal parts are 5 MiB.
const MIB5 = 5 * 1024 * 1024;

const maxParts = (ctx: PropertyContext) => (ctx.profile === 'quick' ? 2 : 6);
// Each run moves several 5 MiB parts: few runs in quick.
const runs = (ctx: PropertyContext) =>
  ctx.profile === 'quick' ? Math.min(ctx.fc.numRuns, 3) : Math.min(ctx.fc.numRuns, 20);

interface Part {
  number: number;
  size: number;
  seed: number;
  md5: string;
  etag?: string;
}

/** Multipart ETag: MD5 of the concatenated binary part MD5s (hex), then -N. */
function multipartEtag(md5s: string[]): string {
  const h = createHash('md5');
  for (const m of md5s) h.update(Buffer.from(m, 'hex'));
  return `${h.digest('hex')}-${md5s.length}`;
}

/**
 * A CompleteMultipartUpload seen in traffic whose request body was kept: the ETag it answers is the
 * one its parts give, in part-number order (the parts' ETags are their MD5s). Parts named twice,
 * or with ETags that are no MD5, leave it unjudged.
 */
function observeCompleteEtag(ex: ObservedView): boolean | undefined {
  if (ex.door !== 's3' || ex.method !== 'POST' || !ex.query.has('uploadId')) return undefined;
  if (ex.status !== 200 || !ex.requestBody) return undefined;
  const etag = xmlResult(ex.text(), 'CompleteMultipartUploadResult')?.ETag;
  let sent: { PartNumber?: unknown; ETag?: unknown }[] | undefined;
  try {
    sent = parseXml(ex.requestBody.toString('utf8'))?.CompleteMultipartUpload?.Part;
  } catch {
    return undefined;
  }
  if (typeof etag !== 'string' || !Array.isArray(sent) || !sent.length) return undefined;
  const parts = sent.map((p) => ({ n: Number(p.PartNumber), md5: String(p.ETag).replace(/^"+|"+$/g, '') }));
  if (parts.some((p) => !Number.isInteger(p.n) || !/^[0-9a-f]{32}$/i.test(p.md5))) return undefined;
  if (new Set(parts.map((p) => p.n)).size !== parts.length) return undefined;
  parts.sort((a, b) => a.n - b.n);
  const want = `"${multipartEtag(parts.map((p) => p.md5))}"`;
  expectThat(
    etag === want,
    `POST ${ex.path} (${parts.length} parts): Complete returned ETag ${etag}, expected ${want}`,
  );
  return true;
}

/** `sizes` become parts 1..n of generated data, uploaded with plain signed requests. */
async function uploadParts(
  ctx: PropertyContext,
  bucket: string,
  key: string,
  sizes: number[],
  seed: number,
): Promise<{ uploadId: string; parts: Part[] }> {
  const created = await ctx.http({ method: 'POST', bucket, key, query: { uploads: '' } });
  const uploadId = xmlResult(created.text(), 'InitiateMultipartUploadResult')?.UploadId;
  if (created.status !== 200 || !uploadId) ctx.blocked(`CreateMultipartUpload answered ${created.status}`);
  const parts: Part[] = [];
  for (const [i, size] of sizes.entries()) {
    // Streamed as generated, and hashed apart: a 5 MiB buffer per part was most of what a run allocated.
    const body = generatedBody(seed + i, size);
    const query = { partNumber: String(i + 1), uploadId: String(uploadId) };
    const res = await ctx.http({ method: 'PUT', bucket, key, query, body });
    if (res.status !== 200) ctx.blocked(`UploadPart ${i + 1} of ${size} bytes answered ${res.status}`);
    const digest = generatedDigest('md5', seed + i, 0, size);
    parts.push({ number: i + 1, size, seed: seed + i, md5: digest, etag: res.headers.etag });
  }
  return { uploadId: String(uploadId), parts };
}

/** Complete with the given parts, in the given order. */
function complete(
  ctx: PropertyContext,
  bucket: string,
  key: string,
  uploadId: string,
  entries: { number: number; etag: string }[],
) {
  return ctx.http({ method: 'POST', bucket, key, query: { uploadId }, body: completeXml(entries) });
}

/** Sizes of n parts: n-1 of 5 MiB and a last one of `last` bytes (a single part may be small). */
const partSizes = (n: number, last: number) => [...Array(n - 1).fill(MIB5), last];

const properties: PropertyDef[] = [
  {
    id: 's3.prop.mpu-etag',
    title: 'For any part count, the multipart ETag is the MD5 of the part MD5s with -N',
    clauses: ['s3.mpu.etag-format'],
    observe: {
      selects: 'CompleteMultipartUpload answered 200, with its request body',
      observer: () => observeCompleteEtag,
    },
    async run(ctx) {
      const bucket = await rawBucket(ctx, 'mpu');
      // Counted in this run's own bucket: a key never depends on what ran before in the process.
      let uploads = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: maxParts(ctx) }),
          fc.integer({ min: 1, max: 4096 }),
          fc.nat(1000),
          fc.boolean(),
          async (n, last, seed, reversed) => {
            const key = `etag-${n}-${last}-${seed}-${uploads++}`;
            const { uploadId, parts } = await uploadParts(ctx, bucket, key, partSizes(n, last), seed);
            const entries = parts.map((p) => ({ number: p.number, etag: p.etag! }));
            // Listed in either order: the ETag follows part numbers, not the order of the list. A
            // target that refuses the reversed list is judged on the ascending one (refusing it is
            // s3.mpu.complete-sorts-parts's to judge).
            let done = await complete(
              ctx,
              bucket,
              key,
              uploadId,
              reversed ? [...entries].reverse() : entries,
            );
            let order = reversed ? ' listed in reverse' : '';
            if (reversed && done.status !== 200) {
              done = await complete(ctx, bucket, key, uploadId, entries);
              order = ' (listed in order: the reverse was refused)';
            }
            const etag = xmlResult(done.text(), 'CompleteMultipartUploadResult')?.ETag;
            // Quotes aside: the clause states what the ETag is made of, not how it is quoted.
            const want = multipartEtag(parts.map((p) => p.md5));
            const bare = (e: unknown) => (typeof e === 'string' ? e.replace(/^"|"$/g, '') : e);
            expectThat(
              bare(etag) === want,
              `${n} parts${order}: Complete returned ETag ${etag} (status ${done.status}), expected ${want}`,
            );
            const head = await ctx.http({ method: 'HEAD', bucket, key });
            expectThat(
              bare(head.headers.etag) === want,
              `${n} parts: HEAD ETag ${head.headers.etag}, expected ${want}`,
            );
          },
        ),
        // Two parts listed in reverse, whatever the seed: an ETag hashed in list order shows.
        { seed: ctx.fc.seed, numRuns: runs(ctx), examples: [[2, 1, 0, true]] },
      );
    },
  },
  {
    id: 's3.prop.mpu-sorted',
    title: 'Whatever order Complete lists the parts in, the object is the parts in ascending order',
    clauses: ['s3.mpu.complete-sorts-parts'],
    observe: {
      selects: 'CompleteMultipartUpload listing its parts out of order, with its request body',
      observer: sortsParts,
    },
    async run(ctx) {
      const bucket = await rawBucket(ctx, 'mpu');
      // Counted in this run's own bucket: a key never depends on what ran before in the process.
      let uploads = 0;
      const arb = fc
        .integer({ min: 2, max: maxParts(ctx) })
        .chain((n) =>
          fc.tuple(
            fc.constant(n),
            fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
            fc.integer({ min: 1, max: 4096 }),
            fc.nat(1000),
          ),
        );
      await fc.assert(
        fc.asyncProperty(arb, async ([n, order, last, seed]) => {
          const key = `sorted-${n}-${seed}-${order.join('')}-${uploads++}`;
          const { uploadId, parts } = await uploadParts(ctx, bucket, key, partSizes(n, last), seed);
          const res = await ctx.http({
            method: 'POST',
            bucket,
            key,
            query: { uploadId },
            body: completeXml(order.map((i) => ({ number: parts[i].number, etag: parts[i].etag! }))),
          });
          expectThat(
            res.status >= 200 && res.status < 300,
            `Complete with parts in order ${order.map((i) => i + 1)}: status ${res.status}: ${res.text().slice(0, 160)}`,
          );
          // The whole object: past what the runner keeps (8 MiB), its size and MD5 are those of every
          // byte that arrived.
          const got = await sendS3(ctx, s3Target(ctx), { method: 'GET', bucket, key });
          // The expected object's MD5, hashed chunk by chunk as each part is generated: no part is held whole.
          const want = createHash('md5');
          for (const p of parts) for (const c of generateChunks(p.seed, 0, p.size)) want.update(c);
          const size = parts.reduce((n, p) => n + p.size, 0);
          expectThat(
            got.status === 200 && got.size === size && got.md5() === want.digest('hex'),
            `parts listed as ${order.map((i) => i + 1)}: the object (${got.size} bytes) is not parts 1..${n} in order`,
          );
        }),
        { seed: ctx.fc.seed, numRuns: runs(ctx) },
      );
    },
  },
  {
    id: 's3.prop.mpu-quotes',
    title: 'Complete accepts part ETags bare, quoted, or with only a leading or trailing quote',
    clauses: ['s3.mpu.etag-quotes-ignored'],
    observe: {
      selects:
        'CompleteMultipartUpload naming each part by the ETag its UploadPart answered, some quoted otherwise',
      observer: quotesIgnored,
    },
    async run(ctx) {
      const bucket = await rawBucket(ctx, 'mpu');
      // Counted in this run's own bucket: a key never depends on what ran before in the process.
      let uploads = 0;
      const quoting = fc.constantFrom('bare', 'quoted', 'leading', 'trailing');
      const arb = fc
        .integer({ min: 1, max: Math.min(2, maxParts(ctx)) })
        .chain((n) =>
          fc.tuple(fc.constant(n), fc.array(quoting, { minLength: n, maxLength: n }), fc.nat(1000)),
        );
      await fc.assert(
        fc.asyncProperty(arb, async ([n, styles, seed]) => {
          const key = `quotes-${n}-${seed}-${styles.join('-')}-${uploads++}`;
          const { uploadId, parts } = await uploadParts(ctx, bucket, key, partSizes(n, 100), seed);
          const entries = parts.map((p, i) => {
            const s = styles[i];
            const etag =
              s === 'bare'
                ? p.md5
                : s === 'quoted'
                  ? `"${p.md5}"`
                  : s === 'leading'
                    ? `"${p.md5}`
                    : `${p.md5}"`;
            return { number: p.number, etag };
          });
          const res = await ctx.http({
            method: 'POST',
            bucket,
            key,
            query: { uploadId },
            body: completeXml(entries),
          });
          expectThat(
            res.status >= 200 && res.status < 300,
            `Complete with ETags ${styles.join(', ')}: status ${res.status}: ${res.text().slice(0, 160)}`,
          );
          const head = await ctx.http({ method: 'HEAD', bucket, key });
          const size = parts.reduce((a, p) => a + p.size, 0);
          expectThat(
            head.status === 200 && head.headers['content-length'] === String(size),
            `object after Complete: status ${head.status}, length ${head.headers['content-length']}`,
          );
        }),
        { seed: ctx.fc.seed, numRuns: runs(ctx) },
      );
    },
  },
  {
    id: 's3.prop.mpu-unequal',
    title: 'Complete refuses any upload whose non-last parts differ in size',
    clauses: ['s3.mpu.unequal-parts-rejected', 's3.limit.part-size'],
    observe: {
      selects: 'CompleteMultipartUpload answered 200, against the sizes of the parts seen uploaded',
      observer: unequalRefused,
    },
    async run(ctx) {
      const bucket = await rawBucket(ctx, 'mpu');
      // Counted in this run's own bucket: a key never depends on what ran before in the process.
      let uploads = 0;
      const arb = fc
        .tuple(fc.nat(4096), fc.nat(4096), fc.integer({ min: 1, max: 4096 }), fc.nat(1000))
        .filter(([a, b]) => a !== b);
      await fc.assert(
        fc.asyncProperty(arb, async ([extra1, extra2, last, seed]) => {
          const key = `unequal-${extra1}-${extra2}-${seed}-${uploads++}`;
          const sizes = [MIB5 + extra1, MIB5 + extra2, last];
          const { uploadId, parts } = await uploadParts(ctx, bucket, key, sizes, seed);
          ctx.defer(async () => {
            // 404: completed after all, or already aborted; the bucket's teardown removes the object.
            const res = await ctx.http({ method: 'DELETE', bucket, key, query: { uploadId } });
            if (res.status !== 204 && res.status !== 404) throw new Error(`abort answered ${res.status}`);
          }, `multipart upload ${uploadId} of ${key} in ${bucket}`);
          const res = await ctx.http({
            method: 'POST',
            bucket,
            key,
            query: { uploadId },
            body: completeXml(parts.map((p) => ({ number: p.number, etag: p.etag! }))),
          });
          expectThat(
            res.status >= 400 && res.status < 500,
            `parts of ${sizes.join(', ')} bytes: Complete answered ${res.status}`,
          );
          // Not created: any refusal of the read shows it (that it is 404 is no clause of this one).
          const head = await ctx.http({ method: 'HEAD', bucket, key });
          expectThat(
            head.status >= 400 && head.status < 500,
            `parts of ${sizes.join(', ')} bytes: HEAD of the object after a refused Complete answered ${head.status}`,
          );
        }),
        { seed: ctx.fc.seed, numRuns: runs(ctx) },
      );
    },
  },
];

export default properties;
