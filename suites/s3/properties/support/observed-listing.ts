import type { ObservedView, Observer } from 'edgecheck/kit';
import { urlDecode } from './keys.ts';
import { bucketOf } from './observed-objects.ts';
import { type ListPage, parseListPage } from './xml.ts';

/** A ListObjects or ListObjectsV2 page seen in traffic, with what its request asked. */
export interface SeenListing {
  v2: boolean;
  /** The bucket as addressed (observed-objects.ts bucketOf). */
  bucket?: string;
  /** The bucket and the parameters that choose the list (prefix, delimiter, encoding-type): pages of one listing share it. */
  list: string;
  prefix: string;
  delimiter?: string;
  /** start-after (V2) or marker (V1). */
  startAfter?: string;
  maxKeys?: number;
  token?: string;
  encoded: boolean;
  /** Keys and common prefixes decoded where encoding-type url was asked for. */
  page: ListPage;
  /** Keys, then common prefixes, as the target sent them. */
  raw: string[];
  /** The request, for messages. */
  where: string;
}

/** Query parameters of a listing; any other names another operation (uploads, location, cors...). */
const LISTING = new Set([
  'list-type',
  'prefix',
  'delimiter',
  'start-after',
  'marker',
  'max-keys',
  'continuation-token',
  'encoding-type',
  'fetch-owner',
  'x-id',
]);

/**
 * Each exchange's listing, read once for every listing observer: the judge gives them all the same
 * view of an exchange, and a page of 1,000 keys is worth parsing once, not once per clause.
 */
const read = new WeakMap<ObservedView, SeenListing | undefined>();

/** A listing's answer: a GET of a bucket (no key) answered 200 with a ListBucketResult. */
export function seenListing(ex: ObservedView): SeenListing | undefined {
  if (read.has(ex)) return read.get(ex);
  const listing = readListing(ex);
  read.set(ex, listing);
  return listing;
}

function readListing(ex: ObservedView): SeenListing | undefined {
  if (ex.door !== 's3' || ex.method !== 'GET' || ex.status !== 200) return undefined;
  if (ex.path.replace(/^\/+|\/+$/g, '').includes('/')) return undefined;
  for (const name of ex.query.keys()) if (!LISTING.has(name) && !/^x-amz-/i.test(name)) return undefined;
  let page: ListPage;
  try {
    page = parseListPage(ex.text());
  } catch {
    return undefined;
  }
  const q = ex.query;
  const v2 = q.get('list-type') === '2';
  const encoded = q.get('encoding-type') === 'url';
  const raw = [...page.keys, ...page.prefixes];
  if (encoded) {
    try {
      page = { ...page, keys: page.keys.map(urlDecode), prefixes: page.prefixes.map(urlDecode) };
    } catch {
      // Not decodable: encoding-type's own observer judges that; the others have nothing to read.
      return undefined;
    }
  }
  const maxKeys = q.get('max-keys');
  const host = ex.requestHeaders.host ?? '';
  return {
    v2,
    bucket: bucketOf(ex),
    list: JSON.stringify([host, ex.path, q.get('prefix') ?? '', q.get('delimiter') ?? '', encoded, v2]),
    prefix: q.get('prefix') ?? '',
    delimiter: q.get('delimiter') || undefined,
    startAfter: (v2 ? q.get('start-after') : q.get('marker')) || undefined,
    maxKeys: maxKeys === null || !/^\d+$/.test(maxKeys) ? undefined : Number(maxKeys),
    token: (v2 && q.get('continuation-token')) || undefined,
    encoded,
    page,
    raw,
    where: `GET ${ex.path}?${q}`,
  };
}

/**
 * An observer of listings for PropertyDef.observe: each page seen goes to `judge`, which answers
 * false where it has nothing to judge and throws what contradicts its clause.
 */
export function observedListings(
  selects: string,
  judge: (l: SeenListing) => unknown,
): { selects: string; observer: () => Observer } {
  return {
    selects: `ListObjects and ListObjectsV2 pages ${selects}`,
    observer: () => (ex) => {
      const listing = seenListing(ex);
      return listing === undefined ? undefined : judge(listing) !== false;
    },
  };
}
