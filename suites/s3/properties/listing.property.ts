import { fc, type Observer, type PropertyContext, type PropertyDef, RecentMap } from 'edgecheck/kit';
import { rawBucket } from './support/bucket.ts';
import {
  expectedListing,
  keyArb,
  keySetArb,
  type ListParams,
  urlDecode,
  utf8Compare,
} from './support/keys.ts';
import { BucketTraffic } from './support/observed-keys.ts';
import { observedListings, type SeenListing } from './support/observed-listing.ts';
import { judgeEncoded, sentEncoded } from './support/url-encoded.ts';
import { expectThat } from './support/wire.ts';
import { type ListEchoes, type ListPage, parseListPage } from './support/xml.ts';

const maxKeysInSet = (ctx: PropertyContext) => (ctx.profile === 'quick' ? 10 : 40);
const runs = (ctx: PropertyContext) =>
  ctx.profile === 'quick' ? Math.min(ctx.fc.numRuns, 5) : ctx.fc.numRuns;

/**
 * Each run of a property lists its own key set: the keys live under a namespace of their own
 * (`w<n>-`, free of every delimiter the generator uses) in one bucket per property, and every
 * request adds the namespace to prefix, start-after and marker. Listing under a prefix P in a
 * bucket is thus listing an imaginary bucket that holds only the run's keys.
 */
interface World {
  bucket: string;
  ns: string;
}

function worlds(ctx: PropertyContext): (keys: string[]) => Promise<World> {
  let bucket: Promise<string> | undefined;
  let n = 0;
  return async (keys) => {
    bucket ??= rawBucket(ctx, 'list');
    const world = { bucket: await bucket, ns: `w${n++}-` };
    await Promise.all(
      keys.map(async (key) => {
        const res = await ctx.http({ method: 'PUT', bucket: world.bucket, key: world.ns + key, body: '' });
        if (res.status !== 200)
          ctx.blocked(`could not store key ${JSON.stringify(key)}: status ${res.status}`);
      }),
    );
    return world;
  };
}

interface Query extends ListParams {
  maxKeys?: number;
  token?: string;
  /** A marker as the target gave it (namespace included). */
  rawMarker?: string;
  v1?: boolean;
  encoding?: boolean;
}

/** A page as listPage reads it, with its keys and common prefixes also as the target sent them, and the query that asked for it. */
type Page = ListPage & { raw: string[]; query: Record<string, string> };

/** How a listed entry outside the world's prefix is shown: it names another world's key, or none. */
const OUTSIDE = '(outside the prefix) ';

async function listPage(ctx: PropertyContext, w: World, q: Query): Promise<Page> {
  const query: Record<string, string> = {};
  if (!q.v1) query['list-type'] = '2';
  query.prefix = w.ns + (q.prefix ?? '');
  if (q.delimiter) query.delimiter = q.delimiter;
  if (q.startAfter) query[q.v1 ? 'marker' : 'start-after'] = w.ns + q.startAfter;
  if (q.rawMarker) query.marker = q.rawMarker;
  if (q.maxKeys !== undefined) query['max-keys'] = String(q.maxKeys);
  if (q.token) query['continuation-token'] = q.token;
  if (q.encoding) query['encoding-type'] = 'url';
  const res = await ctx.http({ method: 'GET', bucket: w.bucket, query });
  if (res.status !== 200)
    throw new Error(`list ${JSON.stringify(query)}: status ${res.status}: ${res.text().slice(0, 160)}`);
  const page = parseListPage(res.text());
  const raw = [...page.keys, ...page.prefixes];
  const decode = (s: string) => (q.encoding ? urlDecode(s) : s);
  const strip = (s: string) => {
    const d = decode(s);
    return d.startsWith(w.ns) ? d.slice(w.ns.length) : `${OUTSIDE}${d}`;
  };
  page.keys = page.keys.map(strip);
  page.prefixes = page.prefixes.map(strip);
  return { ...page, raw, query };
}

/**
 * Follows V2 continuation tokens; `onPage` sees each request and answer. A `lenient` walk judges
 * only the pages it gets: it stops at a page that cannot be listed or after `limit` pages, leaving
 * endless or broken pagination to the pagination property.
 */
async function listAll(
  ctx: PropertyContext,
  bucket: World,
  q: Query,
  limit: number,
  onPage?: (page: ListPage, sentToken: string | undefined) => void,
  lenient = false,
): Promise<{ keys: string[]; prefixes: string[] }> {
  const all = { keys: [] as string[], prefixes: [] as string[] };
  let token: string | undefined;
  for (let n = 0; ; n++) {
    if (lenient && n > limit) return all;
    expectThat(n <= limit, `listing did not end after ${limit} pages`);
    let page: ListPage;
    try {
      page = await listPage(ctx, bucket, { ...q, token });
    } catch (err) {
      if (lenient && n > 0) return all;
      throw err;
    }
    onPage?.(page, token);
    all.keys.push(...page.keys);
    all.prefixes.push(...page.prefixes);
    if (!page.isTruncated) return all;
    if (lenient && page.nextToken === undefined) return all;
    expectThat(page.nextToken !== undefined, 'a truncated V2 page has no NextContinuationToken');
    token = page.nextToken;
  }
}

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
// Order is the pagination property's to judge; the parameter properties compare contents only.
const sameSet = (a: string[], b: string[]) => same([...a].sort(utf8Compare), [...b].sort(utf8Compare));
const show = (v: unknown) => JSON.stringify(v);

interface Params {
  prefix: string;
  delimiter: string;
  startAfter: string;
  maxKeys: number;
}

/** Parameters drawn partly from the key set, so prefixes and start-after points actually hit keys. */
function paramsFor(keys: string[]): fc.Arbitrary<Params> {
  const fromKeys = keys.length ? fc.constantFrom(...keys) : fc.constant('');
  return fc.record({
    prefix: fc.oneof(
      fc.constant(''),
      // Whole code points: half a surrogate pair is no prefix of any UTF-8 key.
      fromKeys.chain((k) => fc.nat(Array.from(k).length).map((n) => Array.from(k).slice(0, n).join(''))),
      keyArb,
    ),
    delimiter: fc.constantFrom('', '/', ' ', 'é'),
    startAfter: fc.oneof(fc.constant(''), fromKeys, keyArb),
    maxKeys: fc.integer({ min: 1, max: keys.length + 2 }),
  });
}

// A segment of a key several delimiters deep: none of the delimiters the parameters draw, so that the
// key's depth is the one it was built with.
const segmentArb = fc
  .array(fc.constantFrom('a', 'b', 'z', 'ü', '中', '😀', '-', '_', '+', '%', '~'), {
    minLength: 1,
    maxLength: 2,
  })
  .map((a) => a.join(''));
const deepKeyArb = (delimiter: fc.Arbitrary<string>) =>
  fc
    .tuple(delimiter, fc.array(segmentArb, { minLength: 3, maxLength: 4 }))
    .map(([d, segments]) => segments.join(d));

/**
 * A key set: keys of the generator, and keys two or three delimiters deep (one at least for '/',
 * more for any delimiter the parameters draw), which a delimited listing rolls up at the first
 * delimiter after the prefix.
 */
const keysArb = (ctx: PropertyContext) =>
  fc
    .tuple(
      keySetArb(maxKeysInSet(ctx)),
      deepKeyArb(fc.constant('/')),
      fc.array(deepKeyArb(fc.constantFrom('/', ' ', 'é')), { maxLength: 2 }),
    )
    .map(([keys, deep, more]) => [...new Set([...keys, deep, ...more])]);

const worldArb = (ctx: PropertyContext) =>
  keysArb(ctx).chain((keys) => fc.tuple(fc.constant(keys), paramsFor(keys)));

/** How many entries (keys and common prefixes) the world's listing under `p` holds. */
function entriesOf(keys: string[], p: Params): number {
  const want = expectedListing(keys, { prefix: p.prefix, delimiter: p.delimiter });
  return want.keys.length + want.prefixes.length;
}

function property(
  id: string,
  title: string,
  clause: string,
  /** `unjudged` says why, when the target's answers left the run nothing to judge. */
  check: (
    ctx: PropertyContext,
    world: World,
    keys: string[],
    p: Params,
    unjudged: (why: string) => void,
  ) => Promise<void>,
  observe?: PropertyDef['observe'],
  /** Which generated worlds the clause speaks of: the others are skipped before anything is stored. */
  judges?: (keys: string[], p: Params) => boolean,
): PropertyDef {
  return {
    id,
    title,
    clauses: [clause],
    observe,
    async run(ctx) {
      const world = worlds(ctx);
      let judged = 0;
      let why: string | undefined;
      await fc.assert(
        fc.asyncProperty(worldArb(ctx), async ([keys, p]) => {
          // A skipped world does not count among the runs: every run judges the clause.
          fc.pre(judges?.(keys, p) ?? true);
          const bucket = await world(keys);
          let left: string | undefined;
          await check(ctx, bucket, keys, p, (w) => {
            left = w;
          });
          if (left === undefined) judged++;
          else why = left;
        }),
        { seed: ctx.fc.seed, numRuns: runs(ctx) },
      );
      // A run that judged nothing is no evidence: with none judged, the clause was not judged.
      if (!judged) ctx.blocked(`no run had anything to judge: ${why}`);
    },
  };
}

const properties: PropertyDef[] = [
  property(
    's3.prop.list-prefix',
    'For any key set and prefix, ListObjectsV2 returns exactly the keys with that prefix',
    's3.list.prefix',
    async (ctx, bucket, keys, p) => {
      const got = await listPage(ctx, bucket, { prefix: p.prefix, maxKeys: 1000 });
      const want = expectedListing(keys, { prefix: p.prefix });
      expectThat(
        sameSet(got.keys, want.keys),
        `prefix ${show(p.prefix)}: expected ${show(want.keys)}, got ${show(got.keys)}`,
      );
    },
    // Seen in traffic: of the keys a page lists, the model keeps every one under the prefix asked.
    observedListings('asked for with a prefix', (l) => {
      if (!l.prefix) return false;
      const want = expectedListing(l.page.keys, { prefix: l.prefix });
      const outside = l.page.keys.filter((k) => !want.keys.includes(k));
      expectThat(
        outside.length === 0,
        `${l.where}: listed ${show(outside)}, outside prefix ${show(l.prefix)}`,
      );
    }),
  ),
  property(
    's3.prop.list-delimiter',
    'For any key set (keys several delimiters deep among them) and delimiter, keys roll up into exactly the expected common prefixes',
    's3.list.delimiter',
    async (ctx, bucket, keys, p) => {
      // '/' always: every key set holds a key two delimiters deep for it.
      for (const delimiter of new Set([p.delimiter || '/', '/'])) {
        const got = await listPage(ctx, bucket, { delimiter, maxKeys: 1000 });
        const want = expectedListing(keys, { delimiter });
        expectThat(
          sameSet(got.keys, want.keys) && sameSet(got.prefixes, want.prefixes),
          `delimiter ${show(delimiter)}: expected ${show(want)}, got ${show({ keys: got.keys, prefixes: got.prefixes })}`,
        );
      }
    },
    // Seen in traffic: the model rolls up none of the keys a page lists, and rolls each common
    // prefix it lists up to itself. Entries outside the prefix asked for are the prefix clause's.
    observedListings('asked for with a delimiter', (l) => {
      if (!l.delimiter) return false;
      const p = { prefix: l.prefix, delimiter: l.delimiter };
      const rolled = l.page.keys.filter(
        (k) => k.startsWith(l.prefix) && expectedListing([k], p).keys.length === 0,
      );
      // A common prefix no longer than the prefix asked for comes of ignoring that prefix.
      const wrong = l.page.prefixes.filter(
        (cp) =>
          cp.startsWith(l.prefix) &&
          cp.length > l.prefix.length &&
          expectedListing([cp], p).prefixes[0] !== cp,
      );
      expectThat(
        rolled.length === 0 && wrong.length === 0,
        `${l.where}: ${rolled.length ? `keys ${show(rolled)} hold the delimiter ${show(l.delimiter)}` : ''}${rolled.length && wrong.length ? '; ' : ''}${wrong.length ? `${show(wrong)} are no common prefixes of it` : ''}`,
      );
    }),
  ),
  property(
    's3.prop.list-start-after',
    'For any key set and start point, start-after (V2) and marker (V1) list exactly the later keys, and with a delimiter no common prefix wholly at or before it',
    's3.list.start-after',
    async (ctx, bucket, keys, p) => {
      const startAfter = p.startAfter || keys[0] || 'a';
      const delimiter = p.delimiter || '/';
      for (const v1 of [false, true]) {
        const name = `${v1 ? 'marker' : 'start-after'} ${show(startAfter)}`;
        const want = expectedListing(keys, { startAfter });
        const got = await listPage(ctx, bucket, { startAfter, maxKeys: 1000, v1 });
        expectThat(
          sameSet(got.keys, want.keys),
          `${name}: expected ${show(want.keys)}, got ${show(got.keys)}`,
        );
        // With a delimiter: no key at or before the start point, and no common prefix whose keys all sort
        // at or before it (nothing is left to list under it); one with later keys that itself sorts at
        // or before it may be listed or not (optional). Which keys roll up into which prefixes is the
        // delimiter property's to judge.
        const grouped = expectedListing(keys, { startAfter, delimiter });
        const page = await listPage(ctx, bucket, { startAfter, delimiter, maxKeys: 1000, v1 });
        const allowed = [...grouped.prefixes, ...grouped.optional];
        const early = [
          ...page.keys.filter((k) => utf8Compare(k, startAfter) <= 0),
          ...page.prefixes.filter((cp) => !allowed.includes(cp)),
        ];
        expectThat(
          early.length === 0,
          `${name}, delimiter ${show(delimiter)}: listed ${show(early)}, at or before it (common prefixes allowed: ${show(allowed)})`,
        );
      }
    },
    // Seen in traffic: every key a page lists sorts after start-after (V2) or marker (V1).
    observedListings('asked for with start-after or marker', (l) => {
      if (!l.startAfter) return false;
      const early = l.page.keys.filter((k) => utf8Compare(k, l.startAfter!) <= 0);
      expectThat(early.length === 0, `${l.where}: listed ${show(early)}, at or before ${show(l.startAfter)}`);
    }),
  ),
  property(
    's3.prop.list-max-keys',
    'For any key set and max-keys, a page holds at most max-keys entries',
    's3.list.max-keys',
    async (ctx, bucket, _keys, p) => {
      // At most: how few a page may hold is pagination's, which the pages together must list.
      const page = await listPage(ctx, bucket, { maxKeys: p.maxKeys });
      judgeMaxKeys(page, p.maxKeys, `max-keys ${p.maxKeys}`);
    },
    // Seen in traffic: a page asked for with max-keys up to S3's 1000 holds at most that many entries.
    observedListings('asked for with max-keys up to 1000', (l) => {
      if (l.maxKeys === undefined || l.maxKeys > 1000) return false;
      judgeMaxKeys(l.page, l.maxKeys, l.where);
    }),
  ),
  property(
    's3.prop.list-pagination',
    'For any key set, prefix, delimiter, start-after and max-keys, the pages together list what the same listing in one page lists, in sorted order',
    's3.list.pagination',
    async (ctx, bucket, _keys, p) => {
      // Against the same listing in one page, not a model of prefix, delimiter and start-after:
      // a target that gets one of those wrong is judged by that one's clause, not by this one.
      const whole = await listPage(ctx, bucket, { ...p, maxKeys: 1000 });
      // A page may hold fewer entries than max-keys (the target's choice): then there is no listing
      // in one page to compare with, and the property is blocked, not judged.
      if (whole.isTruncated) ctx.blocked(`params ${show(p)}: the listing in one page of 1000 is truncated`);
      // Entries outside this world's prefix are the prefix clause's, and other worlds' come and go.
      const stray = [...whole.keys, ...whole.prefixes].find((k) => k.startsWith(OUTSIDE));
      if (stray) ctx.blocked(`params ${show(p)}: the listing holds ${show(stray)}`);
      const entries = whole.keys.length + whole.prefixes.length;
      const got = await listAll(ctx, bucket, p, Math.ceil(entries / p.maxKeys) + 2);
      const sorted = [...got.keys].sort(utf8Compare);
      expectThat(
        same(got.keys, whole.keys) && same(got.prefixes, whole.prefixes) && same(got.keys, sorted),
        `params ${show(p)}: the pages listed ${show(got)}, the listing in one page ${show({ keys: whole.keys, prefixes: whole.prefixes })}`,
      );
    },
    {
      selects:
        'ListObjectsV2 pages, those asked for with a continuation token a page seen earlier gave, and pages of exactly max-keys keys that say the listing ends',
      observer: paginationObserver,
    },
    // A listing that fits one page of max-keys has no pages to join: nothing of the clause to judge.
    (keys, p) => {
      const want = expectedListing(keys, p);
      return want.keys.length + want.prefixes.length > p.maxKeys;
    },
  ),
  property(
    's3.prop.list-key-count',
    'On every page, KeyCount is the number of keys plus common prefixes',
    's3.list.key-count',
    async (ctx, bucket, keys, p) => {
      await listAll(
        ctx,
        bucket,
        p,
        keys.length + 2,
        (page) => judgeKeyCount(page, `params ${show(p)}`),
        true,
      );
    },
    observedListings('(V2)', (l) => (l.v2 ? judgeKeyCount(l.page, l.where) : false)),
    // The sum the clause names has two terms: a listing without common prefixes judges only one.
    (keys, p) => expectedListing(keys, p).prefixes.length > 0,
  ),
  property(
    's3.prop.list-next-marker',
    'ListObjects (V1) sets NextMarker only on truncated pages',
    's3.list.next-marker',
    async (ctx, bucket, keys, p) => {
      let marker: string | undefined;
      for (let n = 0; n <= keys.length + 2; n++) {
        const page = await listPage(ctx, bucket, {
          v1: true,
          delimiter: p.delimiter,
          maxKeys: p.maxKeys,
          rawMarker: marker,
        });
        // The run stored the keys: a page that lists every entry left after the marker ends the
        // listing, whatever its IsTruncated says; one that leaves some out is truncated. A page that
        // lists entries outside the prefix (the prefix clause's to judge) is followed by others the
        // run did not store: there only the page can say whether it is truncated.
        const left = expectedListing(keys, {
          delimiter: p.delimiter,
          startAfter: marker === undefined ? '' : marker.slice(bucket.ns.length),
        });
        const outside = (pg: Page) => [...pg.keys, ...pg.prefixes].some((e) => e.startsWith(OUTSIDE));
        const listed = [...page.keys, ...page.prefixes];
        // A marker outside the world (a page before gave one) leaves the model nothing to say.
        let stray = outside(page) || (marker !== undefined && !marker.startsWith(bucket.ns));
        const ends = !stray && [...left.keys, ...left.prefixes].every((e) => listed.includes(e));
        // A NextMarker on the page that ends the listing: what it leads to tells a listing that
        // ignores its prefix (the prefix clause's to judge), which goes on with keys the run did not
        // store, from one that says more follow where nothing does.
        if (ends && page.nextMarker !== undefined)
          stray = outside(
            await listPage(ctx, bucket, {
              v1: true,
              delimiter: p.delimiter,
              maxKeys: p.maxKeys,
              rawMarker: page.nextMarker,
            }),
          );
        if (stray) judgeNextMarker(page, `params ${show(p)}`);
        else
          judgeNextMarker(
            page,
            `params ${show(p)}`,
            !ends,
            `a page that lists every entry left (IsTruncated ${page.isTruncated})`,
          );
        if (ends || (stray && !page.isTruncated)) return;
        // Without NextMarker, S3 clients continue from the last key.
        const last = page.keys.at(-1);
        marker = page.nextMarker ?? (last === undefined ? undefined : bucket.ns + last);
        if (marker === undefined) return;
      }
    },
    // Traffic holds no key set to know the listing's end by: there the page's IsTruncated says it.
    observedListings('(V1)', (l) => (l.v2 ? false : judgeNextMarker(l.page, l.where))),
  ),
  property(
    's3.prop.list-exact-fit',
    'When the entries exactly fill max-keys, no cursor is returned',
    's3.list.no-cursor-at-max-keys',
    async (ctx, bucket, keys, p) => {
      const total = entriesOf(keys, p);
      const v2 = await listPage(ctx, bucket, { prefix: p.prefix, delimiter: p.delimiter, maxKeys: total });
      // The cursor only: whether the page says it is truncated is no part of the clause.
      expectThat(
        v2.nextToken === undefined,
        `V2, ${total} entries, max-keys ${total}: NextContinuationToken ${show(v2.nextToken)}`,
      );
      const v1 = await listPage(ctx, bucket, {
        v1: true,
        prefix: p.prefix,
        delimiter: p.delimiter,
        maxKeys: total,
      });
      expectThat(
        v1.nextMarker === undefined,
        `V1, ${total} entries, max-keys ${total}: NextMarker ${show(v1.nextMarker)}`,
      );
    },
    {
      selects:
        'ListObjects and ListObjectsV2 pages asked for with a cursor that a page of exactly max-keys entries gave',
      observer: exactFitObserver,
    },
    // An empty listing fills any max-keys: nothing to judge the cursor of.
    (keys, p) => entriesOf(keys, p) > 0,
  ),
  property(
    's3.prop.list-token-echo',
    'Every page requested with a continuation token echoes it as ContinuationToken',
    's3.list.continuation-echo',
    async (ctx, bucket, keys, p, unjudged) => {
      let echoes = 0;
      await listAll(
        ctx,
        bucket,
        { maxKeys: p.maxKeys },
        keys.length + 2,
        (page, sent) => {
          if (sent === undefined) return;
          judgeTokenEcho(page, sent, 'sent continuation token');
          echoes++;
        },
        true,
      );
      // A first page with no token to follow (pagination's clause) leaves no echo to judge.
      if (!echoes) unjudged(`max-keys ${p.maxKeys}, ${keys.length} keys: no page gave a continuation token`);
    },
    observedListings('(V2) asked for with a continuation token', (l) =>
      l.v2 && l.token !== undefined ? judgeTokenEcho(l.page, l.token, l.where) : false,
    ),
    // A world that fits in one page sends no token: only one with more keys than max-keys has an echo to judge.
    (keys, p) => p.maxKeys < keys.length,
  ),
  property(
    's3.prop.list-encoding',
    'With encoding-type url, every key and common prefix, the Prefix, Delimiter, Marker and StartAfter echoed and NextMarker are sent URL-encoded (printable ASCII, no space) and decode back to the stored key or the parameter asked',
    's3.list.encoding-type',
    async (ctx, bucket, keys, p) => {
      // A delimiter always, so that common prefixes are listed, in ListObjects (V1) as in ListObjectsV2.
      const delimiter = p.delimiter || '/';
      for (const v1 of [false, true]) {
        const asking = { prefix: p.prefix, delimiter, maxKeys: 1000, v1 };
        const got = await listPage(ctx, bucket, { ...asking, encoding: true });
        // The same listing without encoding-type: which keys and common prefixes a listing holds is
        // the prefix and delimiter clauses' to judge; this one judges that encoding changes nothing else.
        const plain = await listPage(ctx, bucket, asking);
        const label = `${v1 ? 'V1' : 'V2'} encoding-type url, params ${show({ ...p, delimiter })}`;
        // Encoded: a key or prefix left as stored may still decode to itself (ü, é/), so decoding alone proves nothing.
        judgeEncoded(got.raw, label);
        // Keys and common prefixes together: which is which is the delimiter property's to judge.
        expectThat(
          sameSet([...got.keys, ...got.prefixes], [...plain.keys, ...plain.prefixes]),
          `${label}: decoded ${show({ keys: got.keys, prefixes: got.prefixes })}, listed without encoding-type ${show({ keys: plain.keys, prefixes: plain.prefixes })}`,
        );
        judgeEchoes(got, asked(got.query, v1), label);
        // A page that starts after a point and stops after one entry: it echoes start-after (V2) or
        // marker (V1), and a truncated V1 page has a NextMarker, each of which must come encoded too.
        const startAfter = p.startAfter || keys[0] || 'a';
        const cut = await listPage(ctx, bucket, {
          prefix: p.prefix,
          delimiter,
          startAfter,
          maxKeys: 1,
          encoding: true,
          v1,
        });
        judgeEncoded(cut.raw, `${label}, ${v1 ? 'marker' : 'start-after'} ${show(startAfter)}, max-keys 1`);
        judgeEchoes(
          cut,
          asked(cut.query, v1),
          `${label}, ${v1 ? 'marker' : 'start-after'} ${show(startAfter)}, max-keys 1`,
        );
      }
    },
    observedListings('asked for with encoding-type url', (l) => {
      if (!l.encoded) return false;
      judgeEncoded(l.raw, l.where);
      const params = { prefix: l.prefix, delimiter: l.delimiter ?? '', after: l.startAfter ?? '' };
      judgeEchoes(
        { echoes: l.page.echoes, nextMarker: l.page.nextMarker, raw: l.raw },
        l.v2
          ? { Prefix: params.prefix, Delimiter: params.delimiter, StartAfter: params.after }
          : { Prefix: params.prefix, Delimiter: params.delimiter, Marker: params.after },
        l.where,
      );
    }),
  ),
];

/** A page holds at most max-keys entries (the MaxKeys element that echoes it is no part of the clause). */
function judgeMaxKeys(page: ListPage, maxKeys: number, label: string): void {
  const n = page.keys.length + page.prefixes.length;
  expectThat(n <= maxKeys, `${label}: page holds ${n} entries`);
}

/** KeyCount is the number of keys plus common prefixes. */
function judgeKeyCount(page: ListPage, label: string): void {
  const n = page.keys.length + page.prefixes.length;
  expectThat(page.keyCount === n, `${label}: KeyCount ${page.keyCount} for ${n} entries`);
}

/** NextMarker only on a truncated page: as the run knows it, or else as the page says. */
function judgeNextMarker(
  page: ListPage,
  label: string,
  truncated = page.isTruncated,
  end = 'a page that is not truncated',
): void {
  expectThat(
    truncated || page.nextMarker === undefined,
    `${label}: NextMarker ${show(page.nextMarker)} on ${end}`,
  );
}

/** A page asked for with a continuation token echoes it. */
function judgeTokenEcho(page: ListPage, sent: string, label: string): void {
  expectThat(page.token === sent, `${label}: ContinuationToken is ${show(page.token)}`);
}

/** What each echo element of a listing must decode to: the parameter as asked, '' where not asked. */
function asked(query: Record<string, string>, v1: boolean): ListEchoes {
  const after = (v1 ? query.marker : query['start-after']) ?? '';
  return {
    Prefix: query.prefix ?? '',
    Delimiter: query.delimiter ?? '',
    ...(v1 ? { Marker: after } : { StartAfter: after }),
  };
}

/** '+' as a space, as S3's url form; undefined where the text is no URL encoding. */
function decoded(s: string): string | undefined {
  try {
    return urlDecode(s);
  } catch {
    return undefined;
  }
}

/**
 * With encoding-type url, the elements that echo the request (Prefix, Delimiter, and Marker in
 * ListObjects or StartAfter in ListObjectsV2) are sent encoded and decode to what was asked, and
 * a NextMarker is sent encoded and decodes to a key or common prefix of its page. An element the
 * target leaves out is not judged: the clause speaks of how values are sent, not of which.
 */
function judgeEchoes(
  page: { echoes: ListEchoes; nextMarker?: string; raw: string[] },
  want: ListEchoes,
  label: string,
): void {
  const wrong: string[] = [];
  for (const name of ['Prefix', 'Delimiter', 'Marker', 'StartAfter'] as const) {
    const sent = page.echoes[name];
    const meant = want[name];
    if (sent === undefined || meant === undefined) continue;
    if (!sentEncoded(sent)) wrong.push(`${name} ${show(sent)} sent unencoded`);
    else if (decoded(sent) !== meant)
      wrong.push(
        `${name} ${show(sent)} decodes to ${show(decoded(sent) ?? '(not URL-encoded)')}, asked ${show(meant)}`,
      );
  }
  const next = page.nextMarker;
  if (next !== undefined) {
    const entries = page.raw.map(decoded);
    if (!sentEncoded(next)) wrong.push(`NextMarker ${show(next)} sent unencoded`);
    else if (decoded(next) === undefined || !entries.includes(decoded(next)))
      wrong.push(
        `NextMarker ${show(next)} decodes to ${show(decoded(next) ?? '(not URL-encoded)')}, no key or common prefix of its page`,
      );
  }
  expectThat(wrong.length === 0, `${label}: ${wrong.join('; ')}`);
}

/**
 * Pagination seen in traffic: a V2 page lists its keys, and its common prefixes, each in UTF-8
 * order; a page asked for with a continuation token lists only entries after the last one of the
 * page that gave the token (the same bucket and parameters): none repeated, none from before.
 */
function paginationObserver(): Observer {
  const issued = new RecentMap<string, { list: string; last: string }>();
  const traffic = new BucketTraffic();
  const pages = observedListings('', (l) => {
    const judged = judgeClaimsEnd(l, traffic);
    if (!l.v2) return judged;
    for (const [what, list] of [
      ['keys', l.page.keys],
      ['common prefixes', l.page.prefixes],
    ] as const) {
      const at = list.findIndex((k, i) => i > 0 && utf8Compare(list[i - 1], k) >= 0);
      expectThat(at < 0, `${l.where}: ${what} out of order: ${show(list[at - 1])} before ${show(list[at])}`);
    }
    const entries = [...l.page.keys, ...l.page.prefixes].sort(utf8Compare);
    const from = l.token === undefined ? undefined : issued.get(l.token);
    if (from && from.list === l.list) {
      const early = entries.filter((e) => utf8Compare(e, from.last) <= 0);
      expectThat(
        early.length === 0,
        `${l.where}: listed ${show(early)}, at or before ${show(from.last)}, where the page that gave the continuation token ended`,
      );
    }
    if (l.page.nextToken !== undefined && entries.length)
      issued.set(l.page.nextToken, { list: l.list, last: entries[entries.length - 1] });
  }).observer();
  return (ex) => {
    traffic.observe(ex);
    return pages(ex);
  };
}

/**
 * A page that says the listing ends (not truncated) while it holds exactly max-keys keys (no
 * delimiter) ends too soon where the traffic stored a key under its prefix, sorting after its last
 * key, and has not deleted it since: the pages together leave that key out. Judged only there, and
 * only with what the traffic itself did: a key another writer deleted meanwhile would be a false
 * claim, so the traffic's own keys are the only ones counted, and a page that stops short of
 * max-keys is left alone (the keys after it may be gone).
 */
function judgeClaimsEnd(l: SeenListing, traffic: BucketTraffic): boolean {
  const maxKeys = l.maxKeys ?? 1000;
  const keys = l.page.keys;
  if (l.page.isTruncated || l.delimiter || l.bucket === undefined) return false;
  if (maxKeys === 0 || maxKeys > 1000 || keys.length !== maxKeys || l.page.prefixes.length) return false;
  const left = traffic.storedAfter(l.bucket, l.prefix, keys[keys.length - 1]);
  expectThat(
    left === undefined,
    `${l.where}: says the listing ends (IsTruncated false) after exactly max-keys ${maxKeys} keys, the last ${show(keys[keys.length - 1])}, but the traffic stored ${show(left)} under its prefix and has not deleted it`,
  );
  return true;
}

/** A walk through one listing's pages by their cursors: where it started, and the entries listed so far. */
interface Walk {
  list: string;
  bucket: string;
  start?: string;
  listed: Set<string>;
  /** The traffic's deletes in the bucket when the walk began. */
  deletes: number;
  where: string;
}

/** Walks remembered by their latest cursor, and entries kept of each: bounded whatever the traffic. */
const WALKS = 256;
const WALK_ENTRIES = 1000;

/**
 * A cursor given with a page of exactly max-keys entries (NextContinuationToken, or NextMarker in
 * V1), followed by the traffic to the page that ends the listing: one that lists something shows the
 * cursor was due, an empty one that nothing followed, so no cursor was (s3.list.no-cursor-at-max-keys). An empty page may also mean the server lost what followed
 * (s3.list.pagination's to judge): so judged only where the pages of that walk listed every key the
 * traffic stored under the prefix after the walk's start, and the traffic deleted nothing in the
 * bucket meanwhile.
 */
function exactFitObserver(): Observer {
  const walks = new RecentMap<string, Walk>(WALKS);
  const traffic = new BucketTraffic();
  const pages = observedListings('', (l) => {
    if (l.bucket === undefined) return false;
    const sent = l.v2 ? l.token : l.startAfter;
    const from = sent === undefined ? undefined : walks.get(sent);
    const walk: Walk =
      from && from.list === l.list
        ? from
        : {
            list: l.list,
            bucket: l.bucket,
            start: l.startAfter,
            listed: new Set(),
            deletes: 0,
            where: l.where,
          };
    if (walk !== from) walk.deletes = traffic.deletes(l.bucket);
    const entries = [...l.page.keys, ...l.page.prefixes];
    // A last page that lists something shows the cursor before it was due: the clause held there.
    const last = walk === from && !l.page.isTruncated;
    const judged = last && (entries.length > 0 || covers(walk, l, traffic));
    if (judged)
      expectThat(
        entries.length > 0,
        `${walk.where} and the pages after it listed exactly max-keys entries a page, each with a cursor, and the page the last cursor leads to (${l.where}) is empty`,
      );
    for (const e of entries) walk.listed.add(e);
    const cursor = l.v2 ? l.page.nextToken : l.page.nextMarker;
    if (
      cursor !== undefined &&
      entries.length > 0 &&
      entries.length === l.maxKeys &&
      walk.listed.size <= WALK_ENTRIES
    )
      walks.set(cursor, walk);
    return judged;
  }).observer();
  return (ex) => {
    traffic.observe(ex);
    return pages(ex);
  };
}

/** Whether the walk listed every key the traffic stored (and kept) under the prefix after its start. */
function covers(walk: Walk, l: SeenListing, traffic: BucketTraffic): boolean {
  if (walk.deletes !== traffic.deletes(walk.bucket)) return false;
  for (const key of traffic.stored(walk.bucket)) {
    if (!key.startsWith(l.prefix) || (walk.start !== undefined && utf8Compare(key, walk.start) <= 0))
      continue;
    const rolled = l.delimiter
      ? expectedListing([key], { prefix: l.prefix, delimiter: l.delimiter })
      : undefined;
    const entry = rolled?.prefixes[0] ?? key;
    if (!walk.listed.has(entry)) return false;
  }
  return true;
}

export default properties;
