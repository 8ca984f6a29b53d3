import { describe, expect, it } from 'vitest';
import type { Clause } from '../runner/model/clause.ts';
import { clauseResults, summarize } from '../runner/results/aggregate.ts';
import { mergeResults } from '../runner/results/merge.ts';
import { caseResult, departureResults } from './helpers/results-fixture.ts';

const clause = (id: string, amazon?: string): Clause => ({
  id,
  area: 's3',
  section: 'Object storage S3-compatible interface: behaviours / 4',
  title: `Title of ${id}`,
  source: 'spec',
  origin: `suites/s3/clauses.yaml:${id.length}`,
  ...(amazon ? { amazon } : {}),
});

const cases = [
  caseResult('c1', 's3', [
    { step: 'get', clauses: ['s3.a'], verdict: 'fail', origin: 'x:1' },
    { step: 'get', clauses: ['s3.b'], verdict: 'fail', origin: 'x:2' },
    { step: 'get', clauses: ['s3.c'], verdict: 'pass', origin: 'x:3' },
  ]),
];

describe('clause results where SPEC departs from Amazon S3', () => {
  it('carry the clause’s amazon, and the summary counts their verdicts apart', () => {
    const results = clauseResults(
      [
        clause('s3.a', '404 NoSuchTagSet'),
        clause('s3.b'),
        clause('s3.c', 'creates the bucket'),
        clause('s3.d'),
      ],
      cases,
      '2026-01-01',
      [],
    );
    expect(results.map((c) => [c.id, c.verdict, c.amazon])).toEqual([
      ['s3.a', 'fail', '404 NoSuchTagSet'],
      ['s3.b', 'fail', undefined],
      ['s3.c', 'pass', 'creates the bucket'],
      ['s3.d', 'untested', undefined],
    ]);
    const summary = summarize(results, cases);
    expect(summary.clauses).toMatchObject({ fail: 2, pass: 1, untested: 1 });
    expect(summary.departures).toEqual({ pass: 1, fail: 1, error: 0, blocked: 0, skipped: 0, untested: 0 });
  });

  it('give no departures tally to a run holding no such clause', () => {
    const summary = summarize(clauseResults([clause('s3.b')], cases, '2026-01-01', []), cases);
    expect(summary).not.toHaveProperty('departures');
  });
});

describe('merged shards', () => {
  it('keep amazon on their clauses and count the departures of the whole run', () => {
    const whole = departureResults();
    const half = (i: number) => {
      const cases = whole.cases.filter((_, k) => k % 2 === i - 1);
      const cited = new Set(cases.flatMap((c) => c.checks.flatMap((k) => k.clauses)));
      return {
        label: `shard ${i}`,
        results: {
          ...whole,
          runId: `r-${i}`,
          target: { ...whole.target, features: [] },
          selection: { suites: ['s3'], shard: `${i}/2` },
          cases,
          clauses: whole.clauses.map((c) => (cited.has(c.id) ? c : { ...c, verdict: 'untested' as const })),
        },
      };
    };
    const merged = mergeResults([half(1), half(2)]);
    expect(merged.clauses.find((c) => c.id === 's3.region.auto')?.amazon).toBe(
      'a signature for region auto is refused',
    );
    expect(merged.summary.departures).toEqual(whole.summary.departures);
  });
});
