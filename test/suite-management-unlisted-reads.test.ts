import { describe, expect, it } from 'vitest';
import { startReference } from '../reference/server.ts';
import { runEdgecheck, today } from '../runner/api.ts';
import type { RunResults } from '../runner/model/results.ts';
import { type Mutation, startMutatingProxy } from './suite-management-proxy.ts';

/*
 * Reads SPEC does not list, which some checks use to see state (the rules of one ruleset) or to learn
 * a value to put back (the zone's security_level). A target without them conforms to SPEC: a proxy
 * in front of the reference answers 404 for one of them, and the checks that need it must be blocked
 * with the reason, never failed.
 */

const AREAS = ['management', 'deprecations'];

/** [the read, the paths it answers under /client/v4] */
const UNLISTED: [string, RegExp][] = [
  ['GET settings/security_level', /^\/zones\/[^/]+\/settings\/security_level$/],
  ['GET one zone ruleset', /^\/zones\/[^/]+\/rulesets\/(?!phases\/)[^/]+$/],
  ['GET one account ruleset', /^\/accounts\/[^/]+\/rulesets\/[^/]+$/],
  ['GET one certificate pack', /^\/zones\/[^/]+\/ssl\/certificate_packs\/[^/]+$/],
  ['GET one invitation', /^\/user\/invites\/[^/]+$/],
];

function without(patterns: RegExp[]): Mutation {
  return {
    response: (ex) => {
      if (ex.method !== 'GET' || !patterns.some((p) => p.test(ex.path))) return false;
      ex.status = 404;
      ex.json = { result: null, success: false, errors: [{ code: 7000, message: 'No route' }], messages: [] };
      return true;
    },
  };
}

async function runWithout(
  patterns: RegExp[],
  asOf: string,
): Promise<{ results: RunResults; changed: number }> {
  const reference = await startReference({ asOf });
  const proxy = await startMutatingProxy(reference.urls.management, without(patterns));
  try {
    const target = reference.target();
    target.management = { ...target.management!, baseUrl: proxy.url };
    // The reference is the run's own: the disruptive checks (accepting the invitation) run too.
    const results = await runEdgecheck({ suites: AREAS, asOf, target, allowDisruptive: true });
    return { results, changed: proxy.changed() };
  } finally {
    await proxy.close();
    await reference.close();
  }
}

const judged = (r: RunResults, verdicts: string[]) =>
  r.clauses.filter((c) => verdicts.includes(c.verdict)).map((c) => c.id);

// At once: each run has a reference and proxy of its own, and is mostly the rulesets case's pause.
describe.concurrent('a target without a read SPEC does not list', () => {
  for (const [read, pattern] of UNLISTED) {
    it(`${read}: no clause fails or errors, and the checks that need it are blocked`, async () => {
      const { results, changed } = await runWithout([pattern], today());
      expect(changed, `the run never asked for ${read}`).toBeGreaterThan(0);
      expect(judged(results, ['fail', 'error'])).toEqual([]);
      const blocked = results.cases.flatMap((c) => c.checks).filter((k) => k.verdict === 'blocked');
      expect(blocked.length, `no check needed ${read}`).toBeGreaterThan(0);
      expect(results.leftovers ?? []).toEqual([]);
    }, 60_000);
  }

  it('all of them at once, before the dated restrictions: no clause fails or errors', async () => {
    const { results } = await runWithout(
      UNLISTED.map(([, p]) => p),
      '2024-06-01',
    );
    expect(judged(results, ['fail', 'error'])).toEqual([]);
  }, 60_000);
});
