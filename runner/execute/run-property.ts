import type { ApiRequest } from '../model/case.ts';
import type { PropertyContext, PropertyDef, WireResponse } from '../model/property.ts';
import type { CaseResult, CheckResult } from '../model/results.ts';
import { redactDeep, redactText } from '../redact.ts';
import { sendHttp } from '../transports/http.ts';
import { buildApiRequest } from '../transports/management.ts';
import type { StepResponse } from '../transports/response.ts';
import { buildS3Request } from '../transports/s3-raw.ts';
import { errorMessage, TargetError, TargetLacks } from '../util/errors.ts';
import { bucketName, createBucket, destroyBucket } from './buckets.ts';
import type { RunContext } from './context.ts';
import { checkSkipReason } from './run-case.ts';
import { TeardownLedger } from './teardown.ts';

function wire(res: StepResponse): WireResponse {
  return {
    status: res.status,
    headers: res.headers,
    body: res.body.bytes,
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
  const missing = (p.features ?? []).filter((f) => !ctx.target.features.includes(f));
  if (missing.length) return `the target does not offer ${missing.join(', ')}`;
  if (p.profiles && !p.profiles.includes(ctx.profile))
    return `runs only in the ${p.profiles.join('/')} profile`;
  if (ctx.readOnly && !p.readOnly) return 'changes the target, and this is a read-only run';
  return checkSkipReason(p.clauses, ctx.clauses, ctx);
}

const NUM_RUNS = { quick: 12, full: 100 } as const;

/** Runs one property as a case with a single check. */
export async function runProperty(
  p: PropertyDef,
  file: string,
  area: string,
  slug: string,
  ctx: RunContext,
): Promise<CaseResult> {
  const started = performance.now();
  ctx.emit({ type: 'case-start', caseId: p.id, title: p.title });
  const ledger = new TeardownLedger();
  let buckets = 0;
  const base: Omit<CheckResult, 'verdict'> = {
    caseId: p.id,
    step: 'property',
    index: 0,
    title: p.title,
    clauses: p.clauses,
    origin: file,
  };
  let check: CheckResult;
  // Requests listen on the run's signal until teardown, which must still reach the target after an interrupt.
  let signal = ctx.signal;
  const skip = propertySkipReason(p, ctx);
  if (skip) {
    check = { ...base, verdict: 'skipped', message: skip };
  } else {
    const pctx: PropertyContext = {
      runId: ctx.runId,
      asOf: ctx.asOf,
      profile: ctx.profile,
      fc: { seed: ctx.seed, numRuns: NUM_RUNS[ctx.profile] },
      target: ctx.target,
      get signal() {
        return signal;
      },
      get s3() {
        return ctx.s3();
      },
      api: async (req) => {
        if (!ctx.target.management) throw new TargetLacks('the target has no management API configured');
        const out = buildApiRequest(ctx.target.management, req as ApiRequest);
        return wire(await sendHttp(ctx.agent, out, signal));
      },
      http: async (req) => {
        if (!ctx.target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
        const out = await buildS3Request(ctx.target.s3, { ...req, body: req.body as any });
        return wire(await sendHttp(ctx.agent, out, signal));
      },
      bucket: async (label = 'p') => {
        const name = bucketName(ctx.runId, slug, `${label}${buckets++}`);
        if (!ctx.target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
        await createBucket(ctx.agent, ctx.target.s3, name, signal);
        ledger.add(`delete bucket ${name}`, () => destroyBucket(ctx.s3(), name));
        return name;
      },
      defer: (action) => ledger.add('property teardown', action),
      unjudgeable: (reason) => {
        throw new TargetError(reason);
      },
      skip: (reason) => {
        throw new TargetLacks(reason);
      },
    };
    try {
      await p.run(pctx);
      check = { ...base, verdict: 'pass' };
    } catch (err) {
      const target = causeOf(err, TargetError);
      const lacks = causeOf(err, TargetLacks);
      const message = redactText(errorMessage(err));
      check = ctx.signal.aborted
        ? { ...base, verdict: 'blocked', message: 'the run was interrupted before the property finished' }
        : lacks
          ? { ...base, verdict: 'skipped', message: redactText(lacks.message) }
          : target
            ? { ...base, verdict: 'error', message: `${redactText(target.message)} (seed ${ctx.seed})` }
            : { ...base, verdict: 'fail', message: `${message} (replay: --seed ${ctx.seed})` };
    }
  }
  signal = AbortSignal.timeout(ctx.timeoutMs);
  const teardown = await ledger.drain();
  check = redactDeep(check);
  ctx.emit({ type: 'check', result: check });
  const result: CaseResult = {
    id: p.id,
    title: p.title,
    file,
    area,
    verdict: check.verdict,
    reason: check.verdict === 'skipped' ? check.message : undefined,
    durationMs: Math.round(performance.now() - started),
    checks: [check],
    teardown: teardown.length ? teardown.map(redactText) : undefined,
  };
  ctx.emit({ type: 'case-end', result });
  return result;
}
