import { createHash } from 'node:crypto';
import {
  fc,
  type ObservedView,
  type Observer,
  type PropertyContext,
  type PropertyDef,
  RecentMap,
  type WireResponse,
} from 'edgecheck/kit';
import { rawBucket } from './support/bucket.ts';
import { REMEMBERED, seenObject } from './support/observed-objects.ts';
import { expectThat } from './support/wire.ts';

const BODY = 'conditional-body';
// PUT of the same body keeps the same ETag, so a run that writes leaves the next run's world unchanged.
const ETAG = `"${createHash('md5').update(BODY).digest('hex')}"`;

const randomTag = fc
  .stringMatching(/^[0-9a-f]{32}$/)
  .filter((t) => `"${t}"` !== ETAG)
  .map((t) => `"${t}"`);

/** A list of other ETags with the object's own inserted at a random place, or not at all. */
const tagList = (own: string) =>
  fc
    .tuple(
      fc.array(randomTag, { minLength: 0, maxLength: 3 }),
      fc.boolean(),
      fc.nat(),
      fc.constantFrom(',', ', ', ' , '),
    )
    .filter(([others, include]) => include || others.length > 0)
    .map(([others, include, at, sep]) => {
      const list = [...others];
      if (include) list.splice(at % (list.length + 1), 0, own);
      return { header: list.join(sep), includes: include };
    });

async function withObject(ctx: PropertyContext): Promise<{ bucket: string; key: string }> {
  const bucket = await rawBucket(ctx, 'cond');
  const res = await ctx.http({ method: 'PUT', bucket, key: 'obj', body: BODY });
  if (res.status !== 200) ctx.blocked(`could not store the object: status ${res.status}`);
  // The lists are built of the MD5 in quotes, as entity tags are written: an ETag answered without
  // its quotes is the same tag (how it is quoted is s3.object.etag-md5's to judge).
  if (res.headers.etag?.replace(/^"|"$/g, '') !== ETAG.slice(1, -1))
    ctx.unjudgeable(`the object's ETag ${res.headers.etag} is not its MD5; cannot build ETag lists`);
  return { bucket, key: 'obj' };
}

const describe = (method: string, header: string, value: string, res: WireResponse) =>
  `${method} with ${header}: ${value} -> ${res.status}`;

type Method = 'GET' | 'HEAD' | 'PUT';

/**
 * The answers SPEC's clauses allow: a condition that holds is served, a failing one refused with 412.
 * A matching If-None-Match on a read is refused too, 304 or 412: behaviour 9 only says the forms are
 * accepted, and Amazon S3's 304 is s3.cond.get-not-modified's statement, not these clauses'.
 */
function expected(method: Method, header: 'if-match' | 'if-none-match', matches: boolean): number[] {
  if (header === 'if-match') return matches ? [200] : [412];
  if (!matches) return [200];
  return method === 'PUT' ? [412] : [304, 412];
}

/** With one strong ETag, s3.cond.get-not-modified's answers: 304 for a matching If-None-Match on a read. */
function expectedSingle(method: Method, header: 'if-match' | 'if-none-match', matches: boolean): number[] {
  return header === 'if-none-match' && matches && method !== 'PUT'
    ? [304]
    : expected(method, header, matches);
}

const either = (want: number[]) => want.join(' or ');

/** A GET, HEAD or PUT of the object with one condition header, answered what `expected` says. */
async function sendConditional(
  ctx: PropertyContext,
  o: { bucket: string; key: string },
  method: Method,
  header: 'if-match' | 'if-none-match',
  list: { header: string; includes: boolean },
): Promise<void> {
  const res = await ctx.http({
    method,
    bucket: o.bucket,
    key: o.key,
    headers: { [header]: list.header },
    body: method === 'PUT' ? BODY : undefined,
  });
  const want = expected(method, header, list.includes);
  expectThat(
    want.includes(res.status),
    `${describe(method, header, list.header, res)}, expected ${either(want)}`,
  );
}

/** Which conditional headers an observer judges: lists, weak ETags, the wildcard, or one strong ETag. */
type Kind = 'list' | 'weak' | 'wildcard' | 'single';

/**
 * The latest ETag the traffic was answered for each object (PutObject, GET, HEAD answered 200), for
 * a 200 that gives none; an object deleted through the traffic is forgotten.
 */
function latestEtags(): (ex: ObservedView) => string | undefined {
  const latest = new RecentMap<string, string>(REMEMBERED);
  return (ex) => {
    const o = seenObject(ex);
    if (!o) return undefined;
    const etag = ex.headers.etag;
    if (ex.method === 'DELETE' && ex.status < 300) latest.delete(o.id);
    else if (ex.status === 200 && etag && ['PUT', 'GET', 'HEAD'].includes(ex.method)) latest.set(o.id, etag);
    return etag ?? (ex.status === 200 ? latest.get(o.id) : undefined);
  };
}

/**
 * Conditional GETs and HEADs seen in traffic, judged against the ETag their answer carries: one
 * If-Match or If-None-Match of the `kind` given (no date condition beside it, no other), answered 200
 * or 304, must be answered what `expected` says of the object it answered about. A 412 carries no
 * ETag and is left unjudged, as are entity tags not in quotes. With one strong ETag, a 200 that gives
 * no ETag is judged against the latest one the traffic was answered for the object: a 200 gives one
 * (s3.object.etag-md5), so a server that does is never judged so.
 */
function observeConditional(kind: Kind): Observer {
  const etagOf = kind === 'single' ? latestEtags() : (ex: ObservedView) => ex.headers.etag;
  return (ex) => {
    if (ex.door !== 's3') return undefined;
    const current = etagOf(ex);
    if (ex.method !== 'GET' && ex.method !== 'HEAD') return undefined;
    if (ex.status !== 200 && ex.status !== 304) return undefined;
    const conditions = Object.keys(ex.requestHeaders).filter((h) => h.startsWith('if-'));
    if (!current || conditions.length !== 1) return undefined;
    const header = conditions[0];
    if (header !== 'if-match' && header !== 'if-none-match') return undefined;
    const value = ex.requestHeaders[header];
    const tags = value.split(',').map((t) => t.trim());
    if (!tags.every((t) => t === '*' || /^(W\/)?"[^"]*"$/.test(t))) return undefined;
    const weak = tags.some((t) => t.startsWith('W/'));
    const mine =
      kind === 'wildcard'
        ? value.trim() === '*'
        : kind === 'weak'
          ? weak
          : kind === 'single'
            ? tags.length === 1 && !weak && tags[0] !== '*'
            : tags.length > 1 && !weak && !tags.includes('*');
    if (!mine) return undefined;
    // Both headers compare weakly (SPEC behaviour 9 lets each take weak ETags): W/ is dropped on both sides.
    const opaque = (t: string) => t.replace(/^W\//, '');
    const matches = tags.some((t) => t === '*' || opaque(t) === opaque(current));
    const want = (kind === 'single' ? expectedSingle : expected)(ex.method as Method, header, matches);
    expectThat(
      want.includes(ex.status),
      `${ex.method} ${ex.path} with ${header}: ${value} -> ${ex.status}, ETag ${current}; expected ${either(want)}`,
    );
    return true;
  };
}

const properties: PropertyDef[] = [
  {
    id: 's3.prop.cond-etag-lists',
    title: 'If-Match and If-None-Match with any ETag list on GET, HEAD and PUT',
    clauses: ['s3.cond.etag-list'],
    observe: {
      selects: 'GET and HEAD with one If-Match or If-None-Match list of ETags, answered 200 or 304',
      observer: () => observeConditional('list'),
    },
    async run(ctx) {
      const o = await withObject(ctx);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<Method>('GET', 'HEAD', 'PUT'),
          fc.constantFrom<'if-match' | 'if-none-match'>('if-match', 'if-none-match'),
          tagList(ETAG),
          (method, header, list) => sendConditional(ctx, o, method, header, list),
        ),
        { seed: ctx.fc.seed, numRuns: ctx.fc.numRuns },
      );
    },
  },
  {
    id: 's3.prop.cond-weak',
    title: 'Weak ETags in If-Match and If-None-Match lists match by weak comparison on GET, HEAD and PUT',
    clauses: ['s3.cond.weak-etag'],
    observe: {
      selects: 'GET and HEAD with an If-Match or If-None-Match holding a weak ETag, answered 200 or 304',
      observer: () => observeConditional('weak'),
    },
    async run(ctx) {
      const o = await withObject(ctx);
      const weakList = fc
        .tuple(fc.array(randomTag, { minLength: 0, maxLength: 3 }), fc.boolean(), fc.boolean(), fc.nat())
        .filter(([others, include]) => include || others.length > 0)
        .map(([others, include, weakOwn, at]) => {
          const list = others.map((t, i) => (i % 2 ? t : `W/${t}`));
          if (include) list.splice(at % (list.length + 1), 0, weakOwn ? `W/${ETAG}` : ETAG);
          return { header: list.join(', '), includes: include };
        });
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<Method>('GET', 'HEAD', 'PUT'),
          fc.constantFrom<'if-match' | 'if-none-match'>('if-match', 'if-none-match'),
          weakList,
          // A PUT that goes ahead writes the same bytes: the object keeps the ETag the lists hold.
          (method, header, list) => sendConditional(ctx, o, method, header, list),
        ),
        { seed: ctx.fc.seed, numRuns: ctx.fc.numRuns },
      );
    },
  },
  {
    id: 's3.prop.cond-wildcard',
    title: 'The wildcard * matches any existing object and no missing one',
    clauses: ['s3.cond.wildcard'],
    observe: {
      selects: 'GET and HEAD with If-Match: * or If-None-Match: *, answered 200 or 304',
      observer: () => observeConditional('wildcard'),
    },
    async run(ctx) {
      const o = await withObject(ctx);
      let fresh = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.boolean(),
          fc.constantFrom<Method>('GET', 'HEAD', 'PUT'),
          fc.constantFrom<'if-match' | 'if-none-match'>('if-match', 'if-none-match'),
          async (exists, method, header) => {
            const key = exists ? o.key : `missing-${fresh++}`;
            const res = await ctx.http({
              method,
              bucket: o.bucket,
              key,
              headers: { [header]: '*' },
              body: method === 'PUT' ? BODY : undefined,
            });
            const what = describe(method, header, '*', res);
            if (exists) {
              const want = expected(method, header, true);
              expectThat(
                want.includes(res.status),
                `${what} on an existing object, expected ${either(want)}`,
              );
            } else if (header === 'if-none-match') {
              // Nothing matches a missing object: a read finds nothing, a write goes ahead.
              const want = method === 'PUT' ? 200 : 404;
              expectThat(res.status === want, `${what} on a missing object, expected ${want}`);
            } else {
              // Amazon S3 answers 404 where RFC 9110 says 412; either way nothing is written.
              expectThat(
                res.status === 404 || res.status === 412,
                `${what} on a missing object, expected 404 or 412`,
              );
            }
            if (!exists && method === 'PUT' && res.status === 200)
              await ctx.http({ method: 'DELETE', bucket: o.bucket, key });
          },
        ),
        { seed: ctx.fc.seed, numRuns: ctx.fc.numRuns },
      );
    },
  },
  {
    id: 's3.prop.cond-single',
    title:
      "GET and HEAD with one ETag, the object's or another, in If-Match or If-None-Match answer 200, 304 or 412 as it matches",
    clauses: ['s3.cond.get-not-modified'],
    observe: {
      selects: 'GET and HEAD with one strong ETag in If-Match or If-None-Match, answered 200 or 304',
      observer: () => observeConditional('single'),
    },
    async run(ctx) {
      const o = await withObject(ctx);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<Method>('GET', 'HEAD'),
          fc.constantFrom<'if-match' | 'if-none-match'>('if-match', 'if-none-match'),
          fc.oneof(fc.constant(ETAG), randomTag),
          async (method, header, tag) => {
            const res = await ctx.http({ method, bucket: o.bucket, key: o.key, headers: { [header]: tag } });
            const want = expectedSingle(method, header, tag === ETAG);
            expectThat(
              want.includes(res.status),
              `${describe(method, header, tag === ETAG ? 'its ETag' : 'another ETag', res)}, expected ${either(want)}`,
            );
          },
        ),
        { seed: ctx.fc.seed, numRuns: ctx.fc.numRuns },
      );
    },
  },
  {
    id: 's3.prop.cond-copy-source',
    title: 'CopyObject honours x-amz-copy-source-if-match and -if-none-match for matching and other ETags',
    clauses: ['s3.cond.copy-source'],
    async run(ctx) {
      const o = await withObject(ctx);
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('x-amz-copy-source-if-match', 'x-amz-copy-source-if-none-match'),
          fc.oneof(fc.constant(ETAG), randomTag),
          async (header, tag) => {
            const dest = `copy-${n++}`;
            const res = await ctx.http({
              method: 'PUT',
              bucket: o.bucket,
              key: dest,
              headers: { 'x-amz-copy-source': `/${o.bucket}/${o.key}`, [header]: tag },
            });
            const matches = tag === ETAG;
            const want = (header === 'x-amz-copy-source-if-match') === matches ? 200 : 412;
            expectThat(
              res.status === want,
              `CopyObject with ${header}: ${matches ? 'its ETag' : 'another ETag'} -> ${res.status}, expected ${want}`,
            );
            if (res.status === 200) await ctx.http({ method: 'DELETE', bucket: o.bucket, key: dest });
          },
        ),
        { seed: ctx.fc.seed, numRuns: ctx.fc.numRuns },
      );
    },
  },
];

export default properties;
