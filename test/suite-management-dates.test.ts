import { describe, expect, it } from 'vitest';
import { runEdgecheck, today } from '../runner/api.ts';

/*
 * The date matrix: with no target, the embedded reference runs at the as-of date too, so both sides
 * of every end-of-life date must come out clean. Each run starts and stops its own reference.
 */

const DATES = ['2020-01-01', '2023-01-01', '2024-06-01', '2024-09-20', '2024-12-01', today()];

describe('management and deprecation suites against the reference, by as-of date', () => {
  it.each(DATES)(
    'as of %s: no clause fails, errors or is blocked, and no testable clause is untested',
    async (asOf) => {
      const results = await runEdgecheck({ suites: ['management', 'deprecations'], asOf });
      const bad = results.clauses
        .filter((c) => ['fail', 'error', 'blocked'].includes(c.verdict))
        .map((c) => `${c.verdict} ${c.id}: ${c.message ?? ''}`);
      expect(bad).toEqual([]);
      const untested = results.clauses
        .filter((c) => c.verdict === 'untested' && !c.untestable)
        .map((c) => c.id);
      expect(untested).toEqual([]);
      expect(results.summary.checks.pass).toBeGreaterThan(100);
      expect(results.summary.cases.error + results.summary.cases.blocked + results.summary.cases.fail).toBe(
        0,
      );
      expect(results.exitCode).toBe(0);
    },
    120_000,
  );
});
