import { describe, expect, it } from 'vitest';
import { runAgainstEmbedded } from '../cli/embedded.ts';
import { FAULTS, type FaultDef } from '../reference/faults.ts';
import { today } from '../runner/api.ts';
import { loadClauses } from '../runner/load/clauses.ts';
import { type Clause, clauseApplies } from '../runner/model/clause.ts';

/*
 * Each management fault of the reference breaks one documented behaviour. With the fault on, the
 * clauses that fail or error must be exactly the ones the fault lists (those whose date window
 * includes the as-of date of the run), and nothing else. A dated fault is run at dates chosen so
 * that every clause it lists is judged at least once.
 */

const AREAS = ['management', 'deprecations'];
const clauses = loadClauses(AREAS);
const faults = FAULTS.filter((f) => f.area === 'management');

function dayBefore(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** A date inside the clause's window: its since date, else the day before its until date, else today. */
function dateInside(c: Pick<Clause, 'since' | 'until'>): string {
  if (c.since) return c.since;
  if (c.until) return dayBefore(c.until);
  return today();
}

/** As few as-of dates as cover every clause the fault breaks, with the clauses expected at each. */
function plan(fault: FaultDef): { asOf: string; expected: string[] }[] {
  const left = new Set(fault.breaks);
  const runs: { asOf: string; expected: string[] }[] = [];
  while (left.size > 0) {
    const candidates = [...left].map((id) =>
      dateInside(clauses.get(id) ?? { since: undefined, until: undefined }),
    );
    // The date that covers the most remaining clauses.
    let best = candidates[0];
    let bestCount = -1;
    for (const d of candidates) {
      const n = [...left].filter((id) => clauses.has(id) && clauseApplies(clauses.get(id)!, d)).length;
      if (n > bestCount) [best, bestCount] = [d, n];
    }
    const expected = fault.breaks.filter((id) => clauses.has(id) && clauseApplies(clauses.get(id)!, best));
    if (expected.length === 0) break;
    for (const id of expected) left.delete(id);
    runs.push({ asOf: best, expected: expected.sort() });
  }
  return runs;
}

describe('management faults are noticed by exactly the clauses they break', () => {
  it('without faults, no clause fails, errors or is blocked', async () => {
    const results = await runAgainstEmbedded({ suites: AREAS });
    const bad = results.clauses
      .filter((c) => ['fail', 'error', 'blocked'].includes(c.verdict))
      .map((c) => c.id);
    expect(bad).toEqual([]);
  }, 60_000);

  it('every clause a management fault lists exists in the management or deprecations catalog', () => {
    const unknown = faults.flatMap((f) =>
      f.breaks.filter((id) => !clauses.has(id)).map((id) => `${f.name}: ${id}`),
    );
    expect(unknown).toEqual([]);
  });

  it('every management fault lists at least one clause', () => {
    expect(faults.filter((f) => f.breaks.length === 0).map((f) => f.name)).toEqual([]);
  });

  it.each(faults.map((f) => [f.name, f] as const))(
    '%s',
    async (_name, fault) => {
      for (const { asOf, expected } of plan(fault)) {
        const results = await runAgainstEmbedded({
          suites: AREAS,
          asOf,
          reference: { faults: [fault.name] },
        });
        const failing = results.clauses
          .filter((c) => c.verdict === 'fail' || c.verdict === 'error')
          .map((c) => c.id)
          .sort();
        expect({ asOf, failing }).toEqual({ asOf, failing: expected });
        expect(results.exitCode).toBe(1);
      }
    },
    60_000,
  );
});
