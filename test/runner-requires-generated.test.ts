import pLimit from 'p-limit';
import { describe, expect, it } from 'vitest';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { CaseDef, CheckDef, StepDef } from '../runner/model/case.ts';
import type { RunResults } from '../runner/model/results.ts';
import { type Rewrite, runCaseThroughFronts, stepLabel } from './helpers/step-proxy.ts';

/*
 * Every precondition of the suites (`requires`), proved by construction: a test walks the loaded
 * suites, and for each check with a precondition it runs its case through a front that rewrites the
 * target's answer to that step so that the precondition no longer holds (the other branch: the
 * status, header or document the check needs to read is not there). The check must then be
 * blocked, never failed: what it needs in order to be judged is no verdict of its clauses. And its
 * clause is blocked only where none of its checks in the run could be exercised: one that passed
 * elsewhere in the case keeps it judged.
 */

const loaded = await loadSuites(listAreas(), listAreas());
const AS_OF = today();
const SEED = 20261202;

interface Precondition {
  c: CaseDef;
  step: StepDef;
  label: string;
  check: CheckDef;
  /** The check's index among the case's results. */
  index: number;
  rewrite: Rewrite;
}

const EMPTY_ENVELOPE = JSON.stringify({ success: true, errors: [], messages: [], result: null });

/**
 * An answer that takes the other branch of `requires`: without the headers it names, with another
 * document where it reads the body, with another status of the class where it names one. Undefined
 * where no rewrite of the answer can (an SDK output is the SDK's reading of headers and body).
 */
function otherBranch(requires: NonNullable<CheckDef['requires']>): Rewrite | undefined {
  if (requires.output !== undefined) return undefined;
  return (a) => {
    const headers = { ...a.headers };
    for (const h of Object.keys(requires.headers ?? {})) delete headers[h.toLowerCase()];
    let { body, status } = a;
    if (requires.json !== undefined) {
      // A precondition on the whole document (that there is JSON at all) takes a body that is none.
      const whole = Object.hasOwn(requires.json, '');
      body = whole ? '<html><body>not JSON</body></html>' : EMPTY_ENVELOPE;
      headers['content-type'] = whole ? 'text/html' : 'application/json';
    }
    if (requires.xml !== undefined) {
      body = '<?xml version="1.0" encoding="UTF-8"?>\n<Other></Other>';
      headers['content-type'] = 'application/xml';
    }
    if (requires.body?.empty === false) body = '';
    if (requires.status !== undefined) status = status === 200 ? 203 : 200;
    return { status, headers, body };
  };
}

function preconditions(): Precondition[] {
  const out: Precondition[] = [];
  for (const c of loaded.cases) {
    let index = 0;
    for (const step of [...c.given, ...c.steps]) {
      for (const check of step.expect ?? []) {
        const i = index++;
        const rewrite = check.requires && otherBranch(check.requires);
        if (rewrite) out.push({ c, step, label: stepLabel(c, step), check, index: i, rewrite });
      }
    }
  }
  return out;
}

/** The case, with the one step's answer rewritten to the other branch of the check's precondition. */
async function runOtherBranch(p: Precondition): Promise<{ results: RunResults; rewritten: number }> {
  const { results, answered } = await runCaseThroughFronts(
    p.c.id,
    { asOf: AS_OF, seed: SEED },
    () => undefined,
    (caseId, step) => (caseId === p.c.id && step === p.label ? p.rewrite : undefined),
  );
  return { results, rewritten: answered.length };
}

const all = preconditions();
const limit = pLimit(2);

describe(`every precondition of the suites, its other branch taken (${all.length} checks)`, () => {
  it('finds the preconditions the suites hold', () => {
    expect(all.length).toBeGreaterThan(40);
  });

  for (const p of all) {
    it(`${p.c.id} ${p.label}: ${p.check.clauses.join(', ')} is not exercised, and its clause judged on the others`, async () => {
      const { results: r, rewritten } = await limit(() => runOtherBranch(p));
      const checks = r.cases.find((c) => c.id === p.c.id)?.checks ?? [];
      const mine = checks.find((k) => k.index === p.index);
      // Out of this profile or date: nothing was sent to rewrite.
      if (mine?.verdict === 'skipped') return;
      expect(rewritten).toBeGreaterThan(0);
      expect({ check: p.check.origin, verdict: mine?.verdict }).toEqual({
        check: p.check.origin,
        verdict: 'blocked',
      });
      for (const id of p.check.clauses) {
        const exercised = checks.some((k) => k !== mine && k.clauses.includes(id) && k.verdict === 'pass');
        const clause = r.clauses.find((c) => c.id === id);
        if (exercised)
          expect({ clause: id, verdict: clause?.verdict }).not.toEqual({ clause: id, verdict: 'blocked' });
        if (clause?.verdict === 'pass') expect(clause.message).toMatch(/checks exercised/);
      }
    }, 60_000);
  }
});
