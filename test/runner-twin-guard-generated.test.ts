import pLimit from 'p-limit';
import { beforeAll, describe, expect, it } from 'vitest';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import { match } from '../runner/match/value.ts';
import type { CaseDef, CheckDef, StepDef } from '../runner/model/case.ts';
import type { CheckResult, RunResults } from '../runner/model/results.ts';
import { expectsRefusal } from '../runner/run/outcome.ts';
import {
  acceptance,
  refusal,
  runCaseThroughFronts,
  type StepAnswer,
  stepLabel,
} from './helpers/step-proxy.ts';

/*
 * The valid-twin rule, proved for every twin the suites name, by construction: a test walks the
 * loaded suites, and for each case with a refusal guarded by a twin (`twin:`) it runs the case
 * through a front that refuses every twin of the case (403) and answers the guarded steps in
 * three ways:
 *
 * - accepted: what had to be refused is carried out (200): each check expecting a refusal fails,
 *   and its clause with it, whatever the twin got; a later one that reads what the carried-out
 *   step wrote may instead be blocked by it (its state is unknown), never by the twin;
 * - refused as expected (the reference's own answer): each guarded check is blocked, not passed,
 *   since a refusal of everything is no refusal for the clause's reason;
 * - refused with another status than the check names: each such check fails (or, reading what an
 *   earlier carried-out step wrote, is blocked by it).
 *
 * A new twin in a case is covered without anyone writing a fault for it.
 */

const loaded = await loadSuites(listAreas(), listAreas());
const AS_OF = today();
const SEED = 20261202;

interface Guarded {
  step: StepDef;
  label: string;
  /** Checks expecting a refusal, by their index in the case's results. */
  refusals: { def: CheckDef; index: number }[];
  /** Every check of the step, by index. */
  all: number[];
}

interface TwinCase {
  c: CaseDef;
  twins: Set<string>;
  guarded: Guarded[];
}

function twinCases(): TwinCase[] {
  const out: TwinCase[] = [];
  for (const c of loaded.cases) {
    let index = 0;
    const guarded: Guarded[] = [];
    const twins = new Set<string>();
    for (const s of [...c.given, ...c.steps]) {
      const checks = (s.expect ?? []).map((def) => ({ def, index: index++ }));
      if (!s.twin?.length) continue;
      for (const t of s.twin) twins.add(t);
      guarded.push({
        step: s,
        label: stepLabel(c, s),
        // Raw bytes to S3 carry only the headers their case writes, so no front can tell their step.
        refusals:
          s.kind === 'wire' && s.wire.endpoint !== 'management'
            ? []
            : checks.filter((k) => expectsRefusal(k.def)),
        all: checks.map((k) => k.index),
      });
    }
    if (guarded.length) out.push({ c, twins, guarded });
  }
  return out;
}

const doorOf = (s: StepDef): 's3' | 'management' =>
  s.kind === 'api' || (s.kind === 'wire' && s.wire.endpoint === 'management') ? 'management' : 's3';

/** A refusal status none of the step's refusal checks accepts, or undefined when each accepts every one. */
function otherStatus(g: Guarded): number | undefined {
  return [409, 400, 403, 404, 405, 422, 501].find((status) =>
    g.refusals.every((k) => k.def.status === undefined || match(k.def.status, status) !== undefined),
  );
}

type Scenario = 'accepted' | 'expected' | 'other';

/** One run of the case through fronts that refuse its twins and answer its guarded steps by `scenario`. */
async function runCase(t: TwinCase, scenario: Scenario): Promise<RunResults> {
  const steps = new Map(t.guarded.map((g) => [g.label, g]));
  const answer = (caseId: string, step: string): StepAnswer | undefined => {
    if (caseId !== t.c.id) return undefined;
    const twin = [...t.c.given, ...t.c.steps].find((s) => s.id === step && t.twins.has(step));
    if (twin && !steps.has(step)) return refusal(doorOf(twin), 403, 'AccessDenied');
    const g = steps.get(step);
    if (!g?.refusals.length) return undefined;
    if (scenario === 'accepted') return acceptance(doorOf(g.step));
    const status = otherStatus(g);
    if (scenario === 'other' && status) return refusal(doorOf(g.step), status, 'OperationAborted');
    return undefined;
  };
  return (await runCaseThroughFronts(t.c.id, { asOf: AS_OF, seed: SEED }, answer)).results;
}

/** A check blocked because an earlier step was carried out where it had to be refused, not by its twin. */
const blockedByState = (step: string) => ({
  step,
  got: { verdict: 'blocked', message: expect.not.stringContaining('valid twin') },
});

const cases = twinCases();
const limit = pLimit(2);
const verdictsOf = (r: RunResults, id: string): CheckResult[] =>
  r.cases
    .find((c) => c.id === id)
    ?.checks.slice()
    .sort((a, b) => a.index - b.index) ?? [];

describe(`every valid twin of the suites (${cases.length} cases, ${cases.reduce((n, t) => n + t.guarded.length, 0)} guarded steps)`, () => {
  it('holds cases with twins in every suite that refuses', () => {
    expect(cases.length).toBeGreaterThan(20);
  });

  for (const t of cases) {
    describe(t.c.id, () => {
      let runs: Record<Scenario, RunResults>;
      beforeAll(async () => {
        const scenarios: Scenario[] = ['accepted', 'expected', 'other'];
        const results = await Promise.all(scenarios.map((s) => limit(() => runCase(t, s))));
        runs = Object.fromEntries(scenarios.map((s, i) => [s, results[i]])) as Record<Scenario, RunResults>;
      }, 120_000);

      // Out of its date window or profile a check is skipped whatever the answers (the fault-free
      // runs of the suites hold every guarded check to a pass where the twins are served).
      const judged = (index: number) => verdictsOf(runs.expected, t.c.id)[index]?.verdict !== 'skipped';

      it('twins refused, what had to be refused carried out: each refusal check fails, and its clause', () => {
        const checks = verdictsOf(runs.accepted, t.c.id);
        let failed = 0;
        for (const g of t.guarded) {
          for (const k of g.refusals) {
            if (!judged(k.index)) continue;
            const got = checks[k.index];
            if (got?.verdict === 'fail') {
              failed++;
              for (const id of k.def.clauses)
                expect({
                  clause: id,
                  verdict: runs.accepted.clauses.find((c) => c.id === id)?.verdict,
                }).toEqual({
                  clause: id,
                  verdict: 'fail',
                });
            } else expect({ step: g.label, got }).toMatchObject(blockedByState(g.label));
          }
        }
        if (t.guarded.some((g) => g.refusals.some((k) => judged(k.index)))) expect(failed).toBeGreaterThan(0);
      });

      it('twins refused, the refusal as expected: each guarded check is blocked, not passed', () => {
        const checks = verdictsOf(runs.expected, t.c.id);
        let guarded = 0;
        for (const g of t.guarded)
          for (const i of g.all) {
            if (!judged(i)) continue;
            expect({ step: g.label, verdict: checks[i]?.verdict }).toEqual({
              step: g.label,
              verdict: 'blocked',
            });
            if (checks[i]?.message?.includes('valid twin')) guarded++;
          }
        if (t.guarded.some((g) => g.all.some(judged))) expect(guarded).toBeGreaterThan(0);
      });

      it('twins refused, the refusal with another status: each check naming the status fails', () => {
        const checks = verdictsOf(runs.other, t.c.id);
        for (const g of t.guarded) {
          const status = otherStatus(g);
          if (status === undefined) continue;
          for (const k of g.refusals) {
            if (!judged(k.index) || k.def.status === undefined) continue;
            const got = checks[k.index];
            if (got?.verdict !== 'fail')
              expect({ step: g.label, status, got }).toMatchObject(blockedByState(g.label));
          }
        }
      });
    });
  }
});
