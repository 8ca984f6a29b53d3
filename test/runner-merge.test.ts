import { describe, expect, it } from 'vitest';
import type { CaseResult, ClauseResult, RunResults } from '../runner/model/results.ts';
import type { Verdict } from '../runner/model/verdict.ts';
import { compareBaseline } from '../runner/results/baseline.ts';
import { mergeResults } from '../runner/results/merge.ts';
import { caseResult, clause, runResults } from './helpers/results-fixture.ts';

/** One case citing one clause with one verdict. */
const one = (id: string, clauseId: string, verdict: Verdict): CaseResult =>
  caseResult(id, 'management', [
    { step: 's', clauses: [clauseId], verdict, message: `${verdict} ${id}`, origin: 'x:1' },
  ]);

const CLAUSES: ClauseResult[] = [
  clause('mgmt.m.a'),
  clause('mgmt.m.b'),
  clause('mgmt.m.dated', { until: '2025-01-01' }),
  clause('mgmt.m.feature', { feature: 'public-buckets' }),
  clause('mgmt.m.uncited'),
];

/** A shard as the runner writes it: every clause of the selection, untested where it cites none. */
function shard(i: number, n: number, cases: CaseResult[], p: Partial<RunResults> = {}): RunResults {
  const r = runResults(
    CLAUSES.map((c) => ({ ...c })),
    cases,
    { runId: `r-${i}`, selection: { suites: ['management'], shard: `${i}/${n}` }, ...p },
  );
  r.target = { ...r.target, features: [] };
  // The runner skips a clause outside its window or lacking its feature, whatever its checks say.
  for (const c of r.clauses) if (c.checks && (c.until || c.feature)) c.verdict = 'skipped';
  return r;
}

describe('mergeResults', () => {
  it('gives each clause the worst verdict of its checks in any shard; untested only if no shard cites it', () => {
    const merged = mergeResults([
      {
        label: 'a',
        results: shard(1, 2, [one('c1', 'mgmt.m.a', 'pass'), one('c3', 'mgmt.m.dated', 'fail')]),
      },
      {
        label: 'b',
        results: shard(2, 2, [one('c2', 'mgmt.m.a', 'fail'), one('c4', 'mgmt.m.feature', 'pass')]),
      },
    ]);
    expect(merged.clauses.map((c) => `${c.id} ${c.verdict} ${c.checks}`)).toEqual([
      'mgmt.m.a fail 2',
      'mgmt.m.b untested 0',
      'mgmt.m.dated skipped 1',
      'mgmt.m.feature skipped 1',
      'mgmt.m.uncited untested 0',
    ]);
    expect(merged.clauses[0].message).toBe('c2 (s): fail c2');
    // Item k of the whole run is in shard k mod n: c1 c2 c3 c4.
    expect(merged.cases.map((c) => c.id)).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(merged.summary.clauses).toMatchObject({ fail: 1, skipped: 2, untested: 2 });
    expect(merged.exitCode).toBe(1);
  });

  it('recomputes the baseline drift as one run would', () => {
    const baseline = {
      clauses: {
        'mgmt.m.a': { verdict: 'fail' as const, reason: 'known' },
        'mgmt.m.b': { verdict: 'error' as const, reason: 'known' },
      },
    };
    const withDiff = (r: RunResults) => ({ ...r, baseline: compareBaseline('b.yaml', baseline, r.clauses) });
    const a = withDiff(shard(1, 2, [one('c1', 'mgmt.m.a', 'fail'), one('c3', 'mgmt.m.b', 'pass')]));
    const b = withDiff(shard(2, 2, [one('c2', 'mgmt.m.a', 'pass'), one('c4', 'mgmt.m.uncited', 'fail')]));
    // Shard b alone thinks mgmt.m.a fixed; the whole run still fails it as the baseline expects.
    expect(b.baseline.fixed).toEqual(['mgmt.m.a']);
    const merged = mergeResults([
      { label: 'a', results: a },
      { label: 'b', results: b },
    ]);
    const whole = compareBaseline('b.yaml', baseline, merged.clauses);
    expect(merged.baseline).toEqual({ ...whole, file: a.baseline.file });
    expect(merged.baseline).toMatchObject({
      expected: ['mgmt.m.a'],
      fixed: ['mgmt.m.b'],
      newFailures: ['mgmt.m.uncited'],
    });
    expect(() =>
      mergeResults([
        { label: 'a', results: a },
        { label: 'b', results: shard(2, 2, [one('c2', 'mgmt.m.a', 'pass')]) },
      ]),
    ).toThrow('merge: a was run with --baseline and b without; run every shard alike');
  });

  it('refuses other targets, faults, features and profiles, and a shard mixed with a run that is not one', () => {
    const a = shard(1, 2, [one('c1', 'mgmt.m.a', 'pass')]);
    const b = shard(2, 2, [one('c2', 'mgmt.m.a', 'pass')]);
    const merge = (other: RunResults) => () =>
      mergeResults([
        { label: 'a', results: a },
        { label: 'b', results: other },
      ]);
    expect(merge({ ...b, target: { ...b.target, name: 'staging' } })).toThrow(
      'different targets: a reference, b staging',
    );
    expect(merge({ ...b, target: { ...b.target, faults: ['x'] } })).toThrow(
      'different faults: a (none), b (x)',
    );
    expect(merge({ ...b, target: { ...b.target, features: ['public-buckets'] } })).toThrow(
      'different target features',
    );
    expect(merge({ ...b, profile: 'full' })).toThrow('different profiles: a quick, b full');
    expect(merge({ ...b, selection: { suites: ['management'] } })).toThrow('b is not a shard, a is');
    expect(merge({ ...b, selection: { suites: ['management'], shard: '2/2', readOnly: true } })).toThrow(
      "different suites selection: a '--suite management', b '--suite management --read-only'",
    );
  });
});
