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
    const differing = [...new Set([...Object.keys(observed), ...Object.keys(expected)])].filter(
      (id) => observed[id] !== expected[id],
    );
    expect(observed, transcripts(r, differing)).toEqual(expected);
    expect(r.baseline).toMatchObject({ newFailures: [], fixed: [] });
    const blockedNow = r.clauses.filter((c) => c.verdict === 'blocked').map((c) => c.id);
    const moved = blockedNow
      .filter((id) => !(id in blocked))
      .concat(Object.keys(blocked).filter((id) => !blockedNow.includes(id)));
    expect(blockedNow.sort(), transcripts(r, moved)).toEqual(Object.keys(blocked).sort());
  });

  it(`judges every other testable clause: pass, or skipped for a feature ${name} lacks`, () => {
    const r = results();
    const other = r.clauses
      .filter((c) => !(c.id in baseline.clauses) && !(c.id in blocked) && !c.untestable)
      .filter((c) => c.verdict !== 'pass' && !(c.verdict === 'skipped' && c.feature))
      .map((c) => c.id);
    expect(other, transcripts(r, other)).toEqual([]);
  });
}

/**
 * What a CI log needs to tell why a clause moved, without the files the run left: for each clause,
 * its verdict and message, then each check of it that did not pass with what was sent and what came back.
 */
export function transcripts(r: RunResults, ids: string[]): string {
  const out: string[] = [];
  for (const id of ids) {
    const clause = r.clauses.find((c) => c.id === id);
    out.push(`${id}: ${clause?.verdict ?? 'not in the run'}${clause?.message ? ` (${clause.message})` : ''}`);
    for (const c of r.cases)
      for (const k of c.checks) {
        if (!k.clauses.includes(id) || k.verdict === 'pass' || k.verdict === 'skipped') continue;
        out.push(`  ${k.verdict} ${c.id} ${k.step}: ${k.message ?? ''}`);
        const ex = k.exchange;
        if (ex?.request) out.push(`    sent: ${ex.request.method} ${ex.request.url}`);
        if (ex?.command) out.push(`    sent: ${ex.command}`);
        if (ex) {
          const body = ex.response.body?.text ?? ex.response.output ?? '';
          out.push(
            `    got: ${ex.response.status}${ex.response.error ? ` ${ex.response.error.name}` : ''} ${body.slice(0, 400)}`,
          );
        }
      }
  }
  return out.join('\n');
}
