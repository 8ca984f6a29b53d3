import { describe, expect, it } from 'vitest';
import { costliest } from '../reporters/console.ts';
import type { RunResults } from '../runner/model/results.ts';
import { runInThread } from './helpers/in-thread.ts';

/**
 * A case's `requests` is what it sent: its steps through undici, its SDK commands, a property's
 * own requests and SDK client, retries and teardown. Charged case by case, they add up to the
 * run's total; a clause costs what the cases citing it cost.
 */
describe('requests per case and per clause', () => {
  let results: RunResults;

  it('every request of a run is charged to the case that sent it, teardown and SDK commands included', async () => {
    results = await runInThread({
      suites: ['management', 's3'],
      // Management steps, S3 steps through the SDK and raw, buckets torn down, and a property.
      cases: ['mgmt.pagination.*', 's3.multipart.*', 's3.put.*', 's3.prop.list-max-keys'],
      seed: 7,
    });
    const sum = results.cases.reduce((n, c) => n + (c.requests ?? 0), 0);
    expect(results.requests?.total).toBeGreaterThan(50);
    expect(sum).toBe(results.requests?.total);
    for (const c of results.cases.filter((x) => x.verdict === 'pass'))
      expect(c.requests, c.id).toBeGreaterThan(0);
  }, 60_000);

  it('a case with a bucket pays for its teardown: creating, emptying, deleting and confirming it gone', () => {
    const property = results.cases.find((c) => c.id === 's3.prop.list-max-keys');
    // At least a bucket's create, list, delete-objects, list-uploads, delete and head.
    expect(property?.requests).toBeGreaterThanOrEqual(6);
  });

  it('a clause costs the requests of the cases whose checks cite it, each case once', () => {
    for (const clause of results.clauses) {
      const citing = results.cases.filter((c) => c.checks.some((k) => k.clauses.includes(clause.id)));
      expect(clause.requests, clause.id).toBe(citing.reduce((n, c) => n + (c.requests ?? 0), 0));
    }
    expect(results.clauses.some((c) => (c.requests ?? 0) > 0)).toBe(true);
  });

  it('the console names the costliest cases, most first, none that sent nothing', () => {
    const top = costliest(results.cases, 5);
    expect(top).toHaveLength(5);
    const sorted = [...results.cases].sort((a, b) => (b.requests ?? 0) - (a.requests ?? 0));
    expect(top[0].requests).toBe(sorted[0].requests);
    for (let i = 1; i < top.length; i++) expect(top[i].requests).toBeLessThanOrEqual(top[i - 1].requests);
    expect(costliest([{ ...sorted[0], requests: 0 }], 5)).toEqual([]);
  });
});

/**
 * A live account allows 1,200 management requests per five minutes, dashboard and scripts included:
 * a quick management and deprecations run stays within 350 of them, whatever the seed (generated
 * examples read different pages), so that two runs and a person's own work fit one window.
 */
describe('what a quick management run costs a live account', () => {
  it.each([1, 2, 3])(
    'sends at most 350 management requests (seed %i)',
    async (seed) => {
      const results = await runInThread({ suites: ['management', 'deprecations'], seed });
      expect(results.summary.clauses.fail, 'a clean run').toBe(0);
      const costliest = [...results.cases]
        .sort((a, b) => (b.requests ?? 0) - (a.requests ?? 0))
        .slice(0, 5)
        .map((c) => `${c.id} ${c.requests}`);
      expect(
        results.requests?.management,
        `the costliest cases: ${costliest.join(', ')}`,
      ).toBeLessThanOrEqual(350);
    },
    60_000,
  );
});
