import pLimit from 'p-limit';
import { afterAll, describe, expect, it } from 'vitest';
import { FAULTS, type FaultDef } from '../reference/faults.ts';
import { loadClauses } from '../runner/load/clauses.ts';
import type { RunResults } from '../runner/model/results.ts';
import { changedOutside, type FaultReach, faultReach, pick, unjudged } from './helpers/fault-reach.ts';
import { transcripts } from './helpers/foreign-baseline.ts';
import { tracedRunInThread } from './helpers/in-thread.ts';

/*
 * Each S3 fault of the reference breaks one documented behaviour. With the fault on, the S3
 * clauses that fail or error must be exactly the ones the fault lists, and nothing else; with no
 * fault, every testable S3 clause passes. The seed is fixed so that the properties replay.
 *
 * Running the whole suite once per fault proves that, but slowly. Here each fault runs with only
 * the cases that can notice it, which proves the same, by induction over the requests of a case:
 *
 * - The fault-free run is traced (reference/fault-trace.ts): each time a request reaches a
 *   fault's decision point (`faults.has(name)`, whether the fault is on or off), the trace notes
 *   the bucket the request addresses. The reference asks each fault only where it would change
 *   the answer. The runner names every bucket ec-<run id>-<slug>-<label>, properties' own buckets
 *   included (ctx.bucketName), and the slug is the case's place in the suite whatever the filter,
 *   so a bucket names the case that sent the request.
 * - Take a case none of whose requests reached fault F's decision point. With F on, its first
 *   request is the same (same seed, same names but for the run id); the reference takes the same
 *   path up to the first point where F could change anything, which it never reaches, so the
 *   answer is the same; so is the next request, built from the same answers, and so on: the case
 *   sees what it saw in the fault-free run, and its checks pass as they did there. That needs no
 *   other case's requests to change what this case is answered, and S3 cases each work in
 *   buckets of their own. ListBuckets is the one view of other cases' state, and the cases using
 *   it judge only their own buckets: other cases' buckets come and go at any moment of a run.
 * - So with F on, the clauses that fail or error in a whole run are those that fail or error
 *   among the cases that reached F: a clause takes the worst verdict of the checks citing it, and
 *   the other cases' checks pass. The run with F on selects just those cases (by id); the clauses
 *   they do not cite are not judged there, and pass by the argument above.
 *
 * Guards. A fault runs against the whole suite, as before, when the trace cannot name the case
 * that reached it (a request with no bucket, such as ListBuckets, or a consult outside any
 * request), when nothing reached it, or when its cases do not cite every clause it breaks. And
 * on every run a few narrowed faults, chosen by a seed that changes daily (printed; set
 * EDGECHECK_SENSITIVITY_SEED to replay it, EDGECHECK_SENSITIVITY_CROSSCHECK to a number or `all`
 * to check more), also run against the whole suite: its verdict must be the same, and every case
 * the trace left out must judge each check as in the fault-free run. Over the days that catches
 * state shared between cases, should any appear.
 */

const SEED = 20261122;
/**
 * Every S3 fault, controls included: a control breaks no clause by design, and its run must show
 * nothing failed, errored or blocked. The same argument narrows its run: a case that never reached
 * the control is answered as without it.
 */
const faults = FAULTS.filter((f) => f.area === 's3');

function isControl(f: FaultDef): boolean {
  return f.breaks.length === 0 && f.description.startsWith('Control: ');
}
const clauses = loadClauses(['s3']);

const ROTATION_SEED = Number(process.env.EDGECHECK_SENSITIVITY_SEED ?? Math.floor(Date.now() / 86_400_000));
const CROSSCHECK = process.env.EDGECHECK_SENSITIVITY_CROSSCHECK ?? '3';

/** Every fault's runs are queued at once, so a test's time includes its wait in the queue. */
// Generous: it bounds a hung run, not speed; a slow or busy machine must not fail a proof.
// A run beside a CPU hog and other test files kept some faults queued past 15 minutes.
const TIMEOUT = 3_600_000;

/** Runs at once (the machine may have two cores: this thread, and the workers of long runs). */
const limit = pLimit(3);

const broken = (r: RunResults) =>
  r.clauses
    .filter((c) => c.area === 's3' && (c.verdict === 'fail' || c.verdict === 'error'))
    .map((c) => c.id)
    .sort();

const why = (r: RunResults) =>
  r.clauses
    .filter((c) => c.verdict === 'fail' || c.verdict === 'error' || c.verdict === 'blocked')
    .map((c) => `${c.id}: ${c.verdict} ${(c.message ?? '').split('\n')[0].slice(0, 200)}`);

/** What a control's run must show: nothing failed, errored or blocked. */
const clean = (f: FaultDef) => ({ fault: f.name, wrong: [] });

/** A run against a reference in this thread, optionally tracing its faults. */
const inThread = (faultNames: string[], cases?: string[], traceFaults = false) =>
  tracedRunInThread({ suites: ['s3'], seed: SEED, cases, faults: faultNames }, traceFaults);

/** A run with the fault on, narrowed to `cases` or of the whole suite, its reference in this thread. */
async function withFault(fault: FaultDef, cases?: string[]): Promise<RunResults> {
  return (await inThread([fault.name], cases)).results;
}

/** What the fault-free run shows. */
interface FaultFree extends FaultReach {
  results: RunResults;
}

/** The fault-free run, against a reference in this thread so that its fault trace can be read. */
async function faultFreeRun(): Promise<FaultFree> {
  const { results, trace } = await inThread([], undefined, true);
  // S3 cases share no state (see above): a case's teardown touches only what the case made.
  return { results, ...faultReach(trace!, results, false) };
}

/** How one fault is proved: with the cases that reach it, or (for `reason`) with the whole suite. */
interface Plan {
  /** The cases whose requests reached the fault; undefined for a whole-suite run. */
  cases?: Set<string>;
  /** Why the whole suite runs. */
  reason?: string;
  narrowed?: Promise<RunResults>;
  /** The whole suite with the fault on: for `reason`, or to cross-check the narrowed run. */
  full?: Promise<RunResults>;
}

interface Proof {
  base: FaultFree;
  plans: Map<string, Plan>;
  crossChecked: string[];
}

/**
 * The fault-free run, then every fault's runs at once, longest first, so that the last to finish
 * are short ones.
 */
async function prove(): Promise<Proof> {
  const base = await faultFreeRun();
  const plans = new Map<string, Plan>();
  for (const fault of faults) {
    const reached = base.reachedBy.get(fault.name);
    if (base.unattributed.has(fault.name))
      plans.set(fault.name, { reason: 'reached in a request that names no case' });
    else if (!reached) plans.set(fault.name, { reason: 'never reached in the fault-free run' });
    else plans.set(fault.name, { cases: reached });
  }
  const narrowable = faults.filter((f) => plans.get(f.name)!.cases);
  const count = CROSSCHECK === 'all' ? narrowable.length : Number(CROSSCHECK);
  const crossChecked = pick(narrowable, count, ROTATION_SEED).map((f) => f.name);
  const all = base.results.cases.length;
  const jobs: { cost: number; start: () => void }[] = [];
  for (const fault of faults) {
    const plan = plans.get(fault.name)!;
    if (plan.cases) {
      const cases = [...plan.cases].sort();
      jobs.push({ cost: cases.length, start: () => (plan.narrowed = run(() => withFault(fault, cases))) });
    }
    if (!plan.cases || crossChecked.includes(fault.name)) {
      jobs.push({ cost: all, start: () => (plan.full = run(() => withFault(fault))) });
    }
  }
  for (const job of jobs.sort((a, b) => b.cost - a.cost)) job.start();
  return { base, plans, crossChecked };
}

/** A run queued now and awaited by its fault's test later: a failure waits for the test to report it. */
function run(job: () => Promise<RunResults>): Promise<RunResults> {
  const started = limit(job);
  started.catch(() => {});
  return started;
}

let proof: Promise<Proof> | undefined;
const proven = () => {
  proof ??= prove();
  return proof;
};

describe('the S3 suite against the reference', () => {
  afterAll(async () => {
    if (!proof) return;
    const { plans } = await proof;
    const full = [...plans].filter(([, p]) => p.reason);
    const lines = full.map(([name, p]) => `  ${name}: ${p.reason}`);
    console.log(
      `S3 faults run against the whole suite (${full.length} of ${faults.length}):\n${lines.join('\n')}`,
    );
  });

  it(
    'passes every testable S3 clause of the fault-free reference: no fail, error or blocked',
    async () => {
      const { base, crossChecked } = await proven();
      console.log(
        `cross-checking ${crossChecked.join(', ') || 'no fault'} against the whole suite ` +
          `(EDGECHECK_SENSITIVITY_SEED=${ROTATION_SEED})`,
      );
      const r = base.results;
      expect(why(r)).toEqual([]);
      const untested = r.clauses.filter((c) => c.verdict === 'untested' && !c.untestable).map((c) => c.id);
      expect(untested).toEqual([]);
      expect(r.summary.clauses.pass).toBeGreaterThan(100);
    },
    TIMEOUT,
  );

  it('has S3 faults to catch, each listing clauses of the S3 catalog', () => {
    expect(faults.length).toBeGreaterThan(0);
    const unknown = faults.flatMap((f) =>
      f.breaks.filter((id) => !clauses.has(id)).map((id) => `${f.name}: ${id}`),
    );
    expect(unknown).toEqual([]);
    // A control breaks nothing by design, and says so; any other fault breaks a clause.
    const uncaught = faults.filter((f) => f.breaks.length === 0 && !isControl(f)).map((f) => f.name);
    expect(uncaught).toEqual([]);
    expect(faults.filter(isControl).length).toBeGreaterThan(0);
  });

  for (const fault of faults) {
    it.concurrent(
      `notices fault ${fault.name} by exactly the clauses it breaks`,
      async () => {
        const { base, plans } = await proven();
        const plan = plans.get(fault.name)!;
        const expected = { fault: fault.name, broken: [...fault.breaks].sort() };
        if (plan.narrowed) {
          const narrowed = await plan.narrowed;
          const uncited = unjudged(narrowed, fault.breaks);
          if (uncited.length) {
            plan.reason = `the cases that reach it do not judge ${uncited.join(', ')}`;
            plan.full ??= run(() => withFault(fault));
          } else {
            const movedHere = broken(narrowed)
              .filter((id) => !expected.broken.includes(id))
              .concat(expected.broken.filter((id) => !broken(narrowed).includes(id)));
            expect({ fault: fault.name, broken: broken(narrowed) }, transcripts(narrowed, movedHere)).toEqual(
              expected,
            );
            if (isControl(fault)) expect({ fault: fault.name, wrong: why(narrowed) }).toEqual(clean(fault));
          }
        }
        if (!plan.full) return;
        const full = await plan.full;
        // What a clause that moved saw, in the message itself: a CI log alone must show why.
        const moved = broken(full)
          .filter((id) => !expected.broken.includes(id))
          .concat(expected.broken.filter((id) => !broken(full).includes(id)));
        expect({ fault: fault.name, broken: broken(full) }, transcripts(full, moved)).toEqual(expected);
        if (isControl(fault)) expect({ fault: fault.name, wrong: why(full) }).toEqual(clean(fault));
        if (plan.cases && !plan.reason) {
          // A cross-check: the cases the trace left out judged every check as without the fault.
          const changed = changedOutside(base.results, full, plan.cases);
          const shown = changedChecks(base.results, full, changed);
          expect({ fault: fault.name, changedOutsideTheTrace: changed }, shown).toEqual({
            fault: fault.name,
            changedOutsideTheTrace: [],
          });
        }
      },
      TIMEOUT,
    );
  }
});

/** Each check of the changed cases that differs, with its message in both runs. */
function changedChecks(base: RunResults, full: RunResults, changed: string[]): string {
  const ids = new Set(changed.map((c) => c.split(':')[0]));
  const lines: string[] = [];
  for (const c of full.cases) {
    if (!ids.has(c.id)) continue;
    const before = base.cases.find((b) => b.id === c.id);
    for (const k of c.checks) {
      const was = before?.checks.find((b) => b.index === k.index);
      if (was?.verdict === k.verdict) continue;
      lines.push(`${c.id} ${k.step}#${k.index} (${k.clauses.join(', ')})`);
      lines.push(`  without the fault: ${was?.verdict} ${was?.message ?? ''}`);
      lines.push(`  with it: ${k.verdict} ${k.message ?? ''}`);
      if (k.exchange?.request) lines.push(`  sent: ${k.exchange.request.method} ${k.exchange.request.url}`);
      if (k.exchange)
        lines.push(
          `  got: ${k.exchange.response.status} ${(k.exchange.response.body?.text ?? '').slice(0, 300)}`,
        );
    }
  }
  return lines.join('\n');
}
