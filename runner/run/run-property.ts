import type { S3Client } from '@aws-sdk/client-s3';
import type { ApiRequest } from '../model/case.ts';
import type { PropertyContext, PropertyDef, WireResponse } from '../model/property.ts';
import type { CaseResult, CheckResult, Exchange, Leftover } from '../model/results.ts';
import { type RunContext, sendOptions, teardownContext } from '../steps/context.ts';
import { TeardownLedger } from '../steps/teardown.ts';
import { buildBindingRequest } from '../transports/bindings.ts';
import { destroyBucket } from '../transports/bucket-teardown.ts';
import { bucketName, createBucket, removeBucketCommand } from '../transports/buckets.ts';
import { type OutgoingRequest, sendHttp } from '../transports/http.ts';
import { buildApiRequest, teardownAgent, userAgent } from '../transports/management.ts';
import type { StepResponse } from '../transports/response.ts';
import { buildS3Request } from '../transports/s3-raw.ts';
import { retryingClient } from '../transports/s3-sdk.ts';
import type { Door } from '../transports/traffic.ts';
import { errorMessage, TargetBlocked, TargetError, TargetLacks } from '../util/errors.ts';
import { redactDeep, redactText } from '../util/redact.ts';
import { propertyFailure } from './property-failure.ts';
import { checkSkipReason } from './run-case.ts';

function wire(res: StepResponse): WireResponse {
  return {
    status: res.status,
    headers: res.headers,
    body: res.body.bytes,
    size: res.body.size,
    md5: () => res.body.md5,
    text: () => res.text(),
    json: () => res.json(),
    xml: () => res.xml(),
  };
}

/** An error of a kind anywhere in the cause chain (fast-check wraps what the predicate threw). */
function causeOf<T extends Error>(err: unknown, kind: new (...args: any[]) => T): T | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof kind) return e;
  }
  return undefined;
}

export function propertySkipReason(p: PropertyDef, ctx: RunContext): string | undefined {
  // Never selected for a run (runner/run/select.ts); said here should one be handed over.
  if (!p.run) return 'it only observes traffic (edgecheck proxy, edgecheck judge)';
  const missing = (p.features ?? []).filter((f) => !ctx.target.features.includes(f));
  if (missing.length) return `the target does not offer ${missing.join(', ')}`;
  if (p.profiles && !p.profiles.includes(ctx.profile))
    return `runs only in the ${p.profiles.join('/')} profile`;
  if (ctx.readOnly && !p.readOnly) return 'changes the target, and this is a read-only run';
  return checkSkipReason(p.clauses, ctx.clauses, ctx);
}

const NUM_RUNS = { quick: 12, full: 100 } as const;

/** Errors of the property's own code (not the target's answers): judged `error`, never `fail`. */
function ownBug(err: unknown): Error | undefined {
  return causeOf(err, TypeError) ?? causeOf(err, ReferenceError) ?? causeOf(err, SyntaxError);
}

/**
 * What a property's requests go through: the run's context until teardown, which gets its own
 * signal for each action; and what it leaves behind.
 */
interface PropertyRun {
  ctx: RunContext;
  reservation: RunContext['reservation'];
  ledger: TeardownLedger;
  recorded: Leftover[];
  /** Buckets named so far, so that each name is new. */
  buckets: number;
}

/** Runs one property as a case with a single check. */
export async function runProperty(
  p: PropertyDef,
  file: string,
  area: string,
  slug: string,
  runCtx: RunContext,
): Promise<CaseResult> {
  const started = performance.now();
  runCtx.emit({ type: 'case-start', caseId: p.id, title: p.title });
  const base: Omit<CheckResult, 'verdict'> = {
    caseId: p.id,
    step: 'property',
    index: 0,
    title: p.title,
    clauses: p.clauses,
    origin: file,
  };
  let check: CheckResult;
  let skip = propertySkipReason(p, runCtx);
  const estimate = (p.requests ?? 60) * (runCtx.profile === 'full' ? 8 : 1);
  const reservation = skip ? undefined : runCtx.traffic.reserve(estimate);
  if (!skip && !reservation) {
    skip = `the request budget of ${runCtx.traffic.budget} would be crossed (the property needs about ${estimate})`;
  }
  const run: PropertyRun = {
    ctx: { ...runCtx, reservation },
    reservation,
    ledger: new TeardownLedger(p.id, runCtx.outstanding),
    recorded: [],
    buckets: 0,
  };
  // A target taken as down is sent nothing more: the property is an error at once.
  const down = skip ? undefined : runCtx.traffic.availability.down;
  if (skip) {
    check = { ...base, verdict: 'skipped', message: skip };
  } else if (down) {
    check = { ...base, verdict: 'error', message: down };
  } else {
    try {
      await p.run?.(propertyContext(run, p.id, slug));
      check = { ...base, verdict: 'pass' };
    } catch (err) {
      check = thrownVerdict(err, base, run.ctx);
    }
  }
  const leftovers = [
    ...run.recorded,
    ...(await run.ledger.drain(() => {
      const signal = runCtx.teardownSignal();
      run.ctx = teardownContext({ ...runCtx, reservation }, signal);
      return signal;
    })),
  ];
  runCtx.traffic.release(reservation);
  check = redactDeep(check);
  runCtx.emit({ type: 'check', result: check });
  const result: CaseResult = {
    id: p.id,
    title: p.title,
    file,
    area,
    verdict: check.verdict,
    reason: check.verdict === 'skipped' || check.verdict === 'blocked' ? check.message : undefined,
    durationMs: Math.round(performance.now() - started),
    requests: reservation?.used ?? 0,
    checks: [check],
    leftovers: leftovers.length ? redactDeep(leftovers) : undefined,
  };
  runCtx.emit({ type: 'case-end', result });
  return result;
}

/** What a property's code is given: the target's doors, buckets, teardown and its ways to give up. */
function propertyContext(run: PropertyRun, id: string, slug: string): PropertyContext {
  const { ledger, reservation } = run;
  let named: S3Client | undefined;
  // The property names itself in every request it sends, as a case does; its teardown's as such.
  const ua = userAgent(id);
  const agent = () => (run.ctx.teardown ? teardownAgent(id) : ua);
  const send = async (out: OutgoingRequest, door: Door): Promise<WireResponse> => {
    const res = await sendHttp(run.ctx.agent, out, sendOptions(run.ctx, door));
    // A throttled or unavailable answer is not the target's considered one: the property cannot judge it.
    if (res.unavailable) throw new TargetError(res.unavailable);
    return wire(res);
  };
  const ctx = run.ctx;
  return {
    runId: ctx.runId,
    asOf: ctx.asOf,
    profile: ctx.profile,
    fc: { seed: ctx.seed, numRuns: NUM_RUNS[ctx.profile] },
    target: ctx.target,
    allowDisruptive: ctx.allowDisruptive,
    get signal() {
      return run.ctx.signal;
    },
    userAgent: ua,
    get s3() {
      named ??= retryingClient(run.ctx.s3(), ua, run.ctx.traffic, run.ctx.signal, reservation);
      return named;
    },
    api: async (req) => {
      if (!run.ctx.target.management) throw new TargetLacks('the target has no management API configured');
      return send(buildApiRequest(run.ctx.target.management, req as ApiRequest, agent()), 'management');
    },
    http: async (req) => {
      if (!run.ctx.target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
      const out = await buildS3Request(run.ctx.target.s3, { ...req, body: req.body as any });
      out.headers['user-agent'] ??= agent();
      return send(out, 's3');
    },
    send: async (out) => send({ ...out, headers: { 'user-agent': agent(), ...out.headers } }, 's3'),
    binding: async (call) => {
      if (!run.ctx.target.bindings) throw new TargetLacks('the target has no bindings probe configured');
      return send(buildBindingRequest(run.ctx.target.bindings, call), 's3');
    },
    bucketName: (label) => bucketName(run.ctx.runId, slug, `${label}${run.buckets++}`),
    bucket: async (label = 'p') => {
      const name = bucketName(run.ctx.runId, slug, `${label}${run.buckets++}`);
      const s3Target = run.ctx.target.s3;
      if (!s3Target) throw new TargetLacks('the target has no S3 endpoint configured');
      await createBucket(run.ctx.agent, s3Target, name, sendOptions(run.ctx, 's3'));
      ledger.add({
        what: `bucket ${name}`,
        undo: () => removeBucketCommand(s3Target, name),
        run: (signal) =>
          destroyBucket(
            run.ctx.agent,
            s3Target,
            name,
            sendOptions(teardownContext(run.ctx, signal), 's3'),
            teardownAgent(id),
          ),
      });
      return name;
    },
    defer: (action, what = 'property teardown', undo) =>
      ledger.add({ what, undo: undo === undefined ? undefined : () => undo, run: () => action() }),
    leftover: (what, error, undo) => {
      run.recorded.push({ what, error, undo });
    },
    unjudgeable: (reason) => {
      throw new TargetError(reason);
    },
    skip: (reason) => {
      throw new TargetLacks(reason);
    },
    blocked: (reason) => {
      throw new TargetBlocked(reason);
    },
  };
}

/**
 * The verdict of a property that threw: interrupted or blocked, skipped where the target lacks
 * something, an error where the target's answer or the property's own code could not be judged,
 * and otherwise a failure, with the seed that replays it.
 */
function thrownVerdict(err: unknown, base: Omit<CheckResult, 'verdict'>, ctx: RunContext): CheckResult {
  const target = causeOf(err, TargetError);
  const lacks = causeOf(err, TargetLacks);
  const blocked = causeOf(err, TargetBlocked);
  const bug = ownBug(err);
  if (ctx.signal.aborted && !lacks)
    return { ...base, verdict: 'blocked', message: 'the run was interrupted before the property finished' };
  if (lacks) return { ...base, verdict: 'skipped', message: redactText(lacks.message) };
  if (blocked) return { ...base, verdict: 'blocked', message: redactText(blocked.message) };
  if (target)
    return { ...base, verdict: 'error', message: `${redactText(target.message)} (seed ${ctx.seed})` };
  if (bug)
    return {
      ...base,
      verdict: 'error',
      message: `the property's own code failed: ${redactText(errorMessage(bug))} (seed ${ctx.seed})`,
      stack: bug.stack ? redactText(bug.stack) : undefined,
    };
  const exchange = citedExchange(err);
  return {
    ...base,
    verdict: 'fail',
    message: `${redactText(propertyFailure(err))} (replay: --seed ${ctx.seed})`,
    ...(exchange ? { exchange: redactDeep(exchange) } : {}),
  };
}

/** The exchange a failing property's error (or one it was caused by) cites as its evidence. */
function citedExchange(err: unknown): Exchange | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    const exchange = (e as { exchange?: Exchange }).exchange;
    if (typeof exchange?.response?.status === 'number') return exchange;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
