import { randomBytes } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { listAreas } from './load/clauses.ts';
import type { LazyProperty } from './load/properties.ts';
import { type LoadedSuites, loadSuites } from './load/suite.ts';
import type { Reporter, RunResults } from './model/results.ts';
import { newRunId } from './model/run-id.ts';
import type { Target } from './model/target.ts';
import { loadBaseline } from './results/baseline.ts';
import { assembleResults } from './run/assemble.ts';
import { RUN_DEFAULTS, teardownTimeoutFor, today } from './run/defaults.ts';
import { caseSkipReason } from './run/run-case.ts';
import { runWork } from './run/schedule.ts';
import { type Selection, selectWork } from './run/select.ts';
import { runStopping } from './run/stopping.ts';
import type { RunContext } from './steps/context.ts';
import { Outstanding } from './steps/teardown.ts';
import { createAgent } from './transports/agent.ts';
import { createS3Client } from './transports/s3-sdk.ts';
import { type RateCap, Traffic } from './transports/traffic.ts';
import { errorMessage, InputError } from './util/errors.ts';
import { registerSecret } from './util/redact.ts';

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

export { RUN_DEFAULTS, today } from './run/defaults.ts';

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

/** What preloadSuites read, for the run that follows it with the same selection. */
let preloaded: { selection: string; loaded: Promise<LoadedSuites<LazyProperty>> } | undefined;

const preloadKey = (areas: string[], allAreas: string[], dir?: string) =>
  JSON.stringify([areas, allAreas, dir]);

/**
 * Reads the suites a run of `options` will load, so that the run finds them loaded: a caller
 * starting a target meanwhile overlaps the two. Problems are left for the run itself to report.
 */
export async function preloadSuites(options: Pick<RunOptions, 'suites' | 'suitesDir'>): Promise<void> {
  try {
    const { areas, allAreas } = selectedAreas(options);
    const loaded = loadSuites(areas, allAreas, options.suitesDir, { errorsOnly: true, lazyProperties: true });
    preloaded = { selection: preloadKey(areas, allAreas, options.suitesDir), loaded };
    await loaded;
  } catch {
    // The run reports it, with its place.
  }
}

/** The suites of a run: those preloaded for it, taken once, or read now. */
function suitesFor(areas: string[], allAreas: string[], dir?: string): Promise<LoadedSuites<LazyProperty>> {
  const kept = preloaded;
  preloaded = undefined;
  if (kept?.selection === preloadKey(areas, allAreas, dir)) return kept.loaded;
  return loadSuites(areas, allAreas, dir, { errorsOnly: true, lazyProperties: true });
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
  const loaded = await suitesFor(areas, allAreas, options.suitesDir);
  const firstError = loaded.problems.find((p) => p.level === 'error');
  if (firstError)
    throw new InputError(firstError.where, `${firstError.what} (run 'edgecheck lint' for all problems)`);
  const work = selectWork(loaded, options);
  // The selected properties' modules, imported before the run starts: one that cannot be is bad input.
  await Promise.all(work.properties.map((p) => p.load()));
  const baseline = options.baseline ? loadBaseline(options.baseline) : undefined;
  const { target, ownedTarget: owned } = options;
  for (const secret of [
    target.management?.token,
    target.management?.legacy?.key,
    target.s3?.secretAccessKey,
    target.bindings?.secret,
  ])
    registerSecret(secret);
  const concurrency = Math.max(1, options.concurrency ?? RUN_DEFAULTS.concurrency);
  const stopping = runStopping(options.signal, options.maxDurationMs);
  const reporters = options.reporters ?? [];
  const { ctx, close } = runContext(options, loaded.clauses, concurrency, stopping.signal, reporters);
  const startedAt = new Date();
  const targetInfo = targetInfoOf(target, owned);
  let results!: RunResults;
  let closeFailure: PromiseRejectedResult | undefined;
  try {
    ctx.emit({
      type: 'run-start',
      ...{ runId: ctx.runId, target: targetInfo, asOf: ctx.asOf, profile: ctx.profile, seed: ctx.seed },
      cases: work.cases.length + work.properties.length,
      clauses: work.clauses.length,
      limits: describeLimits(options),
      disruptive: ctx.allowDisruptive && !owned ? disruptiveWork(work, ctx) : undefined,
    });
    const cases = await runWork(loaded, work, ctx, concurrency);
    results = assembleResults({
      ...{ runId: ctx.runId, target, targetInfo, asOf: ctx.asOf, profile: ctx.profile, seed: ctx.seed },
      selection: selectionOf(options, areas, ctx.readOnly),
      startedAt,
      clauses: work.clauses,
      cases,
      baseline: baseline && { file: options.baseline!, known: baseline },
      requests: ctx.traffic.counts,
      down: ctx.traffic.availability.down,
      stopped: stopping.signal.aborted ? (stopping.signal.reason ?? 'stopped') : undefined,
      bySignal: stopping.bySignal(),
    });
    ctx.emit({ type: 'run-end', results });
  } finally {
    stopping.release();
    closeFailure = await close();
  }
  if (closeFailure) {
    throw new InputError('--reporter', `could not write the results: ${errorMessage(closeFailure.reason)}`);
  }
  return results;
}

/** The target as the results document names it (its secrets never among it). */
function targetInfoOf(target: Target, owned: RunOptions['ownedTarget']): RunResults['target'] {
  return {
    name: target.name,
    management: target.management?.baseUrl,
    s3: target.s3?.endpoint,
    embedded: Boolean(target.embedded),
    faults: owned?.faults,
    features: [...target.features],
  };
}

/** What the run selected, as the results document records it. */
function selectionOf(options: RunOptions, areas: string[], readOnly: boolean): RunResults['selection'] {
  return {
    suites: areas,
    cases: options.cases?.length ? options.cases : undefined,
    clauses: options.clauses?.length ? options.clauses : undefined,
    tags: options.tags?.length ? options.tags : undefined,
    shard: options.shard,
    readOnly: readOnly || undefined,
  };
}

/**
 * What every case and property of the run shares (the target, connections, pacing, the signal,
 * the reporters), and how to release it: every resource whatever happened to the others, since a
 * leftover socket would keep the process alive after the run. `close` answers the first failure.
 */
function runContext(
  options: RunOptions,
  clauses: RunContext['clauses'],
  concurrency: number,
  signal: AbortSignal,
  reporters: Reporter[],
): { ctx: RunContext; close: () => Promise<PromiseRejectedResult | undefined> } {
  const { target } = options;
  const timeoutMs = options.timeoutMs ?? RUN_DEFAULTS.timeoutMs;
  const agent = createAgent(concurrency, timeoutMs);
  const traffic = new Traffic({
    onPause: ({ resumeAt, ...pause }) =>
      ctx.emit({ type: 'pacing', ...pause, resumeAt: new Date(resumeAt).toISOString() }),
    timeoutMs,
    rateCap: options.rateLimit ? { management: options.rateLimit } : undefined,
    budget: options.maxRequests,
    retries: options.retries,
    maxRetryWaitMs: options.maxRetryWaitMs,
  });
  const teardownTimeoutMs = options.teardownTimeoutMs ?? teardownTimeoutFor(timeoutMs);
  let s3: S3Client | undefined;
  const ctx: RunContext = {
    runId: newRunId(),
    target,
    asOf: options.asOf ?? today(),
    profile: options.profile ?? RUN_DEFAULTS.profile,
    seed: options.seed ?? randomBytes(4).readUInt32BE(0) >>> 1,
    readOnly: Boolean(options.readOnly),
    // A target started for this run alone is the run's to change.
    allowDisruptive: Boolean(options.allowDisruptive || options.ownedTarget),
    timeoutMs,
    clauses,
    agent,
    traffic,
    s3: () => {
      s3 ??= createS3Client(target.s3!, concurrency, timeoutMs, traffic);
      return s3;
    },
    signal,
    teardownSignal: () => AbortSignal.timeout(teardownTimeoutMs),
    outstanding: options.outstanding ?? new Outstanding(),
    emit: (event) => {
      for (const r of reporters) r.onEvent(event);
    },
  };
  const close = async () => {
    const closing = await Promise.allSettled([
      ...reporters.map((r) => r.close()),
      (async () => s3?.destroy())(),
      agent.close(),
    ]);
    return closing.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  };
  return { ctx, close };
}

// What the CLI needs of the pieces the engines share, through this one entry (the diff and sweep
// engines have theirs: runner/diff/index.ts, runner/sweep/index.ts). The result model
// (runner/model/) and the leaf helpers (runner/util/) are imported as they are.
export { type Assertion, type ClauseAssertions, clauseAssertions } from './load/assertions.ts';
export { listAreas, loadClauses } from './load/clauses.ts';
export { loadSuites } from './load/suite.ts';
export { pointerToPath, readYaml } from './load/yaml-source.ts';
export { eventsOf } from './results/events.ts';
export { processExitCode, severalTargetsExitCode } from './results/exit-code.ts';
export { mergeResults } from './results/merge.ts';
export { caseWaits, type StepWaits } from './run/dependencies.ts';
export { describeErrors, schemas } from './schema/registry.ts';
export { Outstanding } from './steps/teardown.ts';
export { parseRateCap, type RateCap } from './transports/traffic.ts';
