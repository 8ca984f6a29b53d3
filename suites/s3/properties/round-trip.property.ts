import { fc, type Observer, type PropertyContext, type PropertyDef, type WireResponse } from 'edgecheck/kit';
import { utf8Compare } from './support/keys.ts';
import { md5 } from './support/multipart.ts';
import { seenObject, seenRead, seenWrite, userMetadata, Versions } from './support/observed-objects.ts';
import {
  leavesCopy,
  leavesTellingCopies,
  type Model,
  play,
  type Reads,
  read,
  type Stored,
  show,
  type World,
  worlds,
} from './support/round-trip-model.ts';
import {
  CONTENT_HEADERS,
  listingKeyArb,
  maxWrites,
  type Op,
  runs,
  scriptArb,
} from './support/round-trip-scripts.ts';
import { expectThat } from './support/wire.ts';
import { parseListPage } from './support/xml.ts';

/*
 * Round trips: objects written with any key, user metadata, content headers and size, through
 * PutObject, CopyObject (COPY or REPLACE) and a one-part multipart upload, are read back through
 * GetObject, HeadObject and ListObjectsV2 and compared with a model of what was written. Each
 * property judges one clause, so that a server breaking one rule fails only that rule's property.
 */

function metaOf(res: Pick<WireResponse, 'headers'>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers))
    if (name.startsWith('x-amz-meta-')) out[name.slice('x-amz-meta-'.length)] = value;
  return out;
}

const sorted = (r: Record<string, string>) =>
  Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

function checkMeta(key: string, o: Stored, reads: Reads) {
  for (const [what, res] of Object.entries(reads)) {
    const got = sorted(metaOf(res));
    const want = sorted(o.meta);
    expectThat(
      show(got) === show(want),
      `${what.toUpperCase()} ${show(key)} (written by ${o.how}): user metadata ${show(got)}, expected ${show(want)}`,
    );
  }
}

/**
 * Each content header given is returned as sent; one not given is absent, but for Content-Type,
 * which a server may infer (s3.put.content-type-inferred).
 */
function checkHeaders(key: string, o: Stored, reads: Reads) {
  for (const [what, res] of Object.entries(reads)) {
    for (const name of CONTENT_HEADERS) {
      const want = o.headers[name];
      const got = res.headers[name];
      if (want === undefined && name === 'content-type') continue;
      expectThat(
        got === want,
        `${what.toUpperCase()} ${show(key)} (written by ${o.how}): ${name} ${show(got)}, expected ${want === undefined ? 'none' : show(want)}`,
      );
    }
    expectThat(
      res.headers['content-length'] === String(o.bytes.length),
      `${what.toUpperCase()} ${show(key)} (written by ${o.how}): Content-Length ${show(res.headers['content-length'])}, expected ${o.bytes.length}`,
    );
  }
  const body = reads.get.body;
  expectThat(
    body.equals(o.bytes),
    `GET ${show(key)} (written by ${o.how}): ${body.length} bytes (MD5 ${md5(body)}), expected ${o.bytes.length} (MD5 ${md5(o.bytes)})`,
  );
}

/**
 * Content headers seen in traffic, by the version (ETag) an answer speaks of: HEAD answers as
 * Content-Length the size a PutObject request sent or a whole GET answered for that version, and GET
 * and HEAD of a version written with a Content-Type answer one. Which type, where a server may
 * normalise it, is left to the run.
 */
function observeContentHeaders(): Observer {
  const versions = new Versions<{ size?: number; type?: string }>();
  return (ex) => {
    const written = seenWrite(ex);
    if (written) {
      versions.remember(seenObject(ex)!, written.etag, { size: written.size, type: written.contentType });
      return undefined;
    }
    const o = seenRead(ex);
    const etag = ex.headers.etag;
    if (!o || !etag) return undefined;
    const known = versions.recall(o, etag);
    const length = ex.headers['content-length'];
    // A whole GET tells the size, unless something on the way encoded the bytes it sent.
    if (ex.method === 'GET' && length !== undefined && ex.headers['content-encoding'] === undefined) {
      if (!known) versions.remember(o, etag, { size: Number(length) });
      else known.size ??= Number(length);
    }
    const where = `${ex.method} ${ex.path} (ETag ${etag})`;
    const typed = known?.type !== undefined;
    if (typed)
      expectThat(
        ex.headers['content-type'] !== undefined,
        `${where}: no Content-Type, where the object was written with Content-Type ${show(known?.type)}`,
      );
    const sized = ex.method === 'HEAD' && known?.size !== undefined && length !== undefined;
    if (sized)
      expectThat(
        length === String(known?.size),
        `${where}: Content-Length ${length}, where the object of that ETag has ${known?.size} bytes`,
      );
    return typed || sized || undefined;
  };
}

/**
 * In passing: what a PutObject sent as user metadata, by the version (ETag) it wrote, is what every
 * GET and HEAD of that version answers, exactly as checkMeta judges a run's own reads.
 */
function observeUserMetadata(): Observer {
  const versions = new Versions<Record<string, string>>();
  return (ex) => {
    const written = seenWrite(ex);
    if (written) {
      versions.remember(seenObject(ex)!, written.etag, userMetadata(ex.requestHeaders));
      return undefined;
    }
    const o = seenRead(ex);
    const etag = ex.headers.etag;
    const want = o && etag ? versions.recall(o, etag) : undefined;
    if (!want) return undefined;
    const got = userMetadata(ex.headers);
    expectThat(
      show(got) === show(want),
      `${ex.method} ${ex.path} (ETag ${etag}): user metadata ${show(got)}, where the PutObject of that ETag sent ${show(want)}`,
    );
    return true;
  };
}

/** ListObjectsV2 under the run's namespace, following continuation tokens. */
async function listAll(ctx: PropertyContext, w: World, maxKeys: number, limit: number) {
  const keys: string[] = [];
  let token: string | undefined;
  for (let n = 0; ; n++) {
    expectThat(n <= limit, `listing with max-keys ${maxKeys} did not end after ${limit} pages`);
    const query: Record<string, string> = { 'list-type': '2', prefix: w.ns, 'max-keys': String(maxKeys) };
    if (token) query['continuation-token'] = token;
    const res = await ctx.http({ method: 'GET', bucket: w.bucket, query });
    expectThat(
      res.status === 200,
      `ListObjectsV2 ${show(query)} answered ${res.status}: ${res.text().slice(0, 160)}`,
    );
    const page = parseListPage(res.text());
    // A key outside the prefix asked for is the prefix clause's to judge: pages that hold one say
    // nothing of how tokens page through this world's keys.
    const outside = page.keys.find((key) => !key.startsWith(w.ns));
    if (outside !== undefined)
      ctx.blocked(`ListObjectsV2 ${show(query)} listed ${show(outside)}, outside its prefix`);
    for (const key of page.keys) keys.push(key.slice(w.ns.length));
    if (!page.isTruncated) return keys;
    expectThat(page.nextToken !== undefined, 'a truncated V2 page has no NextContinuationToken');
    token = page.nextToken;
  }
}

// ---- Properties -----------------------------------------------------------------------------------

function roundTrip(
  id: string,
  title: string,
  clause: string,
  label: string,
  kinds: ('put' | 'mpu' | 'copy')[],
  check: (ctx: PropertyContext, w: World, model: Model) => Promise<void>,
  observe?: PropertyDef['observe'],
  /** Which scripts the clause speaks of: the others are skipped before anything is written. */
  judges?: (ops: Op[]) => boolean,
  /** Scripts tried first whatever the seed. */
  examples: Op[][] = [],
): PropertyDef {
  return {
    id,
    title,
    clauses: [clause],
    observe,
    // Quick: 4 runs of at most 4 writes (up to 3 requests each) and a GET and HEAD of each.
    requests: 4 * (4 * 3 + 4 * 2),
    async run(ctx) {
      const world = worlds(ctx, label);
      await fc.assert(
        fc.asyncProperty(scriptArb(ctx, kinds), async (ops) => {
          // A skipped script does not count among the runs: every run judges the clause.
          fc.pre(judges?.(ops) ?? true);
          const w = await world();
          const model = await play(ctx, w, ops);
          await check(ctx, w, model);
        }),
        { seed: ctx.fc.seed, numRuns: runs(ctx), examples: examples.map((ops): [Op[]] => [ops]) },
      );
    },
  };
}

/** GET and HEAD of every object the model holds (or of those `which` picks). */
async function eachRead(
  ctx: PropertyContext,
  w: World,
  model: Model,
  judge: (key: string, o: Stored, reads: Reads) => void,
  which: (o: Stored) => boolean = () => true,
) {
  for (const [key, o] of model.objects) if (which(o)) judge(key, o, await read(ctx, w, key));
}

/**
 * A source with metadata and every content header the scripts write, copied without a directive and
 * with REPLACE giving only another Content-Type: whatever the seed, each header is seen kept by the
 * one copy and dropped by the other.
 */
const EVERY_ATTRIBUTE_COPIED: Op[] = [
  {
    kind: 'put',
    key: { fresh: 'source' },
    attrs: {
      meta: { colour: 'blue' },
      headers: {
        'content-type': 'text/x-source',
        'cache-control': 'no-cache',
        'content-disposition': 'attachment; filename="s.txt"',
        'content-encoding': 'gzip',
        'content-language': 'de-CH',
        expires: 'Wed, 01 Jan 2031 00:00:00 GMT',
      },
    },
    size: 16,
    seed: 1,
  },
  { kind: 'copy', from: 0, key: { fresh: 'kept' }, explicitCopy: false },
  {
    kind: 'copy',
    from: 0,
    key: { fresh: 'replaced' },
    replace: { meta: {}, headers: { 'content-type': 'text/x-copy' } },
    explicitCopy: false,
  },
];

const properties: PropertyDef[] = [
  roundTrip(
    's3.prop.round-trip-metadata',
    'For any keys and user metadata, PutObject stores exactly the metadata GET and HEAD return',
    's3.object.user-metadata',
    'rtmeta',
    ['put'],
    (ctx, w, model) => eachRead(ctx, w, model, checkMeta),
    {
      selects:
        'GET and HEAD answered 200 of an object version (ETag) a PutObject wrote, with its request headers',
      observer: observeUserMetadata,
    },
  ),
  roundTrip(
    's3.prop.round-trip-headers',
    'For any keys, content headers and sizes, GET and HEAD return the headers and bytes PutObject stored',
    's3.object.content-headers',
    'rthead',
    ['put'],
    (ctx, w, model) => eachRead(ctx, w, model, checkHeaders),
    {
      selects:
        'GET and HEAD answered 200 of an object version (ETag) a PutObject wrote or a whole GET answered',
      observer: observeContentHeaders,
    },
  ),
  roundTrip(
    's3.prop.round-trip-copy',
    'For any chain of copies (COPY, REPLACE or no directive), each copy has the bytes of its source and the metadata and content headers the directive gives',
    's3.copy.metadata-directive',
    'rtcopy',
    ['put', 'copy'],
    (ctx, w, model) =>
      eachRead(
        ctx,
        w,
        model,
        (key, o, reads) => {
          checkMeta(key, o, reads);
          checkHeaders(key, o, reads);
        },
        (o) => o.copy !== undefined,
      ),
    undefined,
    // Only copies are read, and only some tell the directive's rule apart from its wrong twins.
    leavesTellingCopies,
    [EVERY_ATTRIBUTE_COPIED],
  ),
  roundTrip(
    's3.prop.round-trip-copy-etag',
    'For any chain of copies, each copy has its source ETag in CopyObjectResult and on HEAD',
    's3.copy.etag',
    'rtcetag',
    ['put', 'copy'],
    async (ctx, w, model) => {
      // The same ETag quotes aside: the source's is as its PutObject answered it, the copy's is XML
      // in CopyObjectResult and a header on HEAD; how each is quoted is s3.object.etag-md5's to judge.
      const bare = (etag: string | undefined) => etag?.replace(/^"|"$/g, '');
      for (const [key, o] of model.objects) {
        if (!o.copy) continue;
        expectThat(
          bare(o.copy.answered) === bare(o.etag),
          `CopyObject ${show(o.copy.source)} -> ${show(key)}: CopyObjectResult ETag ${o.copy.answered}, source ETag ${o.etag}`,
        );
        const head = await ctx.http({ method: 'HEAD', bucket: w.bucket, key: w.ns + key });
        expectThat(
          bare(head.headers.etag) === bare(o.etag),
          `HEAD ${show(key)} (${o.how}): ETag ${head.headers.etag} (status ${head.status}), source ETag ${o.etag}`,
        );
      }
    },
    undefined,
    // Only copies are judged: a script whose copies are all overwritten or onto their source judges nothing.
    leavesCopy,
  ),
  roundTrip(
    's3.prop.round-trip-multipart',
    'For any keys, metadata, content headers and sizes, a one-part multipart upload gives the object what CreateMultipartUpload was given, and the bytes',
    's3.object.multipart-headers',
    'rtmpu',
    ['mpu'],
    (ctx, w, model) =>
      eachRead(ctx, w, model, (key, o, reads) => {
        checkMeta(key, o, reads);
        checkHeaders(key, o, reads);
      }),
  ),
  {
    id: 's3.prop.round-trip-list',
    title: 'For any keys written, ListObjectsV2 pages together list exactly those keys, in UTF-8 order',
    clauses: ['s3.list.pagination'],
    requests: 4 * (4 + 6),
    async run(ctx) {
      const world = worlds(ctx, 'rtlist');
      await fc.assert(
        fc.asyncProperty(
          scriptArb(ctx, ['put'], listingKeyArb),
          fc.integer({ min: 1, max: maxWrites(ctx) + 1 }),
          async (ops, maxKeys) => {
            const w = await world();
            const model = await play(ctx, w, ops);
            // The clause is the keys and their order; SPEC states nothing of a listed Size.
            const want = [...model.objects.keys()].sort(utf8Compare);
            const got = await listAll(ctx, w, maxKeys, want.length + 2);
            expectThat(
              show(got) === show(want),
              `max-keys ${maxKeys}: listed ${show(got)}, expected ${show(want)}`,
            );
          },
        ),
        { seed: ctx.fc.seed, numRuns: runs(ctx) },
      );
    },
  },
];

export default properties;
