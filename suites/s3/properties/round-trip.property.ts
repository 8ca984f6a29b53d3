import { fc, generateBuffer, type PropertyContext, type PropertyDef, type WireResponse } from 'edgecheck/kit';
import { rawBucket } from './support/bucket.ts';
import { utf8Compare } from './support/keys.ts';
import { completeXml, md5 } from './support/multipart.ts';
import { expectThat } from './support/wire.ts';
import { parseListPage, xmlResult } from './support/xml.ts';

/*
 * Round trips: objects written with any key, user metadata, content headers and size, through
 * PutObject, CopyObject (COPY or REPLACE) and a one-part multipart upload, are read back through
 * GetObject, HeadObject and ListObjectsV2 and compared with a model of what was written. Each
 * property judges one clause, so that a server breaking one rule fails only that rule's property.
 */

const runs = (ctx: PropertyContext) =>
  ctx.profile === 'quick' ? Math.min(ctx.fc.numRuns, 4) : Math.min(ctx.fc.numRuns, 50);
const maxWrites = (ctx: PropertyContext) => (ctx.profile === 'quick' ? 4 : 10);
const maxSize = (ctx: PropertyContext) => (ctx.profile === 'quick' ? 1024 : 64 * 1024);

// ---- Keys ------------------------------------------------------------------------------------

/** Characters a URL or a query string gives a meaning to, and others clients encode. */
const SPECIAL = [
  ' ',
  '+',
  '%',
  '?',
  '#',
  '&',
  '=',
  ';',
  ':',
  '@',
  '$',
  ',',
  '!',
  '*',
  "'",
  '(',
  ')',
  '~',
  '[',
  ']',
  '<',
  '>',
  '"',
  '^',
  '`',
  '{',
  '}',
  '|',
  '\\',
  '.',
  '-',
  '_',
];

/**
 * One code point of a key: printable ASCII, URL-significant characters, BMP and astral code
 * points. No control characters (XML 1.0 cannot carry most of them in a listing), no surrogate
 * halves (not UTF-8), no noncharacters U+FFFE / U+FFFF.
 */
const codePoint = (upperBmp: boolean) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0x61, max: 0x7a }).map((c) => String.fromCodePoint(c)) },
    { weight: 3, arbitrary: fc.constantFrom(...SPECIAL) },
    { weight: 1, arbitrary: fc.constant('/') },
    { weight: 1, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCodePoint(c)) },
    {
      weight: 2,
      arbitrary: (upperBmp
        ? fc.oneof(fc.integer({ min: 0xa0, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0xfffd }))
        : fc.integer({ min: 0xa0, max: 0xd7ff })
      ).map((c) => String.fromCodePoint(c)),
    },
    { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)) },
  );

/**
 * A key of 1 to 24 code points. HTTP clients normalise a path's empty, `.` and `..` segments
 * before a request is sent (RFC 3986 section 5.2.4), so no key has any: none begins or ends
 * with `/`, holds `//`, or has a segment that is only dots of one or two.
 */
const keyArbOf = (upperBmp: boolean) =>
  fc
    .array(codePoint(upperBmp), { minLength: 1, maxLength: 24 })
    .map((a) => a.join(''))
    .filter((k) => k.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..'));

const roundTripKeyArb = keyArbOf(true);

/**
 * Keys for the listing property: without U+E000 to U+FFFD, the one range where UTF-16 code unit
 * order (JavaScript's string order) and UTF-8 byte order (S3's) disagree, against the astral
 * code points. The reference orders keys by UTF-16 code units; that departure is noted in
 * suites/s3/README.md, not judged here.
 */
const listingKeyArb = keyArbOf(false);

// ---- Metadata and content headers --------------------------------------------------------------

type ContentHeader =
  | 'content-type'
  | 'cache-control'
  | 'content-disposition'
  | 'content-encoding'
  | 'content-language'
  | 'expires';

const CONTENT_HEADERS: ContentHeader[] = [
  'content-type',
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'expires',
];

interface Attrs {
  /** User metadata by lower-case name (without x-amz-meta-). */
  meta: Record<string, string>;
  headers: Partial<Record<ContentHeader, string>>;
}

const token = (min: number, max: number) =>
  fc.stringMatching(new RegExp(`^[a-z][a-z0-9-]{${min - 1},${max - 1}}$`));

/**
 * A value as HTTP carries it unchanged: printable ASCII, no whitespace at either end (RFC 9110
 * trims it), no runs of spaces.
 */
const metaValue = fc
  .array(
    fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    { minLength: 1, maxLength: 24 },
  )
  .map((a) => a.join('').replace(/ +/g, ' ').trim())
  .filter((v) => v.length > 0);

const metaArb = fc
  .uniqueArray(fc.tuple(token(1, 12), metaValue), { maxLength: 4, selector: ([name]) => name })
  .map((entries) => Object.fromEntries(entries));

const contentTypeArb = fc
  .tuple(
    fc.constantFrom('text', 'application', 'image', 'audio', 'video', 'x-custom'),
    token(1, 10),
    fc.option(fc.constantFrom('; charset=utf-8', '; charset=iso-8859-1', '; version=2'), { nil: '' }),
  )
  .map(([type, sub, param]) => `${type}/${sub}${param}`);

const cacheControlArb = fc
  .uniqueArray(
    fc.oneof(
      fc.constantFrom(
        'no-cache',
        'no-store',
        'private',
        'public',
        'must-revalidate',
        'immutable',
        'no-transform',
      ),
      fc.nat(10_000_000).map((n) => `max-age=${n}`),
      fc.nat(86_400).map((n) => `s-maxage=${n}`),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((d) => d.join(', '));

const contentDispositionArb = fc.oneof(
  fc.constantFrom('inline', 'attachment'),
  fc
    .tuple(fc.constantFrom('inline', 'attachment'), fc.stringMatching(/^[A-Za-z0-9_-]{1,10}\.[a-z]{1,4}$/))
    .map(([kind, name]) => `${kind}; filename="${name}"`),
);

const languageArb = fc
  .array(
    fc
      .tuple(fc.stringMatching(/^[a-z]{2}$/), fc.option(fc.stringMatching(/^[A-Z]{2}$/), { nil: undefined }))
      .map(([l, r]) => (r ? `${l}-${r}` : l)),
    { minLength: 1, maxLength: 2 },
  )
  .map((l) => l.join(', '));

/** An HTTP date (IMF-fixdate, RFC 9110 section 5.6.7), whole seconds from 1990 to 2099. */
const expiresArb = fc
  .integer({ min: Date.UTC(1990, 0, 1) / 1000, max: Date.UTC(2099, 11, 31) / 1000 })
  .map((s) => new Date(s * 1000).toUTCString());

const headersArb: fc.Arbitrary<Attrs['headers']> = fc.record(
  {
    'content-type': contentTypeArb,
    'cache-control': cacheControlArb,
    'content-disposition': contentDispositionArb,
    'content-encoding': fc.constantFrom('identity', 'gzip', 'br', 'deflate, gzip'),
    'content-language': languageArb,
    expires: expiresArb,
  },
  { requiredKeys: [] },
);

const attrsArb: fc.Arbitrary<Attrs> = fc.record({ meta: metaArb, headers: headersArb });

function requestHeaders(a: Attrs): Record<string, string> {
  const h: Record<string, string> = {};
  for (const [name, value] of Object.entries(a.headers)) h[name] = value;
  for (const [name, value] of Object.entries(a.meta)) h[`x-amz-meta-${name}`] = value;
  return h;
}

// ---- Scripts and the model ---------------------------------------------------------------------

/** A key: a new one, or (by index, modulo) one written before, which the write replaces. */
type KeyChoice = { fresh: string } | { earlier: number };

type Op =
  | { kind: 'put'; key: KeyChoice; attrs: Attrs; size: number; seed: number }
  | { kind: 'mpu'; key: KeyChoice; attrs: Attrs; size: number; seed: number }
  /** CopyObject from an earlier key; `replace` set means x-amz-metadata-directive REPLACE. */
  | { kind: 'copy'; from: number; key: KeyChoice; replace?: Attrs; explicitCopy: boolean };

const keyChoiceArb = (keys: fc.Arbitrary<string>): fc.Arbitrary<KeyChoice> =>
  fc.oneof(
    { weight: 4, arbitrary: keys.map((fresh) => ({ fresh })) },
    { weight: 1, arbitrary: fc.nat().map((earlier) => ({ earlier })) },
  );

function writeArb(
  ctx: PropertyContext,
  kind: 'put' | 'mpu',
  keys: fc.Arbitrary<string>,
  first = false,
): fc.Arbitrary<Op> {
  return fc.record({
    kind: fc.constant(kind),
    key: first ? keys.map((fresh): KeyChoice => ({ fresh })) : keyChoiceArb(keys),
    attrs: attrsArb,
    size: fc.integer({ min: 0, max: maxSize(ctx) }),
    seed: fc.nat(1_000_000),
  });
}

const copyArb = (keys: fc.Arbitrary<string>): fc.Arbitrary<Op> =>
  fc.record(
    {
      kind: fc.constant('copy' as const),
      from: fc.nat(),
      key: keyChoiceArb(keys),
      replace: attrsArb,
      explicitCopy: fc.boolean(),
    },
    { requiredKeys: ['kind', 'from', 'key', 'explicitCopy'] },
  );

/** A script: writes of the given kinds, the first a write (copies need a source). */
function scriptArb(
  ctx: PropertyContext,
  kinds: ('put' | 'mpu' | 'copy')[],
  keys: fc.Arbitrary<string> = roundTripKeyArb,
): fc.Arbitrary<Op[]> {
  const first = kinds.includes('mpu') && !kinds.includes('put') ? 'mpu' : 'put';
  const op = fc.oneof(...kinds.map((k) => (k === 'copy' ? copyArb(keys) : writeArb(ctx, k, keys))));
  // With copies, the last write is one, so that every run copies something.
  const last = kinds.includes('copy') ? copyArb(keys).map((c) => [c]) : fc.constant([] as Op[]);
  return fc
    .tuple(writeArb(ctx, first, keys, true), fc.array(op, { maxLength: maxWrites(ctx) - 2 }), last)
    .map(([a, rest, end]) => [a, ...rest, ...end]);
}

interface Stored extends Attrs {
  bytes: Buffer;
  /** How it was written, for messages. */
  how: string;
  /** The ETag a copy of it must carry: what its PutObject answered, or its source's. */
  etag?: string;
  /** Set for copies: the ETag the copy answered in CopyObjectResult, and its source's key. */
  copy?: { answered?: string; source: string };
}

/** What was written, in order of writing; `keys` resolves a KeyChoice. */
class Model {
  readonly objects = new Map<string, Stored>();
  resolve(choice: KeyChoice): string {
    if ('fresh' in choice) return choice.fresh;
    const keys = [...this.objects.keys()];
    return keys[choice.earlier % keys.length];
  }
}

let worldCount = 0;

/** One bucket per property; each run writes under a namespace of its own (`r<n>/`). */
function worlds(ctx: PropertyContext, label: string) {
  let bucket: Promise<string> | undefined;
  return async () => {
    bucket ??= rawBucket(ctx, label);
    return { bucket: await bucket, ns: `r${worldCount++}/` };
  };
}

interface World {
  bucket: string;
  ns: string;
}

/** x-amz-copy-source: /bucket/key, each segment percent-encoded. */
function copySource(bucket: string, key: string): string {
  return `/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

const show = (v: unknown) => JSON.stringify(v);

async function put(
  ctx: PropertyContext,
  w: World,
  key: string,
  op: Extract<Op, { kind: 'put' }>,
  model: Model,
) {
  const bytes = generateBuffer(op.seed, 0, op.size);
  const res = await ctx.http({
    method: 'PUT',
    bucket: w.bucket,
    key: w.ns + key,
    headers: requestHeaders(op.attrs),
    body: bytes,
  });
  // A refused write is a setup this property cannot go on without: blocked, as a case's would be.
  if (res.status !== 200)
    ctx.blocked(
      `PutObject of ${show(key)} with ${show(requestHeaders(op.attrs))} answered ${res.status}: ${res.text().slice(0, 160)}`,
    );
  model.objects.set(key, { ...op.attrs, bytes, how: 'PutObject', etag: res.headers.etag });
}

async function multipart(
  ctx: PropertyContext,
  w: World,
  key: string,
  op: Extract<Op, { kind: 'mpu' }>,
  model: Model,
) {
  const bytes = generateBuffer(op.seed, 0, op.size);
  const k = w.ns + key;
  const created = await ctx.http({
    method: 'POST',
    bucket: w.bucket,
    key: k,
    query: { uploads: '' },
    headers: requestHeaders(op.attrs),
  });
  const uploadId = xmlResult(created.text(), 'InitiateMultipartUploadResult')?.UploadId;
  if (created.status !== 200) {
    ctx.blocked(
      `CreateMultipartUpload of ${show(key)} with ${show(requestHeaders(op.attrs))} answered ${created.status}`,
    );
  }
  if (!uploadId)
    ctx.unjudgeable(
      `CreateMultipartUpload of ${show(key)} with ${show(requestHeaders(op.attrs))} answered ${created.status}`,
    );
  const query = { uploadId: String(uploadId) };
  const part = await ctx.http({
    method: 'PUT',
    bucket: w.bucket,
    key: k,
    query: { ...query, partNumber: '1' },
    body: bytes,
  });
  // A last part may be small (behaviour 11); refusing it is s3.mpu.size-checked-at-complete's to judge.
  if (part.status !== 200 || !part.headers.etag)
    ctx.blocked(`UploadPart of a single ${op.size}-byte part answered ${part.status}; nothing to complete`);
  const done = await ctx.http({
    method: 'POST',
    bucket: w.bucket,
    key: k,
    query,
    body: completeXml([{ number: 1, etag: part.headers.etag }]),
  });
  if (done.status !== 200)
    ctx.blocked(
      `CompleteMultipartUpload of ${show(key)} answered ${done.status}: ${done.text().slice(0, 160)}`,
    );
  if (!xmlResult(done.text(), 'CompleteMultipartUploadResult'))
    ctx.unjudgeable(
      `CompleteMultipartUpload of ${show(key)} answered ${done.status}: ${done.text().slice(0, 160)}`,
    );
  model.objects.set(key, { ...op.attrs, bytes, how: 'a one-part multipart upload' });
}

async function copy(
  ctx: PropertyContext,
  w: World,
  key: string,
  op: Extract<Op, { kind: 'copy' }>,
  model: Model,
) {
  const keys = [...model.objects.keys()];
  const from = keys[op.from % keys.length];
  const src = model.objects.get(from)!;
  const headers: Record<string, string> = { 'x-amz-copy-source': copySource(w.bucket, w.ns + from) };
  if (op.replace)
    Object.assign(headers, requestHeaders(op.replace), { 'x-amz-metadata-directive': 'REPLACE' });
  else if (op.explicitCopy) headers['x-amz-metadata-directive'] = 'COPY';
  const res = await ctx.http({ method: 'PUT', bucket: w.bucket, key: w.ns + key, headers });
  if (res.status !== 200)
    ctx.blocked(
      `CopyObject ${show(from)} -> ${show(key)} answered ${res.status}: ${res.text().slice(0, 160)}`,
    );
  const result = xmlResult(res.text(), 'CopyObjectResult');
  if (!result)
    ctx.unjudgeable(
      `CopyObject ${show(from)} -> ${show(key)} answered ${res.status}: ${res.text().slice(0, 160)}`,
    );
  const attrs: Attrs = op.replace ?? { meta: src.meta, headers: src.headers };
  const directive = op.replace ? 'REPLACE' : op.explicitCopy ? 'COPY' : 'no directive';
  model.objects.set(key, {
    ...attrs,
    bytes: src.bytes,
    how: `CopyObject from ${show(from)} (${directive})`,
    etag: src.etag,
    copy: { answered: result.ETag === undefined ? undefined : String(result.ETag), source: from },
  });
}

/** Runs a script; a copy onto its own source is left out (s3.copy.onto-itself has rules of its own). */
async function play(ctx: PropertyContext, w: World, ops: Op[]): Promise<Model> {
  const model = new Model();
  for (const op of ops) {
    const key = model.resolve(op.key);
    if (op.kind === 'put') await put(ctx, w, key, op, model);
    else if (op.kind === 'mpu') await multipart(ctx, w, key, op, model);
    else {
      const keys = [...model.objects.keys()];
      if (keys[op.from % keys.length] === key) continue;
      await copy(ctx, w, key, op, model);
    }
  }
  return model;
}

// ---- Judging -------------------------------------------------------------------------------------

interface Reads {
  get: WireResponse;
  head: WireResponse;
}

async function read(ctx: PropertyContext, w: World, key: string): Promise<Reads> {
  const [get, head] = await Promise.all([
    ctx.http({ method: 'GET', bucket: w.bucket, key: w.ns + key }),
    ctx.http({ method: 'HEAD', bucket: w.bucket, key: w.ns + key }),
  ]);
  for (const [what, res] of [
    ['GET', get],
    ['HEAD', head],
  ] as const)
    expectThat(res.status === 200, `${what} ${show(key)} answered ${res.status}, not 200`);
  return { get, head };
}

function metaOf(res: WireResponse): Record<string, string> {
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
    for (const key of page.keys)
      keys.push(key.startsWith(w.ns) ? key.slice(w.ns.length) : `(outside the prefix) ${key}`);
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
): PropertyDef {
  return {
    id,
    title,
    clauses: [clause],
    // Quick: 4 runs of at most 4 writes (up to 3 requests each) and a GET and HEAD of each.
    requests: 4 * (4 * 3 + 4 * 2),
    async run(ctx) {
      const world = worlds(ctx, label);
      await fc.assert(
        fc.asyncProperty(scriptArb(ctx, kinds), async (ops) => {
          const w = await world();
          const model = await play(ctx, w, ops);
          await check(ctx, w, model);
        }),
        { seed: ctx.fc.seed, numRuns: runs(ctx) },
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

const properties: PropertyDef[] = [
  roundTrip(
    's3.prop.round-trip-metadata',
    'For any keys and user metadata, PutObject stores exactly the metadata GET and HEAD return',
    's3.object.user-metadata',
    'rtmeta',
    ['put'],
    (ctx, w, model) => eachRead(ctx, w, model, checkMeta),
  ),
  roundTrip(
    's3.prop.round-trip-headers',
    'For any keys, content headers and sizes, GET and HEAD return the headers and bytes PutObject stored',
    's3.object.content-headers',
    'rthead',
    ['put'],
    (ctx, w, model) => eachRead(ctx, w, model, checkHeaders),
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
  ),
  roundTrip(
    's3.prop.round-trip-copy-etag',
    'For any chain of copies, each copy has its source ETag in CopyObjectResult and on HEAD',
    's3.copy.etag',
    'rtcetag',
    ['put', 'copy'],
    async (ctx, w, model) => {
      for (const [key, o] of model.objects) {
        if (!o.copy) continue;
        expectThat(
          o.copy.answered === o.etag,
          `CopyObject ${show(o.copy.source)} -> ${show(key)}: CopyObjectResult ETag ${o.copy.answered}, source ETag ${o.etag}`,
        );
        const head = await ctx.http({ method: 'HEAD', bucket: w.bucket, key: w.ns + key });
        expectThat(
          head.headers.etag === o.etag,
          `HEAD ${show(key)} (${o.how}): ETag ${head.headers.etag} (status ${head.status}), source ETag ${o.etag}`,
        );
      }
    },
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
