import type { S3Call } from './call.ts';
import { headerValue } from './call.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { invalidArgument, notImplemented, S3Error } from './errors.ts';
import { caseInsensitiveOrder, keyOrder, localeOrder, utf16Order } from './key-order.ts';
import { boundedInt } from './multipart.ts';
import { sendResult } from './respond.ts';

/** Parameters ListObjects / ListObjectsV2 understand; any other is rejected with 501 (SPEC behaviour 6). */
const LIST_PARAMS = new Set([
  'list-type',
  'prefix',
  'delimiter',
  'encoding-type',
  'max-keys',
  'marker',
  'start-after',
  'continuation-token',
  'fetch-owner',
]);

export interface Page<T> {
  items: T[];
  prefixes: string[];
  truncated: boolean;
  /** The last key or common prefix returned: where the next page starts. */
  last?: string;
}

/** A file system's order, segment by segment (a/1 before a-x), where S3 orders keys by their bytes. */
function byPathSegments(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}

/**
 * The order a page's keys are sorted in: `compare` (S3's), or under a fault another that only
 * sorts, each asked only where it would change the order of the bucket's keys: case-insensitive
 * (keys differing in case only there), or, for ListObjects (V1) alone, the locale's collation.
 */
function pageOrder(
  f: S3Call['ctx']['faults'],
  v2: boolean,
  keys: Iterable<string>,
  compare: (a: string, b: string) => number,
): (a: string, b: string) => number {
  const all = [...keys];
  const differs = (other: (a: string, b: string) => number) => {
    const mine = [...all].sort(compare);
    return [...all].sort(other).some((k, i) => k !== mine[i]);
  };
  const cased = all.some((k) => k.toLowerCase() !== k);
  if (cased && differs(caseInsensitiveOrder) && f.has('s3-list-case-insensitive-order'))
    return caseInsensitiveOrder;
  if (!v2 && differs(localeOrder) && f.has('s3-list-v1-locale-order')) return localeOrder;
  return compare;
}

/**
 * One page of a sorted key space (SPEC behaviour 13): keys after `after`, grouped into common prefixes by
 * `delimiter`; truncated only when something is left after `max` entries (no cursor when exactly max remain).
 */
export function paginate<T>(
  sorted: [string, T][],
  opts: {
    prefix: string;
    delimiter: string;
    after: string;
    /** The last entry of the page a continuation token continues: listed there, never again. */
    given?: string;
    /** How keys sort (keyOrder: S3's; another under a fault). */
    compare?: (a: string, b: string) => number;
    /** Under a fault: list the key equal to `after` too. */
    afterInclusive?: boolean;
    max: number;
    /** Faults, asked only where they would change the page. */
    cursorAtMax: () => boolean;
    /** Under a fault: a full page takes one entry more (a <= where < belongs). */
    oneOverMax?: () => boolean;
    emptyFolderAsKey?: () => boolean;
    /** Under a fault: keys at or before `after` still give their common prefix. */
    prefixesBeforeAfter?: () => boolean;
    /** Where a continuation token resumes: a prefix the fault above lists again sorts after it. */
    resumedAfter?: string;
    /** Under a fault: keys holding the delimiter twice or more after the prefix are left out. */
    nestedKeysDropped?: () => boolean;
  },
): Page<T> {
  const items: T[] = [];
  const prefixes: string[] = [];
  let last: string | undefined;
  let truncated = false;
  const rollUp = (key: string): string | undefined => {
    if (!opts.delimiter) return undefined;
    const i = key.indexOf(opts.delimiter, opts.prefix.length);
    return i < 0 ? undefined : key.slice(0, i + opts.delimiter.length);
  };
  for (const [key, value] of sorted) {
    if (!key.startsWith(opts.prefix)) continue;
    const order = (opts.compare ?? keyOrder)(key, opts.after);
    if (order < 0 || (order === 0 && !opts.afterInclusive)) {
      // Under a fault, the marker is applied to keys only: their common prefix is listed all the same.
      const before = rollUp(key);
      if (before === undefined || before === last || before === opts.after || !opts.prefixesBeforeAfter?.())
        continue;
      // A later page goes on from its token: what an earlier page listed again is not listed twice.
      if (opts.resumedAfter !== undefined && (opts.compare ?? keyOrder)(before, opts.resumedAfter) <= 0)
        continue;
    }
    let group = rollUp(key);
    if (group === key && opts.emptyFolderAsKey?.()) group = undefined;
    // Keys under a common prefix already returned (on this page or an earlier one) are skipped.
    if (group !== undefined && (group === last || group === opts.after || group === opts.given)) continue;
    // Under a fault, a key two delimiters deep is neither a key nor part of a common prefix.
    if (group !== undefined && key.indexOf(opts.delimiter, group.length) >= 0 && opts.nestedKeysDropped?.())
      continue;
    const n = items.length + prefixes.length;
    if (n >= opts.max && !(n === opts.max && opts.max > 0 && opts.oneOverMax?.())) {
      truncated = opts.max > 0;
      break;
    }
    if (group !== undefined) {
      prefixes.push(group);
      last = group;
    } else {
      items.push(value);
      last = key;
    }
  }
  if (!truncated && opts.max > 0 && items.length + prefixes.length === opts.max && opts.cursorAtMax())
    truncated = true;
  return { items, prefixes, truncated, last };
}

export function urlEncodeKey(s: string): string {
  return encodeURIComponent(s).replace(/%2F/g, '/');
}

/** SPEC behaviour 6: a search parameter the listing does not support is refused with 501. */
function refuseUnsupportedParams(call: S3Call): void {
  for (const name of call.query.keys()) {
    if (
      !LIST_PARAMS.has(name) &&
      !ignoredParam(name) &&
      !call.ctx.faults.has('s3-list-unknown-params-ignored') &&
      // Under a fault, only ListObjectsV2 validates its parameters.
      !(call.query.get('list-type') !== '2' && call.ctx.faults.has('s3-list-v1-unknown-params-ignored'))
    ) {
      if (call.ctx.faults.has('s3-list-unknown-params-other-code'))
        throw new S3Error(
          501,
          'UnsupportedQueryParameter',
          `The ListObjects parameter '${name}' is not supported.`,
        );
      throw notImplemented(`The ListObjects parameter '${name}'`);
    }
  }
}

export function listObjects(call: S3Call): void {
  const bucket = call.store.bucket(call.bucket);
  refuseUnsupportedParams(call);
  const q = call.query;
  const v2 = q.get('list-type') === '2';
  if (q.has('list-type') && !v2) throw invalidArgument('list-type must be 2.');
  const encodingType = q.get('encoding-type');
  if (encodingType !== null && encodingType !== 'url')
    throw invalidArgument('Invalid Encoding Method specified in Request');
  const encode =
    encodingType === 'url' && !call.ctx.faults.has('s3-list-encoding-ignored')
      ? urlEncodeKey
      : (s: string) => s;
  // Each fault is asked only where it would change the answer (fault-trace.ts counts every ask).
  const f = call.ctx.faults;
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const maxKeys = boundedInt(q.get('max-keys'), 1000, 'max-keys');
  if (maxKeys === 0 && f.has('s3-list-max-keys-zero-rejected'))
    throw invalidArgument('max-keys must be at least 1.');
  // Under a fault, keys are ordered by UTF-16 code units, as JavaScript's < does.
  const compare = f.has('s3-list-utf16-order') ? utf16Order : keyOrder;
  const token = q.get('continuation-token');
  let after = v2 ? (q.get('start-after') ?? '') : (q.get('marker') ?? '');
  if (after && f.has('s3-list-start-after-ignored')) after = '';
  // Under a fault, the key equal to start-after is listed too (>= instead of >).
  const afterInclusive =
    after !== '' && !(v2 && token) && bucket.objects.has(after) && f.has('s3-list-start-after-inclusive');
  // An empty continuation-token is no token the reference issued: refused as Amazon S3 is seen to refuse
  // it (400 InvalidArgument). No clause judges it: SPEC is silent and Amazon S3 documents nothing.
  let cursor: { after: string } | undefined;
  if (v2 && token !== null) {
    cursor = decodeCursor(token, (kind) => f.has(cursorFault(kind)));
    // Under a fault, the page restarts at the last key already returned.
    const resume = f.has('s3-list-pagination-repeats-last') ? cursor.after.slice(0, -1) : cursor.after;
    if (compare(resume, after) > 0) after = resume;
  }
  const order = f.has('s3-list-path-order')
    ? byPathSegments
    : pageOrder(f, v2, bucket.objects.keys(), compare);
  const sorted = [...bucket.objects.entries()].sort((a, b) => order(a[0], b[0]));
  const pageOpts = pageOptions(f, { v2, compare, prefix, delimiter, after, afterInclusive, cursor, maxKeys });
  const page = paginate(sorted, pageOpts);
  const owner = { ID: call.ctx.ids.accountId, DisplayName: call.ctx.ids.accountId };
  const listedAt = new Date();
  // Under a fault, keys are URL-encoded whether or not encoding-type asked it.
  const encodeKey = (k: string) =>
    encodingType !== 'url' && urlEncodeKey(k) !== k && f.has('s3-list-keys-always-encoded')
      ? urlEncodeKey(k)
      : encode(k);
  const contents = page.items.map((o) => ({
    Key: encodeKey(o.key),
    // Under a fault, the time of the listing stands for each key's; under another, ETags lose their quotes.
    LastModified: listedDate(f.has('s3-list-last-modified-now') ? listedAt : o.lastModified, f),
    ETag: f.has('s3-list-etag-unquoted') ? o.etag.replace(/^"|"$/g, '') : o.etag,
    Size: o.blob.size,
    StorageClass: 'STANDARD',
    ...(ownerOf(f, v2, q.get('fetch-owner'), owner) ?? {}),
  }));
  // Under a fault, ListObjects (V1) encodes keys but leaves its common prefixes as stored.
  const prefixesUnencoded = (p: string) => !v2 && encode(p) !== p && f.has('s3-list-v1-prefixes-unencoded');
  const common = page.prefixes.map((p) => ({ Prefix: prefixesUnencoded(p) ? p : encode(p) }));
  // Under a fault, a truncated page counts every entry from its start to the listing's end.
  const rest = () => {
    const all = paginate(sorted, { ...pageOpts, max: Number.MAX_SAFE_INTEGER });
    return all.items.length + all.prefixes.length;
  };
  const asked = q.has('max-keys');
  const { keyCount, truncated, echoedMaxKeys } = pageClaims(f, page, { v2, maxKeys, asked, rest });
  // Under a fault, one element that echoes the request (or NextMarker) is sent as asked, unencoded.
  const echo = (s: string, fault: string) => (encode(s) !== s && f.has(fault) ? s : encode(s));
  // Under a control fault, the answer leaves out the Prefix element that echoes the request.
  const omitted = f.has('s3-list-echoes-omitted');
  const shared = {
    Name: call.bucket,
    ...(omitted ? {} : { Prefix: echo(prefix, 's3-list-prefix-echo-unencoded') }),
    ...(delimiter ? { Delimiter: echo(delimiter, 's3-list-delimiter-echo-unencoded') } : {}),
    ...(q.has('max-keys') && f.has('s3-list-max-keys-echo-omitted') ? {} : { MaxKeys: echoedMaxKeys }),
    ...(encodingType === 'url' ? { EncodingType: 'url' } : {}),
    IsTruncated: truncated,
  };
  const entries = { Contents: contents, CommonPrefixes: common };
  const doc = v2
    ? { ...shared, KeyCount: keyCount, ...v2Cursors(call, page, token, cursor, echo), ...entries }
    : {
        ...shared,
        Marker: echo(q.get('marker') ?? '', 's3-list-marker-echo-unencoded'),
        // SPEC behaviour 13: NextMarker only when the listing is truncated.
        ...(page.last !== undefined && (truncated || f.has('s3-list-next-marker-always'))
          ? { NextMarker: echo(page.last, 's3-list-next-marker-unencoded') }
          : {}),
        ...entries,
      };
  sendResult(call.res, 'ListBucketResult', doc, {}, call.ctx);
}

/**
 * What a page says of itself: its KeyCount, whether it is truncated, and the MaxKeys it echoes (the
 * max-keys asked, 1000 by default, as Amazon S3 answers), each with the faults that say otherwise.
 */
function pageClaims(
  f: S3Call['ctx']['faults'],
  page: ReturnType<typeof paginate>,
  { v2, maxKeys, asked, rest }: { v2: boolean; maxKeys: number; asked: boolean; rest: () => number },
): { keyCount: number; truncated: boolean; echoedMaxKeys: number } {
  const entries = page.items.length + page.prefixes.length;
  const keyCount =
    page.prefixes.length > 0 && f.has('s3-list-keycount-without-prefixes')
      ? page.items.length
      : page.truncated && f.has('s3-list-keycount-whole-listing')
        ? rest()
        : entries;
  // Under a fault, a ListObjects (V1) page cut at max-keys says it is not truncated, and gives no NextMarker;
  // under another, a V1 page that lists the rest of the listing, fewer entries than max-keys, says it is.
  const truncated = page.truncated
    ? !(!v2 && f.has('s3-list-v1-truncated-false-lies'))
    : !v2 && page.last !== undefined && entries < maxKeys && f.has('s3-list-v1-end-claims-truncated');
  // Under faults, MaxKeys is 1000 whatever was asked, or one more than asked (asked only of a page
  // that asked one: most listings ask none).
  const echoedMaxKeys =
    maxKeys !== 1000 && f.has('s3-list-max-keys-echo-1000')
      ? 1000
      : asked && f.has('s3-list-max-keys-echo-plus-one')
        ? maxKeys + 1
        : maxKeys;
  return { keyCount, truncated, echoedMaxKeys };
}

/**
 * Each key's Owner: always in ListObjects (V1), in ListObjectsV2 only with fetch-owner=true. Under
 * faults, each asked only where fetch-owner is sent, it is ignored when true, or taken as true
 * whatever its value, or the Owner given has no ID.
 */
function ownerOf(
  f: S3Call['ctx']['faults'],
  v2: boolean,
  fetchOwner: string | null,
  owner: { ID: string; DisplayName: string },
): { Owner: Partial<typeof owner> } | undefined {
  if (!v2) return { Owner: owner };
  if (fetchOwner === null) return undefined;
  if (fetchOwner !== 'true')
    return f.has('s3-list-fetch-owner-present-means-true') ? { Owner: owner } : undefined;
  if (f.has('s3-list-fetch-owner-ignored')) return undefined;
  return f.has('s3-list-fetch-owner-display-name-only')
    ? { Owner: { DisplayName: owner.DisplayName } }
    : { Owner: owner };
}

/** How a page is cut from the sorted keys, with the faults that cut it otherwise. */
function pageOptions(
  f: S3Call['ctx']['faults'],
  o: {
    v2: boolean;
    compare: (a: string, b: string) => number;
    prefix: string;
    delimiter: string;
    after: string;
    afterInclusive: boolean;
    cursor: { after: string } | undefined;
    maxKeys: number;
  },
) {
  return {
    compare: o.compare,
    // Under a fault, the ListObjects (V1) path forgets the prefix that ListObjectsV2 honours.
    prefix:
      o.prefix && (f.has('s3-list-prefix-ignored') || (!o.v2 && f.has('s3-list-v1-prefix-ignored')))
        ? ''
        : o.prefix,
    delimiter: o.delimiter && f.has('s3-list-delimiter-ignored') ? '' : o.delimiter,
    after: o.after,
    afterInclusive: o.afterInclusive,
    // Under a fault, a common prefix the token's page ended on is listed again when start-after
    // sorts inside it (the token's position is then not where the page resumes).
    given: o.cursor && !f.has('s3-list-cursor-prefix-repeated') ? o.cursor.after : undefined,
    // Under a fault, max-keys 0 is read as not given: accepted, and a full page listed.
    max:
      (o.maxKeys !== 1000 && f.has('s3-list-max-keys-ignored')) ||
      (o.maxKeys === 0 && f.has('s3-list-max-keys-zero-unlimited'))
        ? 1000
        : o.maxKeys,
    cursorAtMax: () => f.has('s3-list-cursor-at-max-keys'),
    oneOverMax: () => f.has('s3-list-max-keys-off-by-one'),
    emptyFolderAsKey: () => f.has('s3-list-empty-folder-as-key'),
    // Asked only where a start-after or marker the client gave is past the cursor's position (a
    // later page of the same listing goes on listing again the prefixes before it: the pages
    // together list what the same listing in one page lists).
    prefixesBeforeAfter:
      o.cursor && o.after === o.cursor.after ? undefined : () => f.has('s3-list-marker-prefixes-relisted'),
    resumedAfter: o.cursor?.after,
    nestedKeysDropped: () => f.has('s3-list-nested-keys-dropped'),
  };
}

/** ListObjectsV2's own elements around a page: the token echoed, the next one, StartAfter echoed. */
function v2Cursors(
  call: S3Call,
  page: { truncated: boolean; last?: string },
  token: string | null,
  cursor: { after: string } | undefined,
  echo: (s: string, fault: string) => string,
): Record<string, unknown> {
  const f = call.ctx.faults;
  const q = call.query;
  return {
    ...(token !== null && !f.has('s3-list-continuation-not-echoed')
      ? {
          // Under a fault, the key the token continues after instead of the token as sent.
          ContinuationToken: cursor && f.has('s3-list-continuation-echo-decoded') ? cursor.after : token,
        }
      : {}),
    ...(page.truncated && page.last !== undefined
      ? { NextContinuationToken: encodeCursor(page.last, call.ctx.asOf) }
      : {}),
    ...startAfterEcho(f, q, echo),
  };
}

/**
 * ListObjectsV2's StartAfter: the start-after sent, encoded as encoding-type asks. Under faults, each
 * asked only of a listing without encoding-type (whose echo the encoding-type clause judges), it is
 * left out, or URL-encoded where that changes it.
 */
function startAfterEcho(
  f: S3Call['ctx']['faults'],
  q: URLSearchParams,
  echo: (s: string, fault: string) => string,
): { StartAfter?: string } {
  const sent = q.get('start-after');
  if (sent === null) return {};
  if (q.get('encoding-type') !== 'url') {
    if (f.has('s3-list-start-after-not-echoed')) return {};
    if (urlEncodeKey(sent) !== sent && f.has('s3-list-start-after-echo-encoded'))
      return { StartAfter: urlEncodeKey(sent) };
  }
  return { StartAfter: echo(sent, 's3-list-start-after-echo-unencoded') };
}

/** ListBuckets: URL parameters or the equivalent cf-* headers (SPEC behaviour 13). */
export function listBuckets(call: S3Call): void {
  const q = call.query;
  const fromHeader = (name: string) => {
    const value = headerValue(call.req, `cf-${name}`);
    if (value === undefined) return undefined;
    if (call.ctx.faults.has('s3-list-buckets-cf-headers-ignored')) return undefined;
    if (name === 'start-after' && call.ctx.faults.has('s3-list-buckets-cf-start-after-ignored'))
      return undefined;
    if (name === 'continuation-token' && call.ctx.faults.has('s3-list-buckets-cf-continuation-token-ignored'))
      return undefined;
    return value;
  };
  const param = (name: string) => q.get(name) ?? fromHeader(name) ?? null;
  const maxKeys = boundedInt(q.get('max-buckets') ?? param('max-keys'), 1000, 'max-keys', 1000);
  if (maxKeys === 0 && call.ctx.faults.has('s3-list-max-keys-zero-rejected')) {
    throw invalidArgument('max-keys must be at least 1.');
  }
  const token = param('continuation-token');
  let after = param('start-after') ?? '';
  if (token !== null) {
    const cursor = decodeCursor(token, (kind) => call.ctx.faults.has(cursorFault(kind)));
    if (cursor.after > after) after = cursor.after;
  }
  const prefix = q.get('prefix') ?? '';
  const sorted = [...call.store.buckets.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const page = paginate(sorted, {
    prefix,
    delimiter: '',
    after,
    max: maxKeys,
    cursorAtMax: () => call.ctx.faults.has('s3-list-cursor-at-max-keys'),
  });
  const owner = { ID: call.ctx.ids.accountId, DisplayName: call.ctx.ids.accountId };
  sendResult(
    call.res,
    'ListAllMyBucketsResult',
    {
      Owner: owner,
      Buckets: { Bucket: page.items.map((b) => ({ Name: b.name, CreationDate: b.created.toISOString() })) },
      ...(prefix ? { Prefix: prefix } : {}),
      ...(page.truncated && page.last !== undefined
        ? { ContinuationToken: encodeCursor(page.last, call.ctx.asOf) }
        : {}),
      IsTruncated: page.truncated,
    },
    {},
    call.ctx,
  );
}

/** Parameters every S3 action ignores (SPEC behaviour 7) and presigned-URL parameters. */
export function ignoredParam(name: string): boolean {
  return name === 'x-id' || name === 'x-purpose' || name.toLowerCase().startsWith('x-amz-');
}

/** The fault that makes a bad token of this kind an internal error. */
function cursorFault(kind: 'undecodable' | 'shape'): string {
  return kind === 'shape' ? 's3-list-cursor-shape-internal-error' : 's3-list-bad-cursor-internal-error';
}

/** A key's LastModified in a listing: ISO 8601 UTC, or under a fault the HTTP date of the Last-Modified header. */
function listedDate(d: Date, f: { has(name: string): boolean }): string {
  return f.has('s3-list-last-modified-http-date') ? d.toUTCString() : d.toISOString();
}
