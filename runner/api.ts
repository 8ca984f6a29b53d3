import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { listAreas } from './load/clauses.ts';
import { loadSuites } from './load/suite.ts';
import type { CaseResult, Reporter, RunResults } from './model/results.ts';
import { newRunId } from './model/run-id.ts';
import type { Target } from './model/target.ts';
import { adviceFor } from './results/advice.ts';
import { clauseResults, summarize } from './results/aggregate.ts';
import { compareBaseline, loadBaseline } from './results/baseline.ts';
import { exitCodeOf } from './results/exit-code.ts';
import type { RunContext } from './run/context.ts';
import { ExclusiveLocks } from './run/exclusive.ts';
import { caseSkipReason, runCase } from './run/run-case.ts';
import { runProperty } from './run/run-property.ts';
import { type Selection, selectWork } from './run/select.ts';
import { Outstanding } from './run/teardown.ts';
import { createAgent } from './transports/agent.ts';
import { createS3Client } from './transports/s3-sdk.ts';
import { type RateCap, Traffic } from './transports/traffic.ts';
import { errorMessage, InputError } from './util/errors.ts';
import { registerSecret } from './util/redact.ts';
import { VERSION } from './version.ts';

export interface RunOptions extends Selection {
  /** Areas (folders of suites/); default all. */
  suites?: string[];
  target: Target;
  /**
   * Set by the caller that started this target for this run alone (the embedded reference,
   * cli/embedded.ts): the run owns it, so disruptive checks run, and its faults are reported.
   */
  ownedTarget?: { faults: string[] };
  asOf?: string;
  profile?: 'quick' | 'full';
  concurrency?: number;
  readOnly?: boolean;
  seed?: number;
  reporters?: Reporter[];
  timeoutMs?: number;
  baseline?: string;
  signal?: AbortSignal;
  /** The suites folder (tests point it at their own); default suites/ of the project. */
  suitesDir?: string;
  /** Run checks whose change cannot be put back (always so on the run's own embedded reference). */
  allowDisruptive?: boolean;
  /** At most this many management API requests start within any window (none by default). */
  rateLimit?: RateCap;
  /** Requests the run may send in all; cases that would cross it are skipped. */
  maxRequests?: number;
  /** Retries of a 429/502/503/504 answer (default 3). */
  retries?: number;
  /** The longest wait between tries, Retry-After included (default 30 s). */
  maxRetryWaitMs?: number;
  /** Each teardown action's own deadline (default the larger of 60 s and four request timeouts). */
  teardownTimeoutMs?: number;
  /** The whole run's deadline: past it no new request starts and the run tears down and fails. */
  maxDurationMs?: number;
  /** Teardown not yet done, for a caller that must say what is left if it stops at once. */
  outstanding?: Outstanding;
}

export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** The selected cases and properties that may change what cannot be put back, with what. */
function disruptiveWork(
  work: ReturnType<typeof selectWork>,
  ctx: RunContext,
): { id: string; what: string }[] {
  return [
    ...work.cases
      .filter((c) => c.disruptive && !caseSkipReason({ ...c, disruptive: undefined }, ctx))
      .map((c) => ({ id: c.id, what: c.disruptive! })),
    ...work.properties
      .filter((p) => p.def.disruptive)
      .map((p) => ({ id: p.def.id, what: p.def.disruptive! })),
  ];
}

function describeLimits(o: RunOptions): string | undefined {
  const parts: string[] = [];
  if (o.rateLimit) {
    parts.push(`management requests paced at ${o.rateLimit.requests} per ${o.rateLimit.windowMs / 1000} s`);
  }
  if (o.maxRequests !== undefined) parts.push(`at most ${o.maxRequests} requests`);
  return parts.length ? `${parts.join(', ')} (--rate-limit, --max-requests)` : undefined;
}

/**
 * Reads the suites a run of `options` will load, so that the run finds them parsed (the loader
 * keeps parsed files while unchanged): a caller starting a target meanwhile overlaps the two.
 * Problems are left for the run itself to report.
 */
export async function preloadSuites(options: Pick<RunOptions, 'suites' | 'suitesDir'>): Promise<void> {
  try {
    const { areas, allAreas } = selectedAreas(options);
    await loadSuites(areas, allAreas, options.suitesDir);
  } catch {
    // The run reports it, with its place.
  }
}

/** The areas a run selects, and all there are. Throws InputError for an unknown one. */
function selectedAreas(options: Pick<RunOptions, 'suites' | 'suitesDir'>): {
  areas: string[];
  allAreas: string[];
} {
  const allAreas = listAreas(options.suitesDir);
  const areas = options.suites?.length ? options.suites : allAreas;
  for (const a of areas) {
    if (!allAreas.includes(a))
      throw new InputError(`--suite ${a}`, `no such suite; known: ${allAreas.join(', ')}`);
  }
  return { areas, allAreas };
}

/** Loads, selects, runs and reports. Throws InputError for bad input (the CLI exits 2). */
export async function runEdgecheck(options: RunOptions): Promise<RunResults> {
  const { areas, allAreas } = selectedAreas(options);
  const asOf = options.asOf ?? today();
  const profile = options.profile ?? 'quick';
  const loaded = await loadSuites(areas, allAreas, options.suitesDir);
  const firstError = loaded.problems.find((p) => p.level === 'error');
  if (firstError)
    throw new InputError(firstError.where, `${firstError.what} (run 'edgecheck lint' for all problems)`);
  const work = selectWork(loaded, options);
  const baseline = options.baseline ? loadBaseline(options.baseline) : undefined;

  const target = options.target;
  const owned = options.ownedTarget;
  registerSecret(target.management?.token);
  registerSecret(target.management?.legacy?.key);
  registerSecret(target.s3?.secretAccessKey);
  registerSecret(target.bindings?.secret);

  const concurrency = Math.max(1, options.concurrency ?? 8);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const agent = createAgent(concurrency, timeoutMs);
  const traffic = new Traffic({
    rateCap: options.rateLimit ? { management: options.rateLimit } : undefined,
    budget: options.maxRequests,
    retries: options.retries,
    maxRetryWaitMs: options.maxRetryWaitMs,
  });
  const teardownTimeoutMs = options.teardownTimeoutMs ?? Math.max(60_000, 4 * timeoutMs);
  let s3: S3Client | undefined;
  const controller = new AbortController();
  // Every in-flight request listens on the run's signal.
  setMaxListeners(0, controller.signal);
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  const deadline = options.maxDurationMs
    ? setTimeout(
        () =>
          controller.abort(
            new Error(`the run reached its --max-duration of ${options.maxDurationMs! / 1000} s`),
          ),
        options.maxDurationMs,
      )
    : undefined;
  const reporters = options.reporters ?? [];
  const runId = newRunId();
  const startedAt = new Date();
  const targetInfo: RunResults['target'] = {
    name: target.name,
    management: target.management?.baseUrl,
    s3: target.s3?.endpoint,
    embedded: Boolean(target.embedded),
    faults: owned?.faults,
    features: [...target.features],
  };
  const ctx: RunContext = {
    runId,
    target,
    asOf,
    profile,
    seed: options.seed ?? randomBytes(4).readUInt32BE(0) >>> 1,
    readOnly: Boolean(options.readOnly),
    // A target started for this run alone is the run's to change.
    allowDisruptive: Boolean(options.allowDisruptive || owned),
    timeoutMs,
    clauses: loaded.clauses,
    agent,
    traffic,
    s3: () => {
      s3 ??= createS3Client(target.s3!, concurrency, timeoutMs, traffic);
      return s3;
    },
    signal: controller.signal,
    teardownSignal: () => AbortSignal.timeout(teardownTimeoutMs),
    outstanding: options.outstanding ?? new Outstanding(),
    emit: (event) => {
      for (const r of reporters) r.onEvent(event);
    },
  };
  let results!: RunResults;
  let closeFailure: PromiseRejectedResult | undefined;
  try {
    ctx.emit({
      type: 'run-start',
      runId,
      target: targetInfo,
      asOf,
      profile,
      seed: ctx.seed,
      cases: work.cases.length + work.properties.length,
      clauses: work.clauses.length,
      limits: describeLimits(options),
      disruptive: ctx.allowDisruptive && !owned ? disruptiveWork(work, ctx) : undefined,
    });
    const limit = pLimit(concurrency);
    // A case's slug is its place among all the cases of the areas, not among the selected ones:
    // a filtered run then names its resources as the whole run would.
    const caseSlug = (c: (typeof loaded.cases)[number]) => loaded.cases.indexOf(c).toString(36);
    const propertySlug = (p: (typeof loaded.properties)[number]) =>
      (loaded.cases.length + loaded.properties.indexOf(p)).toString(36);
    // Longest chains start first, so a run's wall time approaches its critical path.
    type Job = { weight: number; exclusive: readonly string[]; run: () => Promise<CaseResult> };
    const jobsToRun: Job[] = [
      ...work.cases.map(
        (c): Job => ({
          weight: c.given.length + c.steps.length,
          exclusive: c.exclusive,
          run: () => runCase(c, caseSlug(c), ctx),
        }),
      ),
      ...work.properties.map(
        (p): Job => ({
          weight: 1000,
          exclusive: p.def.exclusive ?? [],
          run: () => runProperty(p.def, p.file, p.area, propertySlug(p), ctx),
        }),
      ),
    ];
    const order = jobsToRun.map((_, i) => i).sort((a, b) => jobsToRun[b].weight - jobsToRun[a].weight);
    const jobs: Promise<CaseResult>[] = new Array(jobsToRun.length);
    const locks = new ExclusiveLocks();
    // A case waiting for shared state holds no concurrency slot meanwhile.
    for (const i of order) {
      const job = jobsToRun[i];
      jobs[i] = job.exclusive.length ? locks.run(job.exclusive, () => limit(job.run)) : limit(job.run);
    }
    const cases = await Promise.all(jobs);
    const clauses = clauseResults(work.clauses, cases, asOf, target.features);
    const diff = baseline ? compareBaseline(options.baseline!, baseline, clauses) : undefined;
    const leftovers = cases.flatMap((c) => (c.leftovers ?? []).map((l) => ({ caseId: c.id, ...l })));
    const interrupted = controller.signal.aborted;
    const exitCode = exitCodeOf({
      bySignal: Boolean(options.signal?.aborted),
      interrupted,
      leftovers: leftovers.length,
      failing: clauses.some((c) => c.verdict === 'fail' || c.verdict === 'error'),
      baseline: diff,
    });
    results = {
      edgecheck: VERSION,
      runId,
      target: targetInfo,
      asOf,
      profile,
      seed: ctx.seed,
      selection: {
        suites: areas,
        cases: options.cases?.length ? options.cases : undefined,
        clauses: options.clauses?.length ? options.clauses : undefined,
        tags: options.tags?.length ? options.tags : undefined,
        shard: options.shard,
        readOnly: ctx.readOnly || undefined,
      },
      startedAt: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      summary: summarize(clauses, cases),
      clauses,
      cases,
      baseline: diff,
      requests: { ...traffic.counts },
      leftovers,
      advice: adviceFor(target, cases),
      interrupted,
      stoppedBy: interrupted ? errorMessage(controller.signal.reason) : undefined,
      exitCode,
    };
    ctx.emit({ type: 'run-end', results });
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    clearTimeout(deadline);
    // Each resource is released whatever happened to the others: a leftover worker or socket
    // would keep the process alive after the run.
    const closing = await Promise.allSettled([
      ...reporters.map((r) => r.close()),
      (async () => s3?.destroy())(),
      agent.close(),
    ]);
    closeFailure = closing.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  }
  if (closeFailure) {
    throw new InputError('--reporter', `could not write the results: ${errorMessage(closeFailure.reason)}`);
  }
  return results;
}

// What the CLI needs of the pieces the engines share, through this one entry (the diff and sweep
// engines have theirs: runner/diff/index.ts, runner/sweep/index.ts). The result model
// (runner/model/) and the leaf helpers (runner/util/) are imported as they are.
export { listAreas } from './load/clauses.ts';
export { loadSuites } from './load/suite.ts';
export { pointerToPath, readYaml } from './load/yaml-source.ts';
export { eventsOf } from './results/events.ts';
export { processExitCode, severalTargetsExitCode } from './results/exit-code.ts';
export { mergeResults } from './results/merge.ts';
export { Outstanding } from './run/teardown.ts';
export { describeErrors, schemas } from './schema/registry.ts';
export { parseRateCap, type RateCap } from './transports/traffic.ts';
