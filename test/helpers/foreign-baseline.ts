import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RunResults } from '../../runner/model/results.ts';

/**
 * A foreign target's baseline: `clauses` are its departures (fail or error, each with what the wire
 * showed), which the engine's --baseline reads; `blocked` the clauses it leaves unjudgeable because
 * a prerequisite is refused. test/truth-baselines.test.ts proves each departure with a client that is
 * not edgecheck.
 */
export interface ForeignBaseline {
  target: string;
  clauses: Record<string, { verdict: 'fail' | 'error'; reason: string }>;
  blocked?: Record<string, string>;
}

export const readForeignBaseline = (file: string) => parse(readFileSync(file, 'utf8')) as ForeignBaseline;

/** The three tests every foreign target's run is held to, against its baseline file. */
export function holdsToBaseline(name: string, file: string, results: () => RunResults): void {
  const baseline = readForeignBaseline(file);
  const blocked = baseline.blocked ?? {};

  it('has a one-line reason for every clause the baseline lists, and lists only S3 clauses', () => {
    const reasons = [
      ...Object.entries(baseline.clauses).map(([id, e]) => [id, e.reason] as const),
      ...Object.entries(blocked),
    ];
    const bad = reasons
      .filter(([id, r]) => !id.startsWith('s3.') || !r?.trim() || r.includes('\n'))
      .map(([id]) => id);
    expect(bad).toEqual([]);
    expect(Object.keys(baseline.clauses).length).toBeGreaterThan(0);
  });

  it(`fails exactly the clauses of the ${name} baseline, each the way it says, and is blocked where it says`, () => {
    const r = results();
    const observed = Object.fromEntries(
      r.clauses.filter((c) => c.verdict === 'fail' || c.verdict === 'error').map((c) => [c.id, c.verdict]),
    );
    const expected = Object.fromEntries(Object.entries(baseline.clauses).map(([id, e]) => [id, e.verdict]));
    expect(observed).toEqual(expected);
    expect(r.baseline).toMatchObject({ newFailures: [], fixed: [] });
    const blockedNow = r.clauses.filter((c) => c.verdict === 'blocked').map((c) => c.id);
    expect(blockedNow.sort()).toEqual(Object.keys(blocked).sort());
  });

  it(`judges every other testable clause: pass, or skipped for a feature ${name} lacks`, () => {
    const other = results()
      .clauses.filter((c) => !(c.id in baseline.clauses) && !(c.id in blocked) && !c.untestable)
      .filter((c) => c.verdict !== 'pass' && !(c.verdict === 'skipped' && c.feature))
      .map((c) => `${c.id}: ${c.verdict}`);
    expect(other).toEqual([]);
  });
}
