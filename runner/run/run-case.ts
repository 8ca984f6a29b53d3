import { evaluateCheck, preconditionUnmet } from '../match/check.ts';
import { getPointer } from '../match/pointer.ts';
import { ABSENT } from '../match/value.ts';
import { getXmlPath } from '../match/xml.ts';
import type { CaptureSpec, CaseDef, CheckDef, StepDef } from '../model/case.ts';
import { type Clause, clauseApplies } from '../model/clause.ts';
import type { CaseResult, CheckResult, Leftover } from '../model/results.ts';
import type { Verdict } from '../model/verdict.ts';
import { worst } from '../model/verdict.ts';
import { type RunContext, teardownContext } from '../steps/context.ts';
import { exchangeOf, sourceExcerpt } from '../steps/failure-detail.ts';
import { describeStep, performStep, type StepOwner, stepKind, stepsNeed } from '../steps/index.ts';
import { TeardownLedger } from '../steps/teardown.ts';
import {
  captureOrigin,
  explainEmptyCaptures,
  MissingValue,
  resolve,
  type Scope,
} from '../template/resolve.ts';
import type { StepResponse } from '../transports/response.ts';
import { CheckFailure, errorMessage, TargetDown, TargetError, TargetLacks } from '../util/errors.ts';
import { redactDeep, redactText } from '../util/redact.ts';
import { type CaseDependencies, caseDependencies, type Dependency, NAMED_IN_NEEDS } from './dependencies.ts';
import { outcomeDiffers } from './outcome.ts';

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
  const why = stepsNeed([...c.given, ...c.steps], ctx.target);
  if (why) return why;
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
  if (!reasons.every((r) => r !== undefined)) return undefined;
  return clauses.map((id) => gapReason(id, all, ctx.asOf)).find((r) => r !== undefined) ?? reasons[0];
}

/**
 * Why a dated clause is not judged on a day between the old behaviour's window and the new one's
 * (clauses of the same section): SPEC's "after the end-of-life date" leaves the date itself open.
 */
function gapReason(id: string, all: Map<string, Clause>, asOf: string): string | undefined {
  const c = all.get(id);
  if (!c) return undefined;
  for (const d of all.values()) {
    if (d === c || d.section !== c.section) continue;
    const [old, next] = c.until ? [c, d] : [d, c];
    if (old.until && next.since && old.until <= asOf && asOf < next.since) {
      return (
        `as-of ${asOf} is between ${old.id} (before ${old.until}) and ${next.id} (from ${next.since}): ` +
        'the new behaviour applies after the end-of-life date, so neither is judged on it'
      );
    }
  }
  return undefined;
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

function capture(spec: CaptureSpec, res: StepResponse, from: 'json' | 'output' | 'other'): unknown {
  if (typeof spec === 'string') return getPointer(from === 'output' ? (res.output ?? {}) : res.json(), spec);
  if ('json' in spec) return getPointer(res.json(), spec.json);
  if ('output' in spec) return getPointer(res.output ?? {}, spec.output);
  if ('header' in spec) return res.headers[spec.header.toLowerCase()] ?? ABSENT;
  if ('xml' in spec) return getXmlPath(res.xml(), spec.xml);
  return res.status;
}

/** The part of a check a failure's key names (`['output', '/ETag']`), or the whole check. */
function matcherOf(def: CheckDef, key: readonly string[] | undefined): unknown {
  let at: unknown = def;
  for (const k of key ?? [])
    at = at && typeof at === 'object' ? (at as Record<string, unknown>)[k] : undefined;
  return at ?? def;
}

/** About how many requests a case sends, teardown included: what it reserves under the budget. */
export function estimateRequests(c: CaseDef): number {
  let n = 0;
  for (const s of [...c.given, ...c.steps]) {
    n += stepKind(s).requests;
    // A teardown request, and the read that confirms a delete.
    n += 2 * (s.teardown?.length ?? 0);
  }
  return n;
}

/** Whether an answer is a throttled or unavailable one the check did not ask for: then it is not judged. */
function unjudgeable(check: CheckDef, res: StepResponse): string | undefined {
  if (!res.unavailable) return undefined;
  return check.status === res.status ? undefined : res.unavailable;
}

/** What the steps of one case run in: the checks planned, their results, captures and teardown. */
class CaseRun {
  readonly results: CheckResult[] = [];
  readonly ledger: TeardownLedger;
  /** What steps never answered may have made, which no teardown can remove. */
  readonly unknown: Leftover[] = [];
  /** Who the steps' requests belong to: the case's id names them to the target, its slug its buckets. */
  readonly owner: StepOwner;
  /** Why a capture has no value, for the message of a step that needs it. */
  readonly uncaptured = new Map<string, string>();
  /** Captures that came back empty, with where from: a message names them (explainEmptyCaptures). */
  readonly emptied = new Map<string, string>();
  /** Why the case stopped (or was skipped), for the case's reason. */
  reason?: string;
  /** The case verdict when no check was recorded. */
  hint?: 'skipped' | 'blocked';

  constructor(
    readonly c: CaseDef,
    slug: string,
    readonly ctx: RunContext,
    readonly planned: Map<StepDef, PlannedCheck[]>,
    readonly scope: Scope,
  ) {
    this.ledger = new TeardownLedger(c.id, ctx.outstanding);
    this.owner = { id: c.id, slug };
  }

  record(p: PlannedCheck, verdict: Verdict, extra: Partial<CheckResult> = {}): void {
    const plain: CheckResult = {
      caseId: this.c.id,
      step: p.step,
      index: p.index,
      title: p.def.title,
      clauses: p.def.clauses,
      verdict,
      origin: p.def.origin,
      ...extra,
    };
    if (verdict === 'fail' || verdict === 'error') plain.source ??= sourceExcerpt(this.c.file, p.def.origin);
    // Only messages, values and reproductions can carry a secret; a bare pass has none.
    const r = verdict === 'pass' ? plain : redactDeep(plain);
    this.results.push(r);
    this.ctx.emit({ type: 'check', result: r });
  }

  /** Every check of these steps gets `verdict` (or its own skip), and the case stops for `reason`. */
  settle(from: StepDef[], verdict: 'blocked' | 'skipped' | 'error', reason: string): void {
    this.reason = reason;
    for (const s of from)
      for (const p of this.planned.get(s) ?? [])
        this.record(p, p.skip ? 'skipped' : verdict, { message: p.skip ?? reason });
  }

  /**
   * A step that threw: decides what its checks become. Returns undefined when the case stops there
   * (interrupted, target down or lacking, a prerequisite of the case); otherwise the step counts
   * as not passed, only the steps that depend on it are blocked, and it returns what they are told.
   */
  stepThrew(
    err: unknown,
    step: StepDef,
    given: boolean,
    label: string,
    later: StepDef[],
  ): string | undefined {
    const msg = redactText(errorMessage(err));
    if (this.ctx.signal.aborted) {
      // Cut short by the user, not by the target: nothing was judged.
      this.settle([step, ...later], 'blocked', 'the run was interrupted');
      this.hint = 'blocked';
    } else if (err instanceof TargetDown) {
      // Nothing more is sent to a target taken as down: every check left is an error, saying why.
      this.settle([step, ...later], 'error', msg);
    } else if (
      err instanceof TargetLacks ||
      (err instanceof MissingValue && err.placeholder.startsWith('target.'))
    ) {
      const why = err instanceof MissingValue ? `the target config has no ${err.placeholder}` : msg;
      this.settle([step, ...later], 'skipped', why);
      this.hint = 'skipped';
    } else if (given || err instanceof MissingValue) {
      const why =
        err instanceof MissingValue ? this.uncaptured.get(err.placeholder.split('.')[0]) : undefined;
      // A prerequisite the target never answered (reset, timeout, garbage) leaves nothing judged:
      // an error of the run, so a target that answers nothing cannot pass as all-blocked.
      const unanswered = err instanceof TargetError;
      const reason = `${given ? 'prerequisite' : 'step'} ${label} could not run: ${msg}${why ? ` (capture: ${why})` : ''}`;
      if (!given) {
        // A capture an earlier answer did not hold: this step is blocked, the others go on.
        this.settle([step], 'blocked', reason);
        this.hint = 'blocked';
        return `step ${label} could not run`;
      }
      this.settle([step, ...later], unanswered ? 'error' : 'blocked', reason);
      this.hint = unanswered ? undefined : 'blocked';
    } else {
      for (const p of this.planned.get(step) ?? [])
        this.record(p, p.skip ? 'skipped' : 'error', { message: p.skip ?? msg });
      this.reason = `step ${label} errored: ${msg}`;
      return this.reason;
    }
    return undefined;
  }

  /** Captures first: a teardown (and a later step) needs them even when a check of this step fails. */
  capture(step: StepDef, response: StepResponse, label: string): void {
    for (const [name, spec] of Object.entries(step.capture ?? {})) {
      try {
        const v = capture(spec, response, stepKind(step).captures);
        if (v === ABSENT) this.uncaptured.set(name, `the answer has nothing at ${JSON.stringify(spec)}`);
        else this.scope[name] = v;
        if (v === '') this.emptied.set(name, captureOrigin(spec, label));
        else this.emptied.delete(name);
      } catch (err) {
        this.uncaptured.set(name, errorMessage(err));
      }
    }
  }

  /**
   * A management step whose teardown reads nothing its own answer captures (a setting put back to the value read
   * before it) has it registered before it is sent: a run interrupted while the write is on its way,
   * its answer never read, still puts the value back. Once answered, it runs only if the step passed
   * its request (`needed`), as a teardown registered after the answer would.
   */
  teardownBeforeSending(step: StepDef, label: string): { needed?: boolean } | undefined {
    // Management writes only: what an S3 step writes lies in the run's own buckets, removed whole.
    if (!step.teardown || !('api' in step) || readsOwnCaptures(step)) return undefined;
    const undo: { needed?: boolean } = {};
    for (const td of [...step.teardown].reverse()) this.addTeardown(td, label, () => undo.needed !== false);
    return undo;
  }

  /**
   * A management write whose teardown needs its own answer (the id of what it made), never answered:
   * whatever it made cannot be removed, so it is listed as left, with what its teardown would have been.
   */
  unknownOutcome(err: unknown, step: StepDef, label: string): void {
    if (!(err instanceof TargetError) || !('api' in step) || !step.teardown || !readsOwnCaptures(step))
      return;
    if (step.api.method.toUpperCase() === 'GET') return;
    const undo = step.teardown
      .map((td) => ('api' in td ? `${td.api.method} ${td.api.path}` : td.origin))
      .join('; ');
    this.unknown.push({
      what: `whatever step ${label} (${step.api.method} ${step.api.path}) made, should the target have applied it`,
      error: `its answer never came (${redactText(errorMessage(err))}), so its teardown (${undo}) could not be made; look for names holding ec-${this.ctx.runId}`,
    });
  }

  /** Registers the step's own teardown, run at the end of the case whatever happens (unless `wanted` says no). */
  addTeardown(td: StepDef, label: string, wanted: () => boolean = () => true): void {
    const { ctx, owner, ledger } = this;
    // The scope as it is now: a later capture of the same name must not redirect this teardown.
    const tdScope = { ...this.scope };
    const described = describeStep(td, tdScope, ctx, this.c.id);
    ledger.add({
      what: `${described.what} (teardown of ${label})`,
      undo: described.undo,
      run: async (signal) => {
        if (!wanted()) return;
        const tctx = teardownContext(ctx, signal);
        const r = await performStep(td, tdScope, tctx, owner, ledger);
        // Already gone (an upload the case completed, an object it deleted): nothing is left.
        if (
          !r.ok &&
          (r.response.status === 404 || r.response.status === 410) &&
          (await described.absent?.(tctx))
        ) {
          return;
        }
        if (!r.ok) {
          throw new Error(
            `status ${r.response.status}${r.response.error?.name ? ` ${r.response.error.name}` : ''}`,
          );
        }
        await described.confirm?.(tctx);
      },
    });
  }

  /**
   * Judges the step's checks on its answer. `failed` when one of them did not pass; `blocks` when
   * one of them says the step's outcome is not the one expected (see outcomeDiffers), or could not
   * be judged: the state after it is then unknown to the steps that depend on it. `guard` says why
   * a check that holds is no pass (a valid twin was refused): it is blocked, while a failure stands.
   */
  judge(step: StepDef, performed: Performed, guard?: string): { failed: boolean; blocks: boolean } {
    const { response, repro, sent } = performed;
    // Built only for a failing or erroring check.
    const exchange = () => exchangeOf(sent, response);
    let failed = false;
    let blocks = false;
    for (const p of this.planned.get(step) ?? []) {
      if (p.skip) {
        this.record(p, 'skipped', { message: p.skip });
        continue;
      }
      const unavailable = unjudgeable(p.def, response);
      if (unavailable) {
        failed = true;
        blocks = true;
        this.record(p, 'error', { message: unavailable, exchange: exchange() });
        continue;
      }
      try {
        const check = resolve(p.def, this.scope) as CheckDef;
        const unmet = preconditionUnmet(check, response);
        if (unmet) {
          this.record(p, 'blocked', { message: unmet });
          continue;
        }
        evaluateCheck(check, response);
        // Its valid twin refused, the answer that holds may hold for any request: not a pass.
        if (guard) this.record(p, 'blocked', { message: guard });
        else this.record(p, 'pass');
      } catch (err) {
        failed = true;
        if (err instanceof CheckFailure) {
          blocks ||= outcomeDiffers(p.def, response, performed.ok);
          this.record(p, 'fail', {
            message: explainEmptyCaptures(err.message, matcherOf(p.def, err.key), this.emptied),
            expected: err.expected,
            actual: err.actual,
            repro: repro?.(),
            source: sourceExcerpt(this.c.file, p.def.origin, err.key),
            exchange: exchange(),
          });
        } else if (err instanceof MissingValue) {
          blocks = true;
          this.record(p, 'blocked', { message: err.message });
        } else {
          blocks = true;
          this.record(p, 'error', { message: errorMessage(err), repro: repro?.(), exchange: exchange() });
        }
      }
    }
    return { failed, blocks };
  }

  /**
   * Runs the steps in order. A step that did not pass blocks the steps that depend on it
   * (dependencies.ts: its captures, or what it writes that they read); the others are sent and
   * judged on their own answers. A step whose valid twin was refused is sent all the same, and its
   * checks' passes are blocked (`twinRefused`). A prerequisite of the case (a given step) that did
   * not pass stops the case.
   */
  async steps(sequence: { step: StepDef; given: boolean }[]): Promise<void> {
    const { c, ctx } = this;
    const deps = caseDependencies(c);
    // Steps that did not pass, with what their dependents' checks are told.
    const unpassed = new Map<StepDef, Unpassed>();
    // Steps the target refused, whatever their checks said: a valid twin among them guards a pass.
    const refusedSteps = new Map<StepDef, string>();
    for (let i = 0; i < sequence.length; i++) {
      const { step, given } = sequence[i];
      // The steps after this one: needed only when this one stops the case.
      const later = () => sequence.slice(i + 1).map((s) => s.step);
      const label = this.planned.get(step)?.[0]?.step ?? deps.label(step);
      if (ctx.signal.aborted) {
        this.settle([step, ...later()], 'blocked', 'the run was interrupted');
        this.hint = 'blocked';
        return;
      }
      const blockedBy = given ? undefined : blocker(deps.of(step), unpassed);
      if (blockedBy) {
        this.settle([step], 'blocked', blockedBy);
        this.hint = 'blocked';
        unpassed.set(step, { why: `step ${label} could not run (${blockedBy})`, outcome: true });
        continue;
      }
      if (step.pauseMs) await pause(step.pauseMs, ctx.signal);
      const undo = this.teardownBeforeSending(step, label);
      let performed: Performed;
      try {
        performed = await performStep(step, this.scope, ctx, { ...this.owner, step: label }, this.ledger);
      } catch (err) {
        // Only a request left unanswered may have been applied: one never sent needs no putting back.
        if (undo && !(err instanceof TargetError)) undo.needed = false;
        this.unknownOutcome(err, step, label);
        const why = this.stepThrew(err, step, given, label, later());
        if (why === undefined) return;
        unpassed.set(step, { why, outcome: true });
        continue;
      }
      const { response, ok } = performed;
      if (undo) undo.needed = ok;
      this.capture(step, response, label);
      // Last registered runs first: registered backwards, a step's teardown list runs as written.
      if (ok && step.teardown && !undo)
        for (const td of [...step.teardown].reverse()) this.addTeardown(td, label);
      const refused = !ok && !response.unavailable ? refusalOf(response) : undefined;
      if (refused) refusedSteps.set(step, `step ${label} was refused (${refused})`);
      if (refused && step.prerequisite) {
        // Refused, it proves nothing of the clauses that read it: they are blocked, not failed.
        const why = `${label} was refused (${refused}): ${step.prerequisite}`;
        this.settle([step], 'blocked', why);
        this.hint = 'blocked';
        if (given) return this.settle(later(), 'blocked', why);
        unpassed.set(step, { why, outcome: true });
        continue;
      }
      const { failed, blocks } = this.judge(
        step,
        performed,
        twinRefused(deps.twins(step), unpassed, refusedSteps, deps),
      );
      if (given && !ok && !failed) {
        this.settle(later(), 'blocked', `prerequisite ${label} failed: ${refusalOf(response)}`);
        this.hint = 'blocked';
        return;
      }
      if (failed && given) {
        this.settle(later(), 'blocked', `prerequisite ${label} failed`);
        return;
      }
      // Failed in its detail, with the outcome its checks expect, it leaves the state they say: it
      // blocks only the steps that name it in `needs`.
      if (failed) unpassed.set(step, { why: `step ${label} failed`, outcome: blocks });
    }
  }
}

/** A refused answer in words: `status 403 AccessDenied`. */
function refusalOf(response: StepResponse): string {
  return `status ${response.status}${response.error?.name ? ` ${response.error.name}` : ''}`;
}

/**
 * Why a step cannot run, given the earlier steps that did not pass: the first of its dependencies
 * that did not. A dependency named in `needs` blocks it whenever it did not pass; one found by
 * captures or state only when its outcome was not the one its checks expect (outcome.ts): a write
 * answered as expected but wrong in a detail leaves the state its clause says.
 */
function blocker(dependencies: Dependency[], unpassed: Map<StepDef, Unpassed>): string | undefined {
  for (const { on, why } of dependencies) {
    const u = unpassed.get(on);
    if (u && (u.outcome || why === NAMED_IN_NEEDS)) return `${u.why}: ${why}`;
  }
  return undefined;
}

/**
 * Why the step's checks cannot pass: one of its valid twins was refused (or could not run), so a
 * refusal of this step may be a refusal of everything. Undefined when every twin was accepted.
 */
function twinRefused(
  twins: StepDef[],
  unpassed: Map<StepDef, Unpassed>,
  refusedSteps: Map<StepDef, string>,
  deps: CaseDependencies,
): string | undefined {
  const twin = twins.find((t) => unpassed.has(t) || refusedSteps.has(t));
  if (!twin) return undefined;
  const why = refusedSteps.get(twin) ?? unpassed.get(twin)?.why;
  return `not judged: its valid twin ${deps.label(twin)} was not accepted (${why}), so what this step got cannot be told from a refusal of everything`;
}

/** A step that did not pass: what its dependents are told, and whether its outcome was not the one expected. */
interface Unpassed {
  why: string;
  outcome: boolean;
}

type Performed = Awaited<ReturnType<typeof performStep>>;

/** Waits `ms`, or less when the run is stopped. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    const stop = () => {
      clearTimeout(timer);
      done();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      done();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** What `${...}` placeholders of a case can name before any capture. */
function caseScope(ctx: RunContext, slug: string): Scope {
  return {
    run: { id: ctx.runId },
    case: { slug },
    target: {
      accountId: ctx.target.management?.accountId,
      zoneId: ctx.target.management?.zoneId,
      ids: ctx.target.management?.ids ?? {},
      bindingsBucket: ctx.target.bindings?.bucket,
    },
    asOf: ctx.asOf,
    profile: ctx.profile,
  };
}

/** Bodies from this size on report how far they have been sent. */
const TRANSFER_REPORTED_FROM = 8 * 1024 * 1024;
const TRANSFER_EVERY_MS = 1000;

/** `transfer` events for a case's large uploads: about one a second, and one when a body is sent. */
function transferProgress(caseId: string, runCtx: RunContext): (sent: number, total: number) => void {
  let last = 0;
  let lastSent = 0;
  return (sent, total) => {
    if (total < TRANSFER_REPORTED_FROM) return;
    const now = Date.now();
    // A body starting (fewer bytes than the last report: a new one, or a retry) is always reported.
    const starting = sent <= lastSent;
    lastSent = sent;
    if (!starting && sent < total && now - last < TRANSFER_EVERY_MS) return;
    last = now;
    runCtx.emit({ type: 'transfer', caseId, sent, total });
  };
}

/** Runs one case: prerequisites, steps in order, checks, then teardown whatever happened. */
export async function runCase(c: CaseDef, slug: string, runCtx: RunContext): Promise<CaseResult> {
  const started = performance.now();
  runCtx.emit({ type: 'case-start', caseId: c.id, title: c.title });
  const planned = plan(c, runCtx);
  let reason = caseSkipReason(c, runCtx);
  const estimate = estimateRequests(c);
  const reservation = reason ? undefined : runCtx.traffic.reserve(estimate);
  if (!reason && !reservation) {
    reason = `the request budget of ${runCtx.traffic.budget} would be crossed (the case needs about ${estimate})`;
  }
  const everyCheck = [...planned.values()].flat();
  if (!reason && everyCheck.length > 0 && everyCheck.every((p) => p.skip)) reason = everyCheck[0].skip;
  // A target taken as down is sent nothing more: the case is an error at once.
  const down = reason ? undefined : runCtx.traffic.availability.down;

  const ctx: RunContext = { ...runCtx, reservation, onSent: transferProgress(c.id, runCtx) };
  const run = new CaseRun(c, slug, ctx, planned, caseScope(ctx, slug));
  const sequence = [
    ...c.given.map((step) => ({ step, given: true })),
    ...c.steps.map((step) => ({ step, given: false })),
  ];
  if (reason) {
    run.settle(
      sequence.map((s) => s.step),
      'skipped',
      reason,
    );
    run.hint = 'skipped';
  } else if (down) {
    run.settle(
      sequence.map((s) => s.step),
      'error',
      down,
    );
  } else {
    await run.steps(sequence);
  }
  const leftovers = [...run.unknown, ...(await run.ledger.drain(() => runCtx.teardownSignal()))];
  runCtx.traffic.release(reservation);
  const results = run.results.sort((a, b) => a.index - b.index);
  const verdicts = results.map((r) => r.verdict);
  const verdict: Verdict = verdicts.length ? worst(verdicts, 'skipped') : (run.hint ?? 'pass');
  const result: CaseResult = {
    id: c.id,
    title: c.title,
    file: c.file,
    area: c.area,
    verdict,
    reason: verdict === 'skipped' || verdict === 'blocked' ? run.reason : undefined,
    durationMs: Math.round(performance.now() - started),
    requests: reservation?.used ?? 0,
    checks: results,
    leftovers: leftovers.length ? redactDeep(leftovers) : undefined,
  };
  runCtx.emit({ type: 'case-end', result });
  return result;
}

/** Whether a teardown of `step` names one of the step's own captures: it can be made only from its answer. */
function readsOwnCaptures(step: StepDef): boolean {
  const names = Object.keys(step.capture ?? {});
  if (names.length === 0) return false;
  const text = JSON.stringify(step.teardown);
  return names.some((n) =>
    new RegExp(`\\$\\{${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`).test(text),
  );
}
