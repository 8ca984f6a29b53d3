import { describe, expect, it } from 'vitest';
import { ConsoleReporter } from '../reporters/console.ts';
import { renderHtml } from '../reporters/html.ts';
import { JsonReporter } from '../reporters/json.ts';
import { renderJunit } from '../reporters/junit.ts';
import { renderMarkdown } from '../reporters/markdown.ts';
import type { AmazonBehaviour } from '../runner/model/case.ts';
import type { Clause } from '../runner/model/clause.ts';
import { departureCounts, departures } from '../runner/model/departures.ts';
import type { CheckResult, Exchange } from '../runner/model/results.ts';
import { clauseResults, summarize } from '../runner/results/aggregate.ts';
import { mergeResults } from '../runner/results/merge.ts';
import {
  caseResult,
  clause as clauseResult,
  departureResults,
  feed,
  memoryStream,
} from './helpers/results-fixture.ts';

const clause = (id: string, amazon?: string | AmazonBehaviour): Clause => ({
  id,
  area: 's3',
  section: 'Object storage S3-compatible interface: behaviours / 4',
  title: `Title of ${id}`,
  source: 'spec',
  origin: `suites/s3/clauses.yaml:${id.length}`,
  ...(amazon ? { amazon: typeof amazon === 'string' ? { says: amazon } : amazon } : {}),
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
    // Each shard compared its own failing answers with Amazon S3's; the merge keeps what they found.
    const match = (r: typeof whole) => r.clauses.map((c) => [c.id, c.amazonMatch]);
    expect(match(merged)).toEqual(match(whole));
    expect(merged.summary.departureAnswers).toEqual({ asAmazon: 1, neither: 1, undecided: 2 });
  });
});

/** An SDK step's answer as a failing check records it. */
const sdkAnswer = (status: number, code?: string): Exchange => ({
  command: 'GetBucketTagging',
  response: { status, headers: {}, ...(code ? { error: { name: code, message: '' } } : {}) },
});

/** A raw HTTP answer as a failing check records it: the error code is in its XML. */
const httpAnswer = (status: number, body: string, headers: Record<string, string> = {}): Exchange => ({
  request: { method: 'GET', url: 'http://127.0.0.1:1/b?tagging', headers: {} },
  response: { status, headers, body: { size: body.length, text: body } },
});

const failing = (id: string, exchange?: Exchange): Omit<CheckResult, 'caseId' | 'index'> => ({
  step: exchange?.command ? 'sdk' : 'wire',
  clauses: [id],
  verdict: 'fail',
  origin: 'x:1',
  message: 'status: expected 200, got 404',
  ...(exchange ? { exchange } : {}),
});

const TAGGING: AmazonBehaviour = { says: '404 NoSuchTagSet', status: 404, error: 'NoSuchTagSet' };

/** The clause result of `id`, judged on `checks` alone. */
function judged(c: Clause, checks: Omit<CheckResult, 'caseId' | 'index'>[]) {
  return clauseResults([c], [caseResult('c', 's3', checks)], '2026-01-01', [])[0];
}

describe("a failing clause's answer, held to Amazon S3's", () => {
  it("does as Amazon S3 does when every recorded answer meets its matchers, the SDK's error and the XML's Code alike", () => {
    const xml = '<?xml version="1.0"?><Error><Code>NoSuchTagSet</Code><Message>none</Message></Error>';
    const c = judged(clause('s3.t', TAGGING), [
      failing('s3.t', sdkAnswer(404, 'NoSuchTagSet')),
      failing('s3.t', httpAnswer(404, xml, { 'content-type': 'application/xml' })),
    ]);
    expect(c).toMatchObject({ verdict: 'fail', amazon: '404 NoSuchTagSet', amazonMatch: true });
  });

  it('does neither when one answer does not meet them: another status, or the right status with another code', () => {
    expect(
      judged(clause('s3.t', TAGGING), [failing('s3.t', sdkAnswer(501, 'NotImplemented'))]).amazonMatch,
    ).toBe(false);
    const mixed = judged(clause('s3.t', TAGGING), [
      failing('s3.t', sdkAnswer(404, 'NoSuchTagSet')),
      failing('s3.t', httpAnswer(404, '<Error><Code>NoSuchBucket</Code></Error>')),
    ]);
    expect(mixed.amazonMatch).toBe(false);
    // A 404 with no error code at all is not Amazon S3's 404 NoSuchTagSet.
    expect(judged(clause('s3.t', TAGGING), [failing('s3.t', httpAnswer(404, ''))]).amazonMatch).toBe(false);
  });

  it('holds headers to their matchers, $absent included', () => {
    const versions: AmazonBehaviour = {
      says: 'sends them only when the buckets are versioned',
      headers: { 'x-amz-version-id': { $absent: true } },
    };
    expect(judged(clause('s3.v', versions), [failing('s3.v', httpAnswer(200, ''))]).amazonMatch).toBe(true);
    const sent = httpAnswer(200, '', { 'x-amz-version-id': 'v1' });
    expect(judged(clause('s3.v', versions), [failing('s3.v', sent)]).amazonMatch).toBe(false);
  });

  it('compares nothing for words alone, for a check that recorded no answer, or for a clause that did not fail', () => {
    expect(judged(clause('s3.t', '404 NoSuchTagSet'), [failing('s3.t', sdkAnswer(404))])).not.toHaveProperty(
      'amazonMatch',
    );
    // A property's failure records no answer.
    expect(judged(clause('s3.t', TAGGING), [failing('s3.t')])).not.toHaveProperty('amazonMatch');
    const blocked = { ...failing('s3.t', sdkAnswer(404, 'NoSuchTagSet')), verdict: 'blocked' as const };
    expect(judged(clause('s3.t', TAGGING), [blocked])).toMatchObject({ verdict: 'blocked' });
    expect(judged(clause('s3.t', TAGGING), [blocked])).not.toHaveProperty('amazonMatch');
    // A check that recorded no answer leaves the decision to those that did.
    expect(
      judged(clause('s3.t', TAGGING), [failing('s3.t'), failing('s3.t', sdkAnswer(404, 'NoSuchTagSet'))])
        .amazonMatch,
    ).toBe(true);
  });

  it('counts failing and erroring departures by answer once, for the summary and every report, blocked ones never', () => {
    const clauses = [
      clauseResult('s3.a', { verdict: 'fail', amazon: 'x', amazonMatch: true }),
      clauseResult('s3.b', { verdict: 'error', amazon: 'x', amazonMatch: false }),
      clauseResult('s3.c', { verdict: 'fail', amazon: 'x' }),
      clauseResult('s3.d', { verdict: 'blocked', amazon: 'x' }),
      clauseResult('s3.e', { verdict: 'fail' }),
      clauseResult('s3.f', { verdict: 'pass', amazon: 'x' }),
    ];
    const split = departures(clauses);
    expect(split.all.map((c) => c.id)).toEqual(['s3.a', 's3.b', 's3.c']);
    expect(split.shared.map((c) => c.id)).toEqual(['s3.e']);
    expect([split.asAmazon, split.neither, split.undecided].map((l) => l.map((c) => c.id))).toEqual([
      ['s3.a'],
      ['s3.b'],
      ['s3.c'],
    ]);
    expect(departureCounts(clauses)).toEqual({ asAmazon: 1, neither: 1, undecided: 1 });
    expect(summarize(clauses, []).departureAnswers).toEqual({ asAmazon: 1, neither: 1, undecided: 1 });
  });
});

describe('every report', () => {
  it('counts the same departures, blocked clauses never among them, and splits them alike', async () => {
    const results = departureResults();
    const split = departures(results.clauses);
    expect(results.clauses.some((c) => c.amazon !== undefined && c.verdict === 'blocked')).toBe(true);
    expect(split.all).toHaveLength(4);
    const n = split.all.length;
    const text = memoryStream();
    await feed(new ConsoleReporter({ stream: text, color: false, live: false }), results);
    expect(text.text()).toContain(`Of them, where SPEC departs from Amazon S3 (${n})\n`);
    expect(renderHtml(results)).toContain(`<h3>Where SPEC departs from Amazon S3 (${n})</h3>`);
    expect(renderMarkdown(results)).toContain(
      `### Failing and erroring where SPEC departs from Amazon S3 (${n})\n`,
    );
    expect(renderJunit(results).match(/name="amazonAnswer"/g)).toHaveLength(n);
    const json = memoryStream();
    await feed(new JsonReporter({ stream: json }), results);
    const answers = JSON.parse(json.text()).summary.departureAnswers;
    expect(answers).toEqual(departureCounts(results.clauses));
    expect(answers.asAmazon + answers.neither + answers.undecided).toBe(n);
    for (const [heading, count] of [
      ['Doing as Amazon S3 does', split.asAmazon.length],
      ['Doing neither what SPEC says nor what Amazon S3 does', split.neither.length],
    ] as const) {
      expect(text.text()).toContain(`  ${heading} (${count})\n`);
      expect(renderHtml(results)).toContain(`<h4>${heading} (${count})</h4>`);
      expect(renderMarkdown(results)).toContain(`#### ${heading} (${count})\n`);
    }
  });
});
