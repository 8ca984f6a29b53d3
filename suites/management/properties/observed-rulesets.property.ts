import { type ObservedView, type Observer, type PropertyDef, RecentMap } from 'edgecheck/kit';
import { violation } from './support/envelope.ts';
import { succeeded } from './support/observed.ts';

/*
 * PUT rulesets/{id} answers a ruleset with a new version and a new last_updated, as traffic shows
 * it: against the values earlier writes of the same ruleset answered. The case
 * (rulesets.case.yaml, put-one) checks both in a run; these only observe. Only writes are
 * remembered: each makes a version of its own, where a read answered while a PUT was in flight may
 * show the PUT's own version before the PUT's answer is seen.
 */

const RULESETS = /^\/client\/v4\/(?:zones|accounts)\/[^/]+\/rulesets(?:\/|$)/;
const ZONE_RULESET_PUT = /^\/client\/v4\/zones\/[^/]+\/rulesets\/(?!phases$)[^/]+$/;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The rulesets remembered, and the values remembered of each. */
const RULESETS_KEPT = 1_000;
const VALUES_KEPT = 32;

interface Answered {
  id: string;
  value: string;
  /** When the write's answer was whole, where known. */
  at?: number;
}

/** The ruleset a rulesets write answered with `field` a string, or undefined. */
function writtenRuleset(ex: ObservedView, field: 'version' | 'last_updated'): Answered | undefined {
  if (ex.door !== 'management' || !WRITES.has(ex.method) || !RULESETS.test(ex.path)) return undefined;
  const rs = succeeded(ex)?.result as Record<string, unknown> | null | undefined;
  // A ruleset, not a rule some target answers a rule write with.
  if (typeof rs?.id !== 'string' || typeof rs[field] !== 'string' || !Array.isArray(rs.rules))
    return undefined;
  return { id: rs.id, value: rs[field] as string, at: ex.answeredAt };
}

/**
 * An observer of the values of `field` answered by rulesets writes: a PUT of a zone ruleset must not
 * answer one an earlier write of that ruleset answered, of those `comparable` keeps.
 */
function newOnPut(
  field: 'version' | 'last_updated',
  comparable: (earlier: Answered, put: ObservedView) => boolean,
): Observer {
  const seen = new RecentMap<string, Answered[]>(RULESETS_KEPT);
  return (ex) => {
    const now = writtenRuleset(ex, field);
    if (!now) return undefined;
    const before = seen.get(now.id) ?? [];
    let judged: boolean | undefined;
    if (ex.method === 'PUT' && ZONE_RULESET_PUT.test(ex.path)) {
      const earlier = before.filter((b) => comparable(b, ex));
      judged = earlier.length > 0;
      if (earlier.some((b) => b.value === now.value))
        violation(
          `PUT ${ex.path} answered ${field} ${JSON.stringify(now.value)}, which an earlier write of ruleset ${now.id} answered`,
        );
    }
    seen.set(now.id, [...before, now].slice(-VALUES_KEPT));
    return judged;
  };
}

const version: PropertyDef = {
  id: 'mgmt.rulesets.put-version-observed',
  title: 'A PUT of a ruleset answers a version no earlier write of it answered',
  clauses: ['mgmt.rulesets.put-version'],
  observe: {
    selects: 'PUTs of a zone ruleset answered 2xx, after a write of the same ruleset',
    observer: () => newOnPut('version', () => true),
  },
};

/** last_updated counts whole seconds: only a write answered a second or more before the PUT began set another. */
const SECOND = 1000;

const lastUpdated: PropertyDef = {
  id: 'mgmt.rulesets.put-last-updated-observed',
  title: 'A PUT of a ruleset answers a last_updated no write answered a second or more before it answered',
  clauses: ['mgmt.rulesets.put-last-updated'],
  observe: {
    selects:
      'PUTs of a zone ruleset answered 2xx, a second or more after a write of the same ruleset was answered',
    observer: () =>
      newOnPut(
        'last_updated',
        (earlier, put) =>
          earlier.at !== undefined && put.startedAt !== undefined && put.startedAt - earlier.at >= SECOND,
      ),
  },
};

export default [version, lastUpdated] satisfies PropertyDef[];
