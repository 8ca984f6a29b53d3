import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../reporters/markdown.ts';
import type { Clause } from '../runner/model/clause.ts';
import type { Verdict } from '../runner/model/verdict.ts';
import { clauseResults } from '../runner/results/aggregate.ts';
import { schemas } from '../runner/schema/registry.ts';
import { caseResult, check, sampleResults } from './helpers/results-fixture.ts';

/*
 * A clause is blocked only when none of its statement could be judged: a check not exercised (a
 * branch the target did not take, a valid twin it refused) leaves the clause judged on the others,
 * and every report names what was not exercised.
 */

const CLAUSE: Clause = {
  id: 'mgmt.x',
  area: 'management',
  section: 'errors.1',
  title: 'A clause',
  source: 'spec',
  origin: 'suites/management/clauses.yaml:1',
};

function verdictOf(...verdicts: Verdict[]) {
  const checks = verdicts.map((verdict, i) =>
    check({
      caseId: 'c1',
      clauses: ['mgmt.x'],
      verdict,
      step: `s${i}`,
      title: `check ${i}`,
      message:
        verdict === 'blocked' ? 'not judged: the answer lacks what the check needs (status 206)' : undefined,
    }),
  );
  return clauseResults([CLAUSE], [caseResult('c1', 'management', checks)], '2026-01-01', [])[0];
}

describe('a clause verdict from its checks', () => {
  it('passes when every exercised check passed and one was, naming the check not exercised', () => {
    const c = verdictOf('pass', 'blocked', 'pass');
    expect(c.verdict).toBe('pass');
    expect(c.exercised).toBe(2);
    expect(c.unexercised).toEqual([
      {
        caseId: 'c1',
        step: 's1',
        title: 'check 1',
        message: 'not judged: the answer lacks what the check needs (status 206)',
      },
    ]);
    expect(c.message).toBe(
      '2 of 3 checks exercised; not c1 (s1: check 1): not judged: the answer lacks what the check needs (status 206)',
    );
  });

  it('is blocked only when no check could be exercised', () => {
    expect(verdictOf('blocked', 'blocked').verdict).toBe('blocked');
    expect(verdictOf('blocked', 'skipped').verdict).toBe('blocked');
  });

  it('fails on one failing check, and errors on one erroring, whatever else was exercised', () => {
    expect(verdictOf('pass', 'blocked', 'fail').verdict).toBe('fail');
    expect(verdictOf('pass', 'error').verdict).toBe('error');
    expect(verdictOf('fail', 'error').verdict).toBe('fail');
  });

  it('names nothing unexercised on a full pass', () => {
    const c = verdictOf('pass', 'skipped');
    expect(c.verdict).toBe('pass');
    expect(c.unexercised).toBeUndefined();
    expect(c.message).toBeUndefined();
  });

  it('is carried by the JSON document as its schema says, and named in the Markdown report', () => {
    const c = verdictOf('pass', 'blocked');
    expect(schemas().check('results.schema.json#/definitions/clause', c)).toBeUndefined();
    const md = renderMarkdown({ ...sampleResults(), clauses: [c] });
    expect(md).toContain('Passing clauses with checks not exercised (1)');
    expect(md).toContain('1 of 2 checks exercised');
  });
});
