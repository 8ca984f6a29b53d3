import { evaluateCheck } from '../match/check.ts';
import { getPointer } from '../match/pointer.ts';
import { ABSENT } from '../match/value.ts';
import { getXmlPath } from '../match/xml.ts';
import type { CaptureSpec, CaseDef, CheckDef, StepDef } from '../model/case.ts';
import { type Clause, clauseApplies } from '../model/clause.ts';
import type { CaseResult, CheckResult } from '../model/results.ts';
import type { Verdict } from '../model/verdict.ts';
import { worst } from '../model/verdict.ts';
import { redactDeep, redactText } from '../redact.ts';
import { MissingValue, resolve, type Scope } from '../template/resolve.ts';
import type { StepResponse } from '../transports/response.ts';
import { CheckFailure, errorMessage, TargetError, TargetLacks } from '../util/errors.ts';
import { type RunContext, teardownContext } from './context.ts';
import { exchangeOf, sourceExcerpt } from './failure-detail.ts';
import { describeStep, performStep } from './perform.ts';
import { TeardownLedger } from './teardown.ts';

interface PlannedCheck {
  def: CheckDef;
  index: number;
  step: string;
  /** Why the check is skipped before anything is sent (date window, feature). */
  skip?: string;
}

/** Why a whole case is skipped on this target and run, or undefined. */
export function caseSkipReason(c: CaseDef, ctx: RunContext): string | undefined {
  const missing = c.features.filter((f) => !ctx.target.features.includes(f));
  if (missing.length) return `the target does not offer ${missing.join(', ')}`;
  if (!c.profiles.includes(ctx.profile)) return `runs only in the ${c.profiles.join('/')} profile`;
  if (ctx.readOnly && !c.readOnly) return 'changes the target, and this is a read-only run';
  if (c.disruptive && !ctx.allowDisruptive) {
    return `${c.disruptive}, which cannot be put back; --allow-disruptive runs it`;
  }
  const all = [...c.given, ...c.steps];
  if (all.some((s) => s.kind === 'api') && !ctx.target.management)
    return 'the target has no management API configured';
  if (all.some((s) => s.kind === 's3' || s.kind === 'http' || s.kind === 'bucket') && !ctx.target.s3) {
    return 'the target has no S3 endpoint configured';
  }
  return undefined;
}

/** Why a check is skipped whatever the answer: every cited clause is out of its window or feature. */
export function checkSkipReason(
  clauses: string[],
  all: Map<string, Clause>,
  ctx: RunContext,
): string | undefined {
  const reasons = clauses.map((id) => {
    const c = all.get(id);
    if (!c) return undefined;
    if (!clauseApplies(c, ctx.asOf)) {
      return c.until
        ? `${id} applies before ${c.until} (as-of ${ctx.asOf})`
        : `${id} applies from ${c.since} (as-of ${ctx.asOf})`;
    }
    if (c.feature && !ctx.target.features.includes(c.feature))
      return `the target does not offer ${c.feature}`;
    return undefined;
  });
  return reasons.every((r) => r !== undefined) ? reasons[0] : undefined;
}

function plan(c: CaseDef, ctx: RunContext): Map<StepDef, PlannedCheck[]> {
  const out = new Map<StepDef, PlannedCheck[]>();
  let index = 0;
  const add = (steps: StepDef[], kind: string) =>
    steps.forEach((s, i) => {
      const label = s.id ?? `${kind}[${i}]`;
      out.set(
        s,
        (s.expect ?? []).map((def) => ({
          def,
          index: index++,
          step: label,
          skip: checkSkipReason(def.clauses, ctx.clauses, ctx),
        })),
      );
    });
  add(c.given, 'given');
  add(c.steps, 'steps');
  return out;
}

function capture(spec: CaptureSpec, res: StepResponse, kind: 'api' | 's3' | 'other'): unknown {
  if (typeof spec === 'string') return getPointer(kind === 's3' ? (res.output ?? {}) : res.json(), spec);
  if ('json' in spec) return getPointer(res.json(), spec.json);
  if ('output' in spec) return getPointer(res.output ?? {}, spec.output);
  if ('header' in spec) return res.headers[spec.header.toLowerCase()] ?? ABSENT;
  if ('xml' in spec) return getXmlPath(res.xml(), spec.xml);
  return res.status;
}

/** About how many requests a case sends, teardown included: what it reserves under the budget. */
export function estimateRequests(c: CaseDef): number {
  let n = 0;
  for (const s of [...c.given, ...c.steps]) {
    // A bucket is created, then listed, emptied, deleted and confirmed gone at teardown.
    n += s.kind === 'bucket' ? 5 : 1;
    // A teardown request, and the read that confirms a delete.
    if (s.teardown) n += 2;
  }
  return n;
}

/** Whether an answer is a throttled or unavailable one the check did not ask for: then it is not judged. */
function unjudgeable(check: CheckDef, res: StepResponse): string | undefined {
  if (!res.unavailable) return undefined;
  return check.status === res.status ? undefined : res.unavailable;
}

/** Runs one case: prerequisites, steps in order, checks, then teardown whatever happened. */
export async function runCase(c: CaseDef, slug: string, runCtx: RunContext): Promise<CaseResult> {
  const started = performance.now();
  runCtx.emit({ type: 'case-start', caseId: c.id, title: c.title });
  const planned = plan(c, runCtx);
  const results: CheckResult[] = [];
  const record = (p: PlannedCheck, verdict: Verdict, extra: Partial<CheckResult> = {}) => {
    const plain: CheckResult = {
      caseId: c.id,
      step: p.step,
      index: p.index,
      title: p.def.title,
      clauses: p.def.clauses,
      verdict,
      origin: p.def.origin,
      ...extra,
    };
    if (verdict === 'fail' || verdict === 'error') plain.source ??= sourceExcerpt(c.file, p.def.origin);
    // Only messages, values and reproductions can carry a secret; a bare pass has none.
    const r = verdict === 'pass' ? plain : redactDeep(plain);
    results.push(r);
    runCtx.emit({ type: 'check', result: r });
  };
  const settleRest = (from: StepDef[], verdict: 'blocked' | 'skipped' | 'error', message: string) => {
    for (const s of from)
      for (const p of planned.get(s) ?? [])
        record(p, p.skip ? 'skipped' : verdict, { message: p.skip ?? message });
  };

  const ledger = new TeardownLedger(c.id, runCtx.outstanding);
  /** Why a capture has no value, for the message of a step that needs it. */
  const uncaptured = new Map<string, string>();
  let reason = caseSkipReason(c, runCtx);
  const estimate = estimateRequests(c);
  const reservation = reason ? undefined : runCtx.traffic.reserve(estimate);
  if (!reason && !reservation) {
    reason = `the request budget of ${runCtx.traffic.budget} would be crossed (the case needs about ${estimate})`;
  }
  const ctx: RunContext = { ...runCtx, reservation };
  const scope: Scope = {
    run: { id: ctx.runId },
    case: { slug },
    target: {
      accountId: ctx.target.management?.accountId,
      zoneId: ctx.target.management?.zoneId,
      ids: ctx.target.management?.ids ?? {},
    },
    asOf: ctx.asOf,
    profile: ctx.profile,
  };
  const sequence: { step: StepDef; given: boolean }[] = [
    ...c.given.map((step) => ({ step, given: true })),
    ...c.steps.map((step) => ({ step, given: false })),
  ];
  const everyCheck = [...planned.values()].flat();
  if (!reason && everyCheck.length > 0 && everyCheck.every((p) => p.skip)) {
    reason = everyCheck[0].skip;
  }

  let caseVerdictHint: 'skipped' | 'blocked' | undefined;
  if (reason) {
    caseVerdictHint = 'skipped';
    settleRest(
      sequence.map((s) => s.step),
      'skipped',
      reason,
    );
  } else {
    for (let i = 0; i < sequence.length; i++) {
      const { step, given } = sequence[i];
      const checks = planned.get(step) ?? [];
      // The steps after this one: needed only when this one stops the case.
      const later = () => sequence.slice(i + 1).map((s) => s.step);
      const label =
        checks[0]?.step ??
        step.id ??
        (given ? `given[${c.given.indexOf(step)}]` : `steps[${c.steps.indexOf(step)}]`);
      if (ctx.signal.aborted) {
        settleRest([step, ...later()], 'blocked', 'the run was interrupted');
        caseVerdictHint = 'blocked';
        break;
      }
      let performed: Awaited<ReturnType<typeof performStep>>;
      try {
        performed = await performStep(step, scope, ctx, slug, ledger);
      } catch (err) {
        const msg = redactText(errorMessage(err));
        if (ctx.signal.aborted) {
          // Cut short by the user, not by the target: nothing was judged.
          reason = 'the run was interrupted';
          settleRest([step, ...later()], 'blocked', reason);
          caseVerdictHint = 'blocked';
        } else if (
          err instanceof TargetLacks ||
          (err instanceof MissingValue && err.placeholder.startsWith('target.'))
        ) {
          reason = err instanceof MissingValue ? `the target config has no ${err.placeholder}` : msg;
          settleRest([step, ...later()], 'skipped', reason);
          caseVerdictHint = 'skipped';
        } else if (given || err instanceof MissingValue) {
          const why = err instanceof MissingValue ? uncaptured.get(err.placeholder.split('.')[0]) : undefined;
          reason = `${given ? 'prerequisite' : 'step'} ${label} could not run: ${msg}${why ? ` (capture: ${why})` : ''}`;
          // A prerequisite the target never answered (reset, timeout, garbage) leaves nothing judged:
          // an error of the run, so a target that answers nothing cannot pass as all-blocked.
          const unanswered = err instanceof TargetError;
          settleRest([step, ...later()], unanswered ? 'error' : 'blocked', reason);
          caseVerdictHint = unanswered ? undefined : 'blocked';
        } else {
          for (const p of checks) record(p, p.skip ? 'skipped' : 'error', { message: p.skip ?? msg });
          reason = `step ${label} errored: ${msg}`;
          settleRest(later(), 'blocked', reason);
        }
        break;
      }
      const { response, repro, ok, sent } = performed;
      // Built only for a failing or erroring check.
      const exchange = () => exchangeOf(sent, response);
      // Captures first: a teardown (and a later step) needs them even when a check of this step fails.
      for (const [name, spec] of Object.entries(step.capture ?? {})) {
        try {
          const v = capture(spec, response, step.kind === 'api' || step.kind === 's3' ? step.kind : 'other');
          if (v === ABSENT) uncaptured.set(name, `the answer has nothing at ${JSON.stringify(spec)}`);
          else scope[name] = v;
        } catch (err) {
          uncaptured.set(name, errorMessage(err));
        }
      }
      if (ok && step.teardown) {
        const td = step.teardown;
        // The scope as it is now: a later capture of the same name must not redirect this teardown.
        const tdScope = { ...scope };
        const described = describeStep(td, tdScope, ctx);
        ledger.add({
          what: `${described.what} (teardown of ${label})`,
          undo: described.undo,
          run: async (signal) => {
            const r = await performStep(td, tdScope, teardownContext(ctx, signal), slug, ledger);
            if (!r.ok) {
              throw new Error(
                `status ${r.response.status}${r.response.error ? ` ${r.response.error.name}` : ''}`,
              );
            }
            await described.confirm?.(teardownContext(ctx, signal));
          },
        });
      }
      let stepFailed = false;
      for (const p of checks) {
        if (p.skip) {
          record(p, 'skipped', { message: p.skip });
          continue;
        }
        const unavailable = unjudgeable(p.def, response);
        if (unavailable) {
          stepFailed = true;
          record(p, 'error', { message: unavailable, exchange: exchange() });
          continue;
        }
        try {
          evaluateCheck(resolve(p.def, scope) as CheckDef, response);
          record(p, 'pass');
        } catch (err) {
          stepFailed = true;
          if (err instanceof CheckFailure) {
            record(p, 'fail', {
              message: err.message,
              expected: err.expected,
              actual: err.actual,
              repro: repro?.(),
              source: sourceExcerpt(c.file, p.def.origin, err.key),
              exchange: exchange(),
            });
          } else if (err instanceof MissingValue) {
            record(p, 'blocked', { message: err.message });
          } else {
            record(p, 'error', { message: errorMessage(err), repro: repro?.(), exchange: exchange() });
          }
        }
      }
      if (given && !ok && !stepFailed) {
        reason = `prerequisite ${label} failed: status ${response.status}${response.error ? ` ${response.error.name}` : ''}`;
        settleRest(later(), 'blocked', reason);
        caseVerdictHint = 'blocked';
        break;
      }
      if (stepFailed) {
        reason = `${given ? 'prerequisite' : 'step'} ${label} failed`;
        settleRest(later(), 'blocked', reason);
        break;
      }
    }
  }
  const leftovers = await ledger.drain(() => runCtx.teardownSignal());
  runCtx.traffic.release(reservation);
  results.sort((a, b) => a.index - b.index);
  const verdicts = results.map((r) => r.verdict);
  const verdict: Verdict = verdicts.length ? worst(verdicts, 'skipped') : (caseVerdictHint ?? 'pass');
  const result: CaseResult = {
    id: c.id,
    title: c.title,
    file: c.file,
    area: c.area,
    verdict,
    reason: verdict === 'skipped' || verdict === 'blocked' ? reason : undefined,
    durationMs: Math.round(performance.now() - started),
    checks: results,
    leftovers: leftovers.length ? redactDeep(leftovers) : undefined,
  };
  runCtx.emit({ type: 'case-end', result });
  return result;
}
