import { describe, expect, it } from 'vitest';
import { today } from '../runner/api.ts';
import { loadClauses } from '../runner/load/clauses.ts';
import { runInThread } from './helpers/in-thread.ts';

/*
 * The date matrix: with no target, the embedded reference runs at the as-of date too, so both sides
 * of every end-of-life date must come out clean. Each run starts and stops its own reference.
 */

const AREAS = ['management', 'deprecations'];
const DATES = ['2020-01-01', '2023-01-01', '2024-06-01', '2024-09-20', '2024-12-01', today()];

function shift(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

const DATED = [...loadClauses(AREAS).values()].filter((c) => !c.untestable && (c.since || c.until));
const UNTIL = new Set(DATED.map((c) => c.until).filter((d): d is string => d !== undefined));

/**
 * The end-of-life date of a dated clause: its until date, or for a new behaviour that starts the day
 * after an old one ends (SPEC: "after" the date), that old one's until date.
 */
function endOfLife(c: { since?: string; until?: string }): string {
  if (c.until) return c.until;
  const eve = shift(c.since!, -1);
  return UNTIL.has(eve) ? eve : c.since!;
}

/** Every dated row's end-of-life date with the day before and the day after it. */
const ROWS = [...new Set(DATED.map(endOfLife))].sort();
const BOUNDARIES = [...new Set(ROWS.flatMap((d) => [shift(d, -1), d, shift(d, 1)]))].sort();

/** On boundary days only what is dated runs: every deprecation, and the security_level PATCH it shares. */
const DATED_CASES = ['dep.*', 'mgmt.settings.*'];

async function clean(asOf: string, cases?: string[]): Promise<void> {
  const results = await runInThread({ suites: AREAS, asOf, cases });
  const bad = results.clauses
    .filter((c) => ['fail', 'error', 'blocked'].includes(c.verdict))
    .map((c) => `${c.verdict} ${c.id}: ${c.message ?? ''}`);
  expect(bad).toEqual([]);
  const selected = (id: string) => !cases || id.startsWith('dep.') || id.startsWith('mgmt.settings.');
  const untested = results.clauses
    .filter((c) => c.verdict === 'untested' && !c.untestable && selected(c.id))
    .map((c) => c.id);
  expect(untested).toEqual([]);
  expect(results.summary.checks.pass).toBeGreaterThan(cases ? 20 : 100);
  expect(results.summary.cases.error + results.summary.cases.blocked + results.summary.cases.fail).toBe(0);
  expect(results.exitCode).toBe(0);
}

describe('management and deprecation suites against the reference, by as-of date', () => {
  // At once: each run's time is mostly the rulesets case's pause for a one-second timestamp.
  it.concurrent.each(DATES)(
    'as of %s: no clause fails, errors or is blocked, and no testable clause is untested',
    (d) => clean(d),
    120_000,
  );

  it('the boundaries hold each end-of-life date with the day before and the day after it', () => {
    // 19 distinct end-of-life dates in the Versioning table (some rows share one).
    expect(ROWS.length).toBeGreaterThanOrEqual(19);
    for (const d of ROWS) expect(BOUNDARIES).toEqual(expect.arrayContaining([shift(d, -1), d, shift(d, 1)]));
  });

  it.each(BOUNDARIES)(
    'on the boundary day %s: the dated checks are clean as well',
    (d) => clean(d, DATED_CASES),
    120_000,
  );

  it('on an end-of-life date itself, a row that changes "after" it is judged on neither side, with that reason', async () => {
    const results = await runInThread({ suites: AREAS, asOf: '2025-01-15' });
    const row = results.clauses.filter((c) => c.id.startsWith('dep.firewall-rules.'));
    expect(row.map((c) => c.verdict)).toEqual(['skipped', 'skipped']);
    const checks = results.cases
      .flatMap((c) => c.checks)
      .filter((k) => k.clauses.some((id) => id.startsWith('dep.firewall-rules.')));
    expect(checks.length).toBeGreaterThan(0);
    for (const k of checks) expect(k.message).toContain('after the end-of-life date, so neither is judged');
  }, 120_000);
});
