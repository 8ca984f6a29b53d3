import pLimit from 'p-limit';
import { afterAll, describe, expect, it } from 'vitest';
import { FAULTS, type FaultDef } from '../reference/faults.ts';
import { today } from '../runner/api.ts';
import { loadClauses } from '../runner/load/clauses.ts';
import { type Clause, clauseApplies } from '../runner/model/clause.ts';
import type { RunResults } from '../runner/model/results.ts';
import { changedOutside, type FaultReach, faultReach, pick, unjudged } from './helpers/fault-reach.ts';
import { tracedRunInThread } from './helpers/in-thread.ts';

/*
 * Each management fault of the reference breaks one documented behaviour. With the fault on, the
 * clauses that fail or error must be exactly the ones the fault lists (those whose date window
 * includes the as-of date of the run), and nothing else. A dated fault is run at dates chosen so
 * that every clause it lists is judged at least once.
 *
 * As in test/suite-s3-sensitivity.test.ts, a fault runs with only the cases whose requests reach
 * its decision point in the fault-free run at the same date and seed (reference/fault-trace.ts):
 * management requests name their case in their User-Agent. The argument there holds here with
 * one more premise: the management cases share a zone, so a case must not judge what another
 * case wrote. Cases create records, rules and jobs of their own, named with the run's prefix and
 * their slug, and judge those; lists judge their own items or the envelope. The guards are the
 * same: a fault reached in a request that names no case (the sweep, a raw request, the seeded
 * state), never reached, or whose cases do not cite every clause it breaks runs against the
 * whole suite; and a few narrowed faults a day (EDGECHECK_SENSITIVITY_SEED,
 * EDGECHECK_SENSITIVITY_CROSSCHECK) also run against the whole suite, which must give the same
 * verdict and leave every other case's checks as the fault-free run judged them.
 */

const AREAS = ['management', 'deprecations'];
const SEED = 20261123;
const clauses = loadClauses(AREAS);
const faults = FAULTS.filter((f) => f.area === 'management');

const ROTATION_SEED = Number(process.env.EDGECHECK_SENSITIVITY_SEED ?? Math.floor(Date.now() / 86_400_000));
const CROSSCHECK = process.env.EDGECHECK_SENSITIVITY_CROSSCHECK ?? '3';
// Generous: it bounds a hung run, not speed; a slow or busy machine must not fail a proof.
// A run beside a CPU hog and other test files kept some faults queued past 15 minutes.
const TIMEOUT = 3_600_000;

/**
 * Runs at once. Each is a runner and a reference in this thread, and most of a narrowed run's time
 * is the rulesets case's pause for a one-second timestamp to move on: six at a time overlap those
 * waits (the file's CPU is about 14 s, its wall time was four times that two at a time).
 */
const limit = pLimit(6);

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

const failing = (r: RunResults) =>
  r.clauses
    .filter((c) => c.verdict === 'fail' || c.verdict === 'error')
    .map((c) => c.id)
    .sort();

/** A run against a reference in this thread (it starts in milliseconds), optionally traced. */
const inThread = (asOf: string, faultNames: string[], cases?: string[], traceFaults = false) =>
  tracedRunInThread({ suites: AREAS, seed: SEED, cases, asOf, faults: faultNames }, traceFaults);

/** The whole suite with the fault on, its reference in this thread as for the narrowed runs. */
const wholeSuite = async (asOf: string, fault: FaultDef) => (await inThread(asOf, [fault.name])).results;

interface FaultFree extends FaultReach {
  results: RunResults;
}

/** One proof obligation: the fault at one date, and the runs that discharge it. */
interface Obligation {
  fault: FaultDef;
  asOf: string;
  expected: string[];
  cases?: Set<string>;
  /** Why the whole suite runs. */
  reason?: string;
  narrowed?: Promise<RunResults>;
  full?: Promise<RunResults>;
}

interface Proof {
  bases: Map<string, Promise<FaultFree>>;
  obligations: Map<string, Obligation[]>;
  crossChecked: Set<Obligation>;
}

function queued<T>(job: () => Promise<T>): Promise<T> {
  const started = limit(job);
  started.catch(() => {});
  return started;
}

/** Every date's traced fault-free run, then every fault's runs, whole-suite ones first. */
async function prove(): Promise<Proof> {
  const obligations = new Map(
    faults.map((f) => [f.name, plan(f).map((p) => ({ fault: f, ...p }) as Obligation)] as const),
  );
  const dates = new Set([today(), ...[...obligations.values()].flat().map((o) => o.asOf)]);
  const bases = new Map(
    [...dates].map((asOf) => [
      asOf,
      queued(async () => {
        const { results, trace } = await inThread(asOf, [], undefined, true);
        return { results, ...faultReach(trace!, results) };
      }),
    ]),
  );
  const all = [...obligations.values()].flat();
  for (const o of all) {
    const base = await bases.get(o.asOf)!;
    const reached = base.reachedBy.get(o.fault.name);
    if (base.unattributed.has(o.fault.name)) o.reason = 'reached in a request that names no case';
    else if (!reached) o.reason = 'never reached in the fault-free run';
    else o.cases = reached;
  }
  const narrowable = all.filter((o) => o.cases);
  const count = CROSSCHECK === 'all' ? narrowable.length : Number(CROSSCHECK);
  const crossChecked = new Set(pick(narrowable, count, ROTATION_SEED));
  for (const o of all)
    if (!o.cases || crossChecked.has(o)) o.full = queued(() => wholeSuite(o.asOf, o.fault));
  for (const o of narrowable) {
    o.narrowed = queued(async () => (await inThread(o.asOf, [o.fault.name], [...o.cases!].sort())).results);
  }
  return { bases, obligations, crossChecked };
}

let proof: Promise<Proof> | undefined;
const proven = () => {
  proof ??= prove();
  return proof;
};

describe('management faults are noticed by exactly the clauses they break', () => {
  afterAll(async () => {
    if (!proof) return;
    const all = [...(await proof).obligations.values()].flat();
    const full = all.filter((o) => o.reason);
    const lines = full.map((o) => `  ${o.fault.name} at ${o.asOf}: ${o.reason}`);
    console.log(
      `management faults run against the whole suite (${full.length} of ${all.length} runs):\n${lines.join('\n')}`,
    );
  });

  it(
    'without faults, no clause fails, errors or is blocked at any date a fault is run at',
    async () => {
      const { bases, crossChecked } = await proven();
      console.log(
        `cross-checking ${[...crossChecked].map((o) => `${o.fault.name} at ${o.asOf}`).join(', ') || 'nothing'} ` +
          `against the whole suite (EDGECHECK_SENSITIVITY_SEED=${ROTATION_SEED})`,
      );
      for (const [asOf, base] of bases) {
        const { results } = await base;
        const bad = results.clauses
          .filter((c) => ['fail', 'error', 'blocked'].includes(c.verdict))
          .map((c) => c.id);
        expect({ asOf, bad }).toEqual({ asOf, bad: [] });
      }
    },
    TIMEOUT,
  );

  it('every clause a management fault lists exists in the management or deprecations catalog', () => {
    const unknown = faults.flatMap((f) =>
      f.breaks.filter((id) => !clauses.has(id)).map((id) => `${f.name}: ${id}`),
    );
    expect(unknown).toEqual([]);
  });

  it('every management fault lists at least one clause', () => {
    expect(faults.filter((f) => f.breaks.length === 0).map((f) => f.name)).toEqual([]);
  });

  for (const fault of faults) {
    it.concurrent(
      fault.name,
      async () => {
        const { bases, obligations } = await proven();
        for (const o of obligations.get(fault.name)!) {
          const { asOf, expected } = o;
          if (o.narrowed) {
            const narrowed = await o.narrowed;
            const uncited = unjudged(narrowed, expected);
            if (uncited.length) {
              o.reason = `the cases that reach it do not judge ${uncited.join(', ')}`;
              o.full ??= queued(() => wholeSuite(asOf, fault));
            } else {
              expect({ asOf, failing: failing(narrowed) }).toEqual({ asOf, failing: expected });
            }
          }
          if (!o.full) continue;
          const full = await o.full;
          expect({ asOf, failing: failing(full) }).toEqual({ asOf, failing: expected });
          expect(full.exitCode).toBe(1);
          if (o.cases && !o.reason) {
            // A cross-check: the cases the trace left out judged every check as without the fault.
            const changed = changedOutside((await bases.get(asOf)!).results, full, o.cases);
            expect({ asOf, changedOutsideTheTrace: changed }).toEqual({ asOf, changedOutsideTheTrace: [] });
          }
        }
      },
      TIMEOUT,
    );
  }
});
