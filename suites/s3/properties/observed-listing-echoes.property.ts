import type { ObservedView, PropertyDef } from 'edgecheck/kit';
import { utf8Compare } from './support/keys.ts';
import { type SeenListing, seenListing } from './support/observed-listing.ts';
import { expectThat } from './support/wire.ts';

/*
 * What a single ListObjects or ListObjectsV2 page must say of its own request, as traffic shows it:
 * the order of its keys, MaxKeys, StartAfter and Owner. The cases (client-habits.case.yaml) check
 * each in a run; these only observe, one exchange at a time, and keep nothing.
 */

const show = (v: unknown) => JSON.stringify(v);

/** An observe-only property of `clause`, judging each listing page seen by `judge` (false: nothing to judge). */
function observed(
  id: string,
  title: string,
  clause: string,
  selects: string,
  judge: (l: SeenListing, ex: ObservedView) => unknown,
): PropertyDef {
  return {
    id,
    title,
    clauses: [clause],
    observe: {
      selects,
      observer: () => (ex) => {
        const listing = seenListing(ex);
        return listing === undefined ? undefined : judge(listing, ex) !== false;
      },
    },
  };
}

const keyOrder = observed(
  's3.prop.list-key-order-observed',
  'Every listing page lists its keys in the order of their UTF-8 bytes',
  's3.list.key-order',
  'ListObjects and ListObjectsV2 pages answered 200 with two keys or more',
  (l) => {
    const keys = l.page.keys;
    if (keys.length < 2) return false;
    const at = keys.findIndex((k, i) => i > 0 && utf8Compare(keys[i - 1]!, k) > 0);
    expectThat(at < 0, `${l.where}: listed ${show(keys[at - 1])} before ${show(keys[at])}`);
  },
);

/** max-keys as S3 takes it: digits up to 1000; a larger one S3 may answer as its own cap. */
function maxKeysAsked(q: URLSearchParams): number | undefined | false {
  const asked = q.get('max-keys');
  if (asked === null) return undefined;
  return /^\d{1,4}$/.test(asked) && Number(asked) <= 1000 ? Number(asked) : false;
}

const maxKeysEcho = observed(
  's3.prop.list-max-keys-echo-observed',
  'Every listing page answers MaxKeys as the max-keys asked, 1000 when none was',
  's3.list.max-keys-echo',
  'ListObjects and ListObjectsV2 pages answered 200, asked for with no max-keys or one up to 1000',
  (l, ex) => {
    const asked = maxKeysAsked(ex.query);
    if (asked === false) return false;
    const want = asked ?? 1000;
    expectThat(
      l.page.maxKeys === want,
      `${l.where}: answered MaxKeys ${show(l.page.maxKeys ?? null)}, not ${want}`,
    );
  },
);

const startAfterEcho = observed(
  's3.prop.list-start-after-echo-observed',
  'A ListObjectsV2 page asked for with start-after and no encoding-type answers StartAfter as sent',
  's3.list.start-after-echo',
  'ListObjectsV2 pages answered 200, asked for with a start-after, no encoding-type and no continuation-token',
  (l, ex) => {
    // A page continuing a listing ignores start-after (the token says where it begins), and the case
    // judges no echo there.
    if (
      !l.v2 ||
      l.startAfter === undefined ||
      ex.query.has('encoding-type') ||
      ex.query.has('continuation-token')
    )
      return false;
    const echoed = l.page.echoes.StartAfter;
    expectThat(
      echoed === l.startAfter,
      `${l.where}: answered StartAfter ${show(echoed ?? null)}, not ${show(l.startAfter)}`,
    );
  },
);

const fetchOwner = observed(
  's3.prop.list-fetch-owner-observed',
  'A ListObjectsV2 page gives each key an Owner with an ID when fetch-owner=true was asked, and none otherwise',
  's3.list.fetch-owner',
  'ListObjectsV2 pages answered 200 that list a key',
  (l, ex) => {
    const owners = l.page.owners ?? [];
    if (!l.v2 || owners.length === 0) return false;
    if (ex.query.get('fetch-owner') === 'true') {
      const without = l.page.keys.filter((_k, i) => !owners[i]);
      expectThat(without.length === 0, `${l.where}: keys ${show(without)} have no Owner ID`);
    } else {
      const with_ = l.page.keys.filter((_k, i) => owners[i] !== undefined);
      expectThat(with_.length === 0, `${l.where}: keys ${show(with_)} have an Owner, not asked for`);
    }
  },
);

export default [keyOrder, maxKeysEcho, startAfterEcho, fetchOwner] satisfies PropertyDef[];
