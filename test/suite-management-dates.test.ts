import { describe, expect, it } from 'vitest';
import { runAgainstEmbedded } from '../cli/embedded.ts';
import { today } from '../runner/api.ts';
import { loadClauses } from '../runner/load/clauses.ts';

/*
 * The date matrix: with no target, the embedded reference runs at the as-of date too, so both sides
 * of every end-of-life date must come out clean. Each run starts and stops its own reference.
 */

const AREAS = ['management', 'deprecations'];
const DATES = ['2020-01-01', '2023-01-01', '2024-06-01', '2024-09-20', '2024-12-01', today()];

function dayBefore(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** Every since/until date of the catalogs, with the day before it: both sides of each boundary. */
const BOUNDARIES = [
  ...new Set(
    [...loadClauses(AREAS).values()]
      .filter((c) => !c.untestable)
      .flatMap((c) => [c.since, c.until])
      .filter((d): d is string => d !== undefined)
      .flatMap((d) => [dayBefore(d), d]),
  ),
].sort();

async function clean(asOf: string): Promise<void> {
  const results = await runAgainstEmbedded({ suites: AREAS, asOf });
  const bad = results.clauses
    .filter((c) => ['fail', 'error', 'blocked'].includes(c.verdict))
    .map((c) => `${c.verdict} ${c.id}: ${c.message ?? ''}`);
  expect(bad).toEqual([]);
  const untested = results.clauses.filter((c) => c.verdict === 'untested' && !c.untestable).map((c) => c.id);
  expect(untested).toEqual([]);
  expect(results.summary.checks.pass).toBeGreaterThan(100);
  expect(results.summary.cases.error + results.summary.cases.blocked + results.summary.cases.fail).toBe(0);
  expect(results.exitCode).toBe(0);
}

describe('management and deprecation suites against the reference, by as-of date', () => {
  it.each(DATES)(
    'as of %s: no clause fails, errors or is blocked, and no testable clause is untested',
    clean,
    120_000,
  );

  it('the boundaries hold each end-of-life date and the day before it', () => {
    // 19 distinct end-of-life dates in the Versioning table (some rows share one), each with its eve.
    expect(BOUNDARIES.length).toBeGreaterThanOrEqual(36);
  });

  it.each(BOUNDARIES)('on the boundary day %s: clean as well', clean, 120_000);
});
