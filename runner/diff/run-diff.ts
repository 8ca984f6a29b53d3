import fc from 'fast-check';
import type { ApiRequest, HttpRequest } from '../model/case.ts';
import type { ManagementTarget, S3Target } from '../model/target.ts';
import { createAgent } from '../transports/agent.ts';
import { sendHttp } from '../transports/http.ts';
import { buildApiRequest } from '../transports/management.ts';
import { bufferBody, StepResponse } from '../transports/response.ts';
import { buildS3Request } from '../transports/s3-raw.ts';
import { TargetError } from '../util/errors.ts';
import { type Difference, differences, type Normalized } from './normalize.ts';

export interface DiffSide {
  name: string;
  s3?: S3Target;
  management?: ManagementTarget;
}

/** A difference already known (a baseline entry): reported as such, not as a finding. */
export interface KnownDifference {
  signature: string;
  reason: string;
}

export interface DiffOptions {
  runId: string;
  seed: number;
  /** Sequences tried per search for a new difference. */
  runs: number;
  /** The most commands in one sequence. */
  maxLength: number;
  /** Stop after this many distinct differences. */
  maxDifferences: number;
  known?: KnownDifference[];
  /** Replays one counterexample: fast-check's seed and path, as a finding prints them. */
  replay?: { seed: number; path: string };
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** One distinct difference: the shortest sequence found that shows it, and both answers. */
export interface Finding {
  /** Command, aspect and deciding clauses: how findings are told apart and matched to a baseline. */
  signature: string;
  sequence: string[];
  /** Index in `sequence` of the command answered differently. */
  at: number;
  difference: Difference;
  /** The clauses that decide the command's answer; empty: no clause does. */
  clauses: string[];
  answers: [Normalized, Normalized];
  seed: number;
  path: string;
  /** Set when a baseline lists it. */
  known?: string;
  /** The model that found it (s3, dns, rulesets), so that a replay runs that one. */
  area?: string;
  /**
   * Of `clauses`, those where SPEC departs from Amazon S3, with what Amazon S3 does: there the
   * target that differs from SPEC may be doing as Amazon S3 does.
   */
  amazon?: Record<string, string>;
}

export interface DiffReport {
  sides: [string, string];
  sequences: number;
  findings: Finding[];
  /** Baseline entries that no sequence showed this time. */
  unseen: KnownDifference[];
  /** What could not be removed from a target, with the command that removes it. */
  leftovers: string[];
  /** Set when a target stopped answering and the search ended early. */
  stopped?: string;
}

export interface Shown {
  at: number;
  difference: Difference;
  clauses: string[];
  signature: string;
  answers: [Normalized, Normalized];
}

/**
 * Differential mode: sequences of S3 commands generated from a model (s3-commands.ts), sent to
 * two targets in lockstep under a fresh key prefix each, every answer compared after
 * normalisation (normalize.ts). fast-check shrinks a sequence that shows a difference to the
 * shortest it finds; then the search starts again with that difference set aside, until no new
 * one appears in `runs` sequences or `maxDifferences` are found.
 */
/** How one side sends a request: a connection it closes or a timeout is an answer of status 0. */
export type Ask = (side: DiffSide, req: { s3?: HttpRequest; api?: ApiRequest }) => Promise<StepResponse>;

/**
 * Deletes each management resource a sequence made on a side (by its path); what could not be
 * removed, with the request that removes it. A resource already gone (404) counts as removed.
 */
export async function deleteEach(
  side: DiffSide,
  ask: Ask,
  made: { what: string; path: string }[],
): Promise<string[]> {
  const left: string[] = [];
  await Promise.all(
    made.map(async ({ what, path }) => {
      const res = await ask(side, { api: { method: 'DELETE', path } });
      if ((res.status < 200 || res.status >= 300) && res.status !== 404) {
        left.push(`${side.name}: ${what} (DELETE answered ${res.status}); remove it with DELETE ${path}`);
      }
    }),
  );
  return left;
}

/**
 * What the search needs of a kind of resources: how to make commands, send one to a side (its
 * answers, normalised), tell and label differences, and what to set up and clear.
 */
export interface DiffModel<C, S> {
  command: fc.Arbitrary<C>;
  /** The sequences to try, when not any commands up to the length (a model whose commands need a first one). */
  sequence?: (maxLength: number) => fc.Arbitrary<C[]>;
  describe(cmd: C): string;
  clauses(cmd: C, difference: Difference): string[];
  signature(cmd: C, difference: Difference): string;
  /** Once per side before any sequence (a bucket, the zone's name); throws TargetError when refused. */
  setup(side: DiffSide, ask: Ask): Promise<void>;
  /** Once per side at the end: what could not be removed, with the command that removes it. */
  teardown(side: DiffSide, ask: Ask): Promise<string | undefined>;
  /** A side's state for one sequence, numbered so that it writes under names of its own. */
  state(side: DiffSide, sequence: number): S;
  perform(side: DiffSide, cmd: C, state: S, ask: Ask): Promise<Normalized[]>;
  /** Removes what one sequence made on a side; what could not be removed, with how to remove it. */
  clear(side: DiffSide, state: S, ask: Ask): Promise<string[]>;
}

/** How the search reaches the two sides, and the first side that stopped answering. */
interface Wire {
  /** Sends as is: setup and teardown. */
  send: Ask;
  /** Sends for the search: a side that refused or throttled ends it, by a TargetError. */
  ask: Ask;
  /** Requests that remove what a sequence made: sent even after the search stopped. */
  tidy: Ask;
  /** Why the search stopped, once a side stopped answering. */
  down(): string | undefined;
  close(): Promise<void>;
}

function connect(timeoutMs: number, signal: AbortSignal): Wire {
  const agent = createAgent(8, timeoutMs);
  const send = async (side: DiffSide, req: { s3?: HttpRequest; api?: ApiRequest }): Promise<StepResponse> => {
    if (req.s3)
      return sendHttp(agent, await buildS3Request(side.s3!, req.s3), { signal, timeoutMs, door: 's3' });
    return sendHttp(agent, buildApiRequest(side.management!, req.api!), {
      signal,
      timeoutMs,
      door: 'management',
    });
  };
  /** A side that refuses connections: the search stops there, keeping what it found. */
  let down: string | undefined;
  const ask: Ask = async (side, req) => {
    if (down) throw new TargetError(down);
    const res = await send(side, req).catch((err: unknown) => {
      if (!(err instanceof TargetError) || signal.aborted) throw err;
      if (/ECONNREFUSED/.test(err.message)) {
        down = `${side.name} stopped answering (${err.message})`;
        throw new TargetError(down);
      }
      return new StepResponse(0, {}, bufferBody(Buffer.from(`(no answer: ${err.message})`)));
    });
    // A throttled or unavailable answer is no answer of the implementation: the search ends there.
    if ([429, 502, 503, 504].includes(res.status)) {
      down = `${side.name} answered HTTP ${res.status} (throttled or unavailable)`;
      throw new TargetError(down);
    }
    return res;
  };
  const tidy: Ask = (side, req) =>
    send(side, req).catch((err: unknown) => {
      if (!(err instanceof TargetError)) throw err;
      return new StepResponse(0, {}, bufferBody(Buffer.from(`(no answer: ${err.message})`)));
    });
  return { send, ask, tidy, down: () => down, close: () => agent.close() };
}

/** What one search keeps from sequence to sequence. */
interface Search<C, S> {
  sides: [DiffSide, DiffSide];
  model: DiffModel<C, S>;
  wire: Wire;
  /** The differences a baseline knows, by signature, with its reason. */
  known: Map<string, string>;
  /** The differences already found, which the search now looks past. */
  setAside: Set<string>;
  findings: Finding[];
  leftovers: string[];
  sequences: number;
}

/**
 * Differential mode: sequences of commands generated from a model, sent to two targets in
 * lockstep, every answer compared after normalisation (normalize.ts). fast-check shrinks a
 * sequence that shows a difference to the shortest it finds; then the search starts again with
 * that difference set aside, until no new one appears in `runs` sequences or `maxDifferences` are
 * found.
 */
export async function runDiff<C, S>(
  sides: [DiffSide, DiffSide],
  options: DiffOptions,
  model: DiffModel<C, S>,
): Promise<DiffReport> {
  const wire = connect(options.timeoutMs ?? 30_000, options.signal ?? new AbortController().signal);
  const search: Search<C, S> = {
    sides,
    model,
    wire,
    known: new Map((options.known ?? []).map((k) => [k.signature, k.reason])),
    setAside: new Set<string>(),
    findings: [],
    leftovers: [],
    sequences: 0,
  };
  const prepared: DiffSide[] = [];
  try {
    for (const side of sides) {
      await model.setup(side, wire.send);
      prepared.push(side);
    }
    await searchRounds(search, options);
    const { findings } = search;
    // What a user acts on first: a clause's departure, then a status, a body, a header.
    findings.sort((x, y) => rank(x.difference, x.clauses) - rank(y.difference, y.clauses));
    const seen = new Set(findings.map((f) => f.signature));
    return {
      sides: [sides[0].name, sides[1].name],
      sequences: search.sequences,
      findings,
      unseen: (options.known ?? []).filter((k) => !seen.has(k.signature)),
      leftovers: search.leftovers,
      stopped: wire.down(),
    };
  } finally {
    for (const side of prepared) {
      const left = await model
        .teardown(side, wire.send)
        .catch((err: Error) => `${side.name}: what the run made there may remain (${err.message})`);
      if (left) search.leftovers.push(left);
    }
    await wire.close();
  }
}

/**
 * The searches: each a fast-check property over sequences, whose shrunk counterexample becomes a
 * finding and is set aside for the next; the differences a baseline knows are added at the end.
 */
async function searchRounds<C, S>(search: Search<C, S>, options: DiffOptions): Promise<void> {
  const { model, findings, wire } = search;
  const knownAt = new Map<string, Finding>();
  let currentSeed = options.seed;
  const property = fc.asyncProperty(
    model.sequence?.(options.maxLength) ??
      fc.array(model.command, { minLength: 1, maxLength: options.maxLength }),
    async (cmds) => {
      const { shown, knownSeen } = await runSequence(search, cmds);
      // A known difference is reported once, with the sequence that first showed it (not shrunk).
      for (const k of knownSeen) {
        if (!knownAt.has(k.signature))
          knownAt.set(k.signature, findingOf(model, cmds, k, currentSeed, '', search.known.get(k.signature)));
      }
      return shown === undefined;
    },
  );
  // Only what a user acts on takes a slot of --max-differences: a search that finds nothing new
  // (a shrunk sequence that no longer shows its difference) or only a header one side sends and
  // no clause names costs none. The searches themselves are bounded all the same.
  const newFound = () => findings.filter((f) => rank(f.difference, f.clauses) < 3).length;
  for (let round = 0; newFound() < options.maxDifferences && round < options.maxDifferences * 3; round++) {
    const seed = options.replay?.seed ?? options.seed + round;
    currentSeed = seed;
    const details = await fc.check(property, {
      seed,
      numRuns: options.replay ? 1 : options.runs,
      ...(options.replay ? { path: options.replay.path } : {}),
    });
    if (!details.failed || !details.counterexample) break;
    if (wire.down()) break;
    const [cmds] = details.counterexample;
    // The shrunk sequence once more, to keep what it shows (fast-check keeps only the input).
    const again = await runSequence(search, cmds).catch((err: unknown) => {
      if (wire.down()) return { shown: undefined, knownSeen: [] };
      throw err;
    });
    if (!again.shown) continue;
    search.setAside.add(again.shown.signature);
    findings.push(findingOf(model, cmds, again.shown, seed, details.counterexamplePath ?? ''));
    if (options.replay) break;
  }
  findings.push(...knownAt.values());
}

/** Runs the sequence on both sides; the first difference not set aside, with the ones a baseline knows. */
async function runSequence<C, S>(
  search: Search<C, S>,
  cmds: C[],
): Promise<{ shown?: Shown; knownSeen: Shown[] }> {
  const { sides, model, wire } = search;
  const n = search.sequences++;
  const states = sides.map((side) => model.state(side, n)) as [S, S];
  const knownSeen: Shown[] = [];
  try {
    for (let i = 0; i < cmds.length; i++) {
      const cmd = cmds[i];
      const answers = await Promise.all(
        sides.map((side, s) => model.perform(side, cmd, states[s], wire.ask)),
      );
      const shown = firstNewDifference(search, cmd, i, answers, knownSeen);
      if (shown) return { shown, knownSeen };
    }
    return { knownSeen };
  } finally {
    // Clearing is tried whatever stopped the search; what it cannot remove is reported.
    const left = await Promise.all(
      sides.map((side, s) =>
        model
          .clear(side, states[s], wire.tidy)
          .catch((err: Error) => [`${side.name}: what sequence ${n} made may remain (${err.message})`]),
      ),
    );
    search.leftovers.push(...left.flat());
  }
}

/**
 * The two sides' answers to the command at `at`, request by request: the first difference neither
 * known nor set aside, most telling first; the known ones it passes are added to `knownSeen`.
 */
function firstNewDifference<C, S>(
  search: Search<C, S>,
  cmd: C,
  at: number,
  answers: Normalized[][],
  knownSeen: Shown[],
): Shown | undefined {
  const { model } = search;
  for (let step = 0; step < Math.max(answers[0].length, answers[1].length); step++) {
    const pair: [Normalized, Normalized] = [answers[0][step] ?? missing(), answers[1][step] ?? missing()];
    const ranked = differences(pair[0], pair[1])
      .map((difference) => ({ difference, clauses: model.clauses(cmd, difference) }))
      .sort((x, y) => rank(x.difference, x.clauses) - rank(y.difference, y.clauses));
    for (const { difference, clauses } of ranked) {
      const signature = model.signature(cmd, difference);
      const shown = { at, difference, clauses, signature, answers: pair };
      if (search.known.has(signature)) knownSeen.push(shown);
      else if (!search.setAside.has(signature)) return shown;
    }
  }
  return undefined;
}

function findingOf<C, S>(
  model: DiffModel<C, S>,
  cmds: C[],
  shown: Shown,
  seed: number,
  path: string,
  reason?: string,
): Finding {
  return {
    signature: shown.signature,
    sequence: cmds.slice(0, shown.at + 1).map((c) => model.describe(c)),
    at: shown.at,
    difference: shown.difference,
    clauses: shown.clauses,
    answers: shown.answers,
    seed,
    path,
    known: reason,
  };
}

/**
 * How much a difference says, least first: one a clause decides, then a status, an error code or a
 * body (what the operation answered), then a header's value, then a header present on one side only.
 */
function rank(d: Difference, clauses: string[]): number {
  if (clauses.length) return 0;
  if (d.aspect === 'status' || d.aspect === 'error-code' || d.aspect === 'body') return 1;
  return d.a === '(absent)' || d.b === '(absent)' ? 3 : 2;
}

function missing(): Normalized {
  return { status: 0, headers: {}, body: ['(not sent: an earlier request of the command failed)'] };
}

/**
 * What tells one difference from another: the command, where it differs and, for a status, the two
 * statuses; for a body, the elements that differ (their values aside); a header present on one
 * side only, whatever the command. The same departure seen
 * through other commands' options is then one finding.
 */
export function signatureOf(cmd: { op: string }, d: Difference): string {
  if (d.aspect === 'status') return `${cmd.op} status ${d.a} / ${d.b}`;
  // A header one side sends and the other never does is one difference, whichever command shows it.
  if (d.aspect.startsWith('header:') && (d.a === '(absent)' || d.b === '(absent)'))
    return `${d.aspect} on one side only`;
  if (d.aspect !== 'body') return `${cmd.op} ${d.aspect}`;
  const paths = new Set(
    `${d.a}; ${d.b}`
      .split(/; (?=\/|\()/)
      .map((l) => l.replace(/=.*$/, ''))
      .filter((l) => l.startsWith('/')),
  );
  return `${cmd.op} body ${[...paths].sort().join(' ')}`;
}

/** signatureOf with array positions as `*`: a JSON answer's nth item differs as any other does. */
export function jsonSignatureOf(cmd: { op: string }, d: Difference): string {
  return signatureOf(cmd, d).replace(/\/\d+(?=\/| |$)/g, '/*');
}
