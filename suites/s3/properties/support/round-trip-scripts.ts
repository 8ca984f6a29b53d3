import { fc, type PropertyContext } from 'edgecheck/kit';

/*
 * What the round-trip properties write: keys, user metadata, content headers and sizes, and
 * scripts of PutObject, CopyObject and one-part multipart writes (round-trip.property.ts).
 */

export const runs = (ctx: PropertyContext) =>
  ctx.profile === 'quick' ? Math.min(ctx.fc.numRuns, 4) : Math.min(ctx.fc.numRuns, 50);
export const maxWrites = (ctx: PropertyContext) => (ctx.profile === 'quick' ? 4 : 10);
export const maxSize = (ctx: PropertyContext) => (ctx.profile === 'quick' ? 1024 : 64 * 1024);

// ---- Keys ------------------------------------------------------------------------------------

/** Characters a URL or a query string gives a meaning to, and others clients encode. */
export const SPECIAL = [
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
export const codePoint = (upperBmp: boolean) =>
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
export const keyArbOf = (upperBmp: boolean) =>
  fc
    .array(codePoint(upperBmp), { minLength: 1, maxLength: 24 })
    .map((a) => a.join(''))
    .filter((k) => k.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..'));

export const roundTripKeyArb = keyArbOf(true);

/**
 * Keys for the listing property: every code point the round trip takes, U+E000 to U+FFFD among
 * them, the one range where UTF-16 code unit order (JavaScript's) and UTF-8 byte order (S3's)
 * disagree against the code points above U+FFFF.
 */
export const listingKeyArb = keyArbOf(true);

// ---- Metadata and content headers --------------------------------------------------------------

export type ContentHeader =
  | 'content-type'
  | 'cache-control'
  | 'content-disposition'
  | 'content-encoding'
  | 'content-language'
  | 'expires';

export const CONTENT_HEADERS: ContentHeader[] = [
  'content-type',
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'expires',
];

export interface Attrs {
  /** User metadata by lower-case name (without x-amz-meta-). */
  meta: Record<string, string>;
  headers: Partial<Record<ContentHeader, string>>;
}

export const token = (min: number, max: number) =>
  fc.stringMatching(new RegExp(`^[a-z][a-z0-9-]{${min - 1},${max - 1}}$`));

/**
 * A value as HTTP carries it unchanged: printable ASCII, no whitespace at either end (RFC 9110
 * trims it), no runs of spaces.
 */
export const metaValue = fc
  .array(
    fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    { minLength: 1, maxLength: 24 },
  )
  .map((a) => a.join('').replace(/ +/g, ' ').trim())
  .filter((v) => v.length > 0);

export const metaArb = fc
  .uniqueArray(fc.tuple(token(1, 12), metaValue), { maxLength: 4, selector: ([name]) => name })
  .map((entries) => Object.fromEntries(entries));

export const contentTypeArb = fc
  .tuple(
    fc.constantFrom('text', 'application', 'image', 'audio', 'video', 'x-custom'),
    token(1, 10),
    fc.option(fc.constantFrom('; charset=utf-8', '; charset=iso-8859-1', '; version=2'), { nil: '' }),
  )
  .map(([type, sub, param]) => `${type}/${sub}${param}`);

export const cacheControlArb = fc
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

export const contentDispositionArb = fc.oneof(
  fc.constantFrom('inline', 'attachment'),
  fc
    .tuple(fc.constantFrom('inline', 'attachment'), fc.stringMatching(/^[A-Za-z0-9_-]{1,10}\.[a-z]{1,4}$/))
    .map(([kind, name]) => `${kind}; filename="${name}"`),
);

export const languageArb = fc
  .array(
    fc
      .tuple(fc.stringMatching(/^[a-z]{2}$/), fc.option(fc.stringMatching(/^[A-Z]{2}$/), { nil: undefined }))
      .map(([l, r]) => (r ? `${l}-${r}` : l)),
    { minLength: 1, maxLength: 2 },
  )
  .map((l) => l.join(', '));

/** An HTTP date (IMF-fixdate, RFC 9110 section 5.6.7), whole seconds from 1990 to 2099. */
export const expiresArb = fc
  .integer({ min: Date.UTC(1990, 0, 1) / 1000, max: Date.UTC(2099, 11, 31) / 1000 })
  .map((s) => new Date(s * 1000).toUTCString());

export const headersArb: fc.Arbitrary<Attrs['headers']> = fc.record(
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

export const attrsArb: fc.Arbitrary<Attrs> = fc.record({ meta: metaArb, headers: headersArb });

export function requestHeaders(a: Attrs): Record<string, string> {
  const h: Record<string, string> = {};
  for (const [name, value] of Object.entries(a.headers)) h[name] = value;
  for (const [name, value] of Object.entries(a.meta)) h[`x-amz-meta-${name}`] = value;
  return h;
}

// ---- Scripts and the model ---------------------------------------------------------------------

/** A key: a new one, or (by index, modulo) one written before, which the write replaces. */
export type KeyChoice = { fresh: string } | { earlier: number };

export type Op =
  | { kind: 'put'; key: KeyChoice; attrs: Attrs; size: number; seed: number }
  | { kind: 'mpu'; key: KeyChoice; attrs: Attrs; size: number; seed: number }
  /** CopyObject from an earlier key; `replace` set means x-amz-metadata-directive REPLACE. */
  | { kind: 'copy'; from: number; key: KeyChoice; replace?: Attrs; explicitCopy: boolean };

export const keyChoiceArb = (keys: fc.Arbitrary<string>): fc.Arbitrary<KeyChoice> =>
  fc.oneof(
    { weight: 4, arbitrary: keys.map((fresh) => ({ fresh })) },
    { weight: 1, arbitrary: fc.nat().map((earlier) => ({ earlier })) },
  );

export function writeArb(
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

export const copyArb = (keys: fc.Arbitrary<string>): fc.Arbitrary<Op> =>
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
export function scriptArb(
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
