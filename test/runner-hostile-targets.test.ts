import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResults } from '../runner/model/results.ts';
import { BIN, cleanEnv } from './helpers/cli.ts';
import {
  type HostileMode,
  type HostileOptions,
  type HostileTarget,
  startHostileTarget,
} from './helpers/hostile-target.ts';
import { vmHwmKb } from './helpers/peak-memory.ts';

// A run against a target that misbehaves ends in bounded time and memory, judges nothing it cannot
// (`error`, never `fail`) and writes its reports; a rate cap and a request budget hold it to a
// target's limits.

/** Per-request timeout given to the runs whose target hangs, trickles or streams without end. */
const TIMEOUT_MS = 1000;
/**
 * The timeout of runs whose target answers at once (an HTML page, a flood, a paced or counted
 * run): their checks need the answers, which a loaded machine delivered past 1 s, so that the
 * first request was lost and the target taken as down before anything was answered. It is never
 * waited out: these targets answer.
 */
const ANSWERING_TIMEOUT_MS = 10_000;
/** Tries of one request: the first and the runner's default 3 retries of a 429/502/503/504. */
const TRIES = 4;
/** The most those retries wait in all: Retry-After (1 s) or a backoff of at most 0.5, 1 and 2 s. */
const RETRY_WAITS_MS = 1000 + 1000 + 2000;
/** The most requests sent one after another here: the property replays its failing example twice. */
const CHAIN = 3;
/**
 * From the first request the target sees to the runner's exit: the chain of requests, each of
 * TRIES tries bounded by the timeout plus the waits between them, and an allowance for teardown
 * and reports (3 × 8 s + 20 s): CPU work a loaded machine stretches (beside a CPU hog and other
 * test files it took over 6 s, where 4 s had been allowed), while a run that waited on the target
 * past its timeouts would take minutes.
 */
const atTargetBound = (timeoutMs: number) => CHAIN * (TRIES * timeoutMs + RETRY_WAITS_MS) + 20_000;
/**
 * Process start before the first request (loading and compiling the sources), with other runs
 * starting at the same time on 2 cores that other work may share; nothing in it depends on the
 * target.
 */
const START_ALLOWANCE_MS = 60_000;
const wallBound = (timeoutMs: number) => atTargetBound(timeoutMs) + START_ALLOWANCE_MS;

/** Runs at once: each runner's start takes a core for seconds, which would delay others' answers. */
const PARALLEL_RUNS = 4;
/** Peak resident memory of the runner process. */
const MEMORY_BOUND_KB = 300 * 1024;
/** Guards for the machine, not assertions: a runaway child is killed past these. */
const KILL_AFTER_MS = 100_000;
const KILL_ABOVE_KB = 1536 * 1024;

/** A few management cases, a few S3 cases and one property: quick, yet every kind of step. */
const SELECTION = [
  ['--case', 'mgmt.envelope.shapes'],
  ['--case', 'mgmt.zones.details'],
  ['--case', 'mgmt.pagination.past-end-empty'],
  ['--case', 's3.region.location'],
  ['--case', 's3.put.by-post'],
].flat();

/** S3 cases only: a prerequisite the target never answers (the bucket) is an error, not a pass. */
const S3_SELECTION = [
  ['--case', 's3.region.location'],
  ['--case', 's3.put.by-post'],
].flat();

/**
 * Management cases only (the rate cap is the management API's): about 14 requests, sent within a
 * fraction of a second when nothing holds them back.
 */
const MANAGEMENT_SELECTION = [
  ['--case', 'mgmt.envelope.shapes'],
  ['--case', 'mgmt.zones.details'],
  ['--case', 'mgmt.pagination.echo'],
  ['--case', 'mgmt.pagination.past-end-empty'],
].flat();

const ENV = {
  EDGECHECK_API_TOKEN: 'hostile-test-token',
  EDGECHECK_S3_ACCESS_KEY_ID: 'hostile-test-key',
  EDGECHECK_S3_SECRET_ACCESS_KEY: 'hostile-test-secret',
};

interface RunOutcome {
  label: string;
  /** The run's --timeout. */
  timeoutMs: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Spawn to exit. */
  durationMs: number;
  /** The target's first request to exit; undefined when the target saw none. */
  atTargetMs?: number;
  /** Highest VmHWM seen in /proc/<pid>/status, in kB. */
  peakKb: number;
  killedFor?: 'time' | 'memory';
  stderr: string;
  jsonFile: string;
  junitFile: string;
  server: HostileTarget;
}

let tmp = '';
const servers: HostileTarget[] = [];
const children = new Set<ChildProcess>();
/** Set once the tests are over: a wave that has not started yet never starts. */
let stopping = false;

/** Keeps the last `max` characters: a child's output cannot grow the test process unbounded. */
function tail(text: string, chunk: Buffer, max = 64 * 1024): string {
  const next = text + chunk.toString('utf8');
  return next.length > max ? next.slice(-max) : next;
}

/** Runs `edgecheck run` as a child process with `server` as both endpoints, watching its memory. */
function runAgainst(
  label: string,
  server: HostileTarget,
  args: string[],
  timeoutMs: number,
): Promise<RunOutcome> {
  const dir = mkdtempSync(path.join(tmp, `${label}-`));
  const jsonFile = path.join(dir, 'results.json');
  const junitFile = path.join(dir, 'junit.xml');
  const argv = [
    BIN,
    'run',
    ...['--management-url', server.url, '--s3-endpoint', server.url],
    ...['--account-id', 'a', '--zone-id', 'z'],
    ...['--timeout', String(timeoutMs)],
    ...['--reporter', `json=${jsonFile}`, '--reporter', `junit=${junitFile}`],
    ...args,
  ];
  return new Promise((resolve, reject) => {
    const started = Date.now();
    // The folder is the cwd, so the run's .edgecheck/last-run.json stays out of the project.
    const child = spawn(process.execPath, argv, {
      cwd: dir,
      env: cleanEnv(ENV),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.add(child);
    const out: RunOutcome = {
      label,
      timeoutMs,
      code: null,
      signal: null,
      durationMs: 0,
      peakKb: 0,
      stderr: '',
      jsonFile,
      junitFile,
      server,
    };
    child.stderr?.on('data', (d: Buffer) => {
      out.stderr = tail(out.stderr, d);
    });
    const kill = (why: 'time' | 'memory') => {
      out.killedFor ??= why;
      child.kill('SIGKILL');
    };
    const watch = setInterval(() => {
      const kb = child.pid === undefined ? undefined : vmHwmKb(child.pid);
      if (kb !== undefined) out.peakKb = Math.max(out.peakKb, kb);
      if (out.peakKb > KILL_ABOVE_KB) kill('memory');
      if (Date.now() - started > Math.max(KILL_AFTER_MS, wallBound(timeoutMs) + 20_000)) kill('time');
    }, 100);
    child.on('error', (err) => {
      clearInterval(watch);
      children.delete(child);
      reject(err);
    });
    child.on('exit', (code, signal) => {
      clearInterval(watch);
      const now = Date.now();
      out.durationMs = now - started;
      if (server.firstRequestAt !== undefined) out.atTargetMs = now - server.firstRequestAt;
      out.code = code;
      out.signal = signal;
    });
    child.on('close', () => {
      children.delete(child);
      resolve(out);
    });
  });
}

function readResults(o: RunOutcome): RunResults | undefined {
  try {
    return JSON.parse(readFileSync(o.jsonFile, 'utf8')) as RunResults;
  } catch {
    return undefined;
  }
}

const seconds = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`);

/** One line per run, for whoever reads the test output. */
function describeOutcome(o: RunOutcome, results: RunResults | undefined): string {
  const s = results?.summary;
  const tally = (t: Record<string, number> | undefined) =>
    t
      ? Object.entries(t)
          .filter(([, n]) => n > 0)
          .map(([v, n]) => `${n} ${v}`)
          .join(', ') || 'none'
      : 'no report';
  return (
    `[hostile ${o.label}] exit ${o.code ?? o.signal}${o.killedFor ? ` (killed: ${o.killedFor})` : ''}, ` +
    `${seconds(o.durationMs)} (${seconds(o.atTargetMs)} at the target), peak ${Math.round(o.peakKb / 1024)} MB, ` +
    `target saw ${o.server.requests} requests (${o.server.throttled} answered 429), run reports ` +
    `${results?.requests?.total ?? '-'}; clauses: ${tally(s?.clauses)}; checks: ${tally(s?.checks)}` +
    (results ? '' : `; stderr: ${o.stderr.trim().split('\n').slice(-2).join(' / ') || 'empty'}`)
  );
}

/** Every check message of the given verdict. */
function messages(results: RunResults, verdict: string): string[] {
  return results.cases.flatMap((c) =>
    c.checks.filter((k) => k.verdict === verdict).map((k) => `${c.id} ${k.step}: ${k.message ?? ''}`),
  );
}

/** Ended by itself, in time and memory, with both reports written. */
function expectBounded(o: RunOutcome): void {
  expect.soft(o.killedFor, 'killed by the watchdog').toBeUndefined();
  expect.soft(o.signal, 'ended by a signal').toBeNull();
  expect.soft(o.atTargetMs, 'ms from the first request to exit').toBeLessThan(atTargetBound(o.timeoutMs));
  expect.soft(o.durationMs, 'ms from spawn to exit').toBeLessThan(wallBound(o.timeoutMs));
  expect.soft(o.peakKb, 'peak resident memory in kB').toBeLessThan(MEMORY_BOUND_KB);
  expect.soft(existsSync(o.jsonFile), 'JSON report written').toBe(true);
  expect.soft(existsSync(o.junitFile), 'JUnit report written').toBe(true);
}

/**
 * The one `fail` a target answering 200 with bytes of its own may earn: it acknowledged the POST
 * upload, then answered the object's read with other bytes. That is what s3.put.post observes, and
 * no checker can tell garbage from a wrong object; every answer a check must parse is an error.
 */
const OBJECT_READ_DIFFERS = /^s3\.put\.by-post get-posted: body: expected "posted-body", got /;

/**
 * What a target answering 200 with a page of its own may also fail once every step is judged on its
 * own answer: GetBucketLocation answered with that page, whose content type is readable and which
 * holds no LocationConstraint (the SDK's reading of it and the raw one, each saying what was there).
 */
const LOCATION_PAGE =
  /^s3\.region\.location location(-sdk)?: (header content-type: |output at \/LocationConstraint: expected "auto", found nothing \(the answer is )/;
const PAGE_ANSWERS = new RegExp(`${OBJECT_READ_DIFFERS.source}|${LOCATION_PAGE.source}`);

/**
 * What a target answering 200 MB of JSON may also fail: GetBucketLocation answered in
 * application/json, when its 200 MB arrive within the request's time (on a quiet machine they do;
 * on a busy one the request times out and is an error). The document itself is over what edgecheck
 * reads, an error either way.
 */
const LOCATION_FLOOD = /^s3\.region\.location location: header content-type: /;
const FLOOD_ANSWERS = new RegExp(`${OBJECT_READ_DIFFERS.source}|${LOCATION_FLOOD.source}`);

/** Nothing judged on what a broken target answered: errors, blocked or skipped, exit 1. */
function expectJudgedFairly(o: RunOutcome, results: RunResults | undefined, mayFail?: RegExp): void {
  expect.soft(o.code, `exit code (stderr: ${o.stderr.slice(-500)})`).toBe(1);
  const fails = results ? messages(results, 'fail') : [];
  const allowed = mayFail ? fails.filter((m) => mayFail.test(m)) : [];
  if (existsSync(o.junitFile)) {
    const root = /<testsuites\b[^>]*>/.exec(readFileSync(o.junitFile, 'utf8'))?.[0] ?? '';
    // Each thing left on the target is a failing JUnit test case of its own.
    const left = results?.leftovers?.length ?? 0;
    expect
      .soft(root, 'JUnit: no failures but the allowed one and what was left')
      .toMatch(new RegExp(`failures="${allowed.length + left}"`));
    expect.soft(root, 'JUnit: some errors').toMatch(/errors="[1-9]\d*"/);
  }
  expect(results, 'JSON report parses').toBeDefined();
  if (!results) return;
  const { clauses, checks } = results.summary;
  expect
    .soft(
      fails.filter((m) => !allowed.includes(m)),
      'checks judged fail',
    )
    .toEqual([]);
  expect.soft(clauses.fail, 'clauses judged fail').toBe(allowed.length);
  // A check may pass on what the target did answer (a 200 to a PUT), but no clause can.
  expect.soft(clauses.pass, 'clauses judged pass').toBe(0);
  expect.soft(clauses.untested, 'untested clauses').toBe(0);
  expect.soft(clauses.error, 'clauses judged error').toBeGreaterThan(0);
  expect.soft(checks.error, 'checks judged error').toBeGreaterThan(0);
  expect.soft(results.exitCode, 'exit code in the report').toBe(1);
  // A request cut by its deadline may never have reached the target: the run may count more, not fewer.
  expect.soft(results.requests?.total, 'requests in the report').toBeGreaterThanOrEqual(o.server.requests);
}

interface Scenario {
  label: string;
  mode: HostileMode;
  /** The run's --timeout: TIMEOUT_MS unless the target answers at once (ANSWERING_TIMEOUT_MS). */
  timeoutMs?: number;
  options?: HostileOptions;
  args: string[];
  /** `error` checks say this (some of them may instead say that --timeout ran out). */
  errorsSay?: RegExp;
  /** The only `fail` the run may report (see OBJECT_READ_DIFFERS). */
  mayFail?: RegExp;
  /**
   * Runs after the others: streaming as fast as a client reads takes the test process's event
   * loop, where every hostile target lives, and would make the others late to answer.
   */
  streams?: boolean;
}

const BROKEN: Scenario[] = [
  // The longest runs first: they wait on Retry-After while the others run.
  { label: 'status-429', mode: 'status-429', args: SELECTION, errorsSay: /unavailable|throttl/i },
  { label: 'status-503', mode: 'status-503', args: SELECTION, errorsSay: /unavailable/i },
  { label: 'reset', mode: 'reset', args: SELECTION },
  { label: 'slow', mode: 'slow', args: SELECTION, errorsSay: /--timeout/ },
  { label: 'reset-s3-only', mode: 'reset', args: S3_SELECTION },
  { label: 'garbage', mode: 'garbage', args: SELECTION, mayFail: PAGE_ANSWERS },
  { label: 'truncated', mode: 'truncated', args: SELECTION },
  {
    label: 'html-502',
    mode: 'html',
    options: { htmlStatus: 502 },
    args: SELECTION,
    errorsSay: /unavailable/i,
  },
  {
    label: 'html-200',
    mode: 'html',
    timeoutMs: ANSWERING_TIMEOUT_MS,
    options: { htmlStatus: 200 },
    args: SELECTION,
    errorsSay: /HTML page|not JSON/,
    mayFail: PAGE_ANSWERS,
  },
  {
    label: 'endless',
    mode: 'endless',
    args: SELECTION,
    streams: true,
    errorsSay: /--timeout|over the \d+ MiB/,
  },
  // A body over the documented cap is an error that names the cap.
  {
    label: 'huge',
    mode: 'huge',
    timeoutMs: ANSWERING_TIMEOUT_MS,
    args: SELECTION,
    streams: true,
    errorsSay: /over the \d+ MiB/,
    mayFail: FLOOD_ANSWERS,
  },
];

/**
 * The target's limit for the rate test. It keeps the limit to itself (no RateLimit headers), so
 * only the run's own cap can keep the run under it; the run sends more than one window allows.
 */
const SERVER_LIMIT = { limit: 10, windowMs: 2000, announce: false };
/** The run's cap: below the server's, so that timing jitter between the two stays clear of it. */
const CAP = { requests: 8, windowMs: 2000 };

const RATE: Scenario[] = [
  {
    label: 'rate-capped',
    mode: 'rate-limited',
    timeoutMs: ANSWERING_TIMEOUT_MS,
    options: SERVER_LIMIT,
    args: [...MANAGEMENT_SELECTION, '--rate-limit', `${CAP.requests}/${CAP.windowMs / 1000}s`],
  },
];

/** A request budget below what the selection needs, against a target that throttles nothing. */
const BUDGET = 10;
const BUDGETED: Scenario = {
  label: 'budget',
  mode: 'rate-limited',
  timeoutMs: ANSWERING_TIMEOUT_MS,
  options: { limit: 1000, windowMs: 2000 },
  args: [...MANAGEMENT_SELECTION, '--max-requests', String(BUDGET)],
};

/**
 * Whole runs (every suite) against targets that fail all the way: the run takes the target as down
 * and stops sending. A full run sends thousands of requests; these see a handful.
 */
const DOWN: Scenario[] = [
  { label: 'down-silent', mode: 'silent', args: ['--rate-limit', 'off'] },
  { label: 'down-trickle', mode: 'slow', args: ['--rate-limit', 'off'] },
  { label: 'down-429', mode: 'status-429', args: ['--rate-limit', 'off'] },
  { label: 'down-flaky-503', mode: 'flaky-503', args: ['--rate-limit', 'off'] },
  { label: 'down-html-502', mode: 'html', options: { htmlStatus: 502 }, args: ['--rate-limit', 'off'] },
  { label: 'down-huge', mode: 'huge', args: ['--rate-limit', 'off'], streams: true },
];
/** Requests a down target may see before the run stops sending: a full run sends about 3,400. */
const DOWN_REQUESTS_BOUND = 200;

const runs = new Map<string, Promise<RunOutcome>>();

describe('runs against hostile targets', () => {
  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'edgecheck-hostile-'));
    const launch = async (s: Scenario) => {
      if (stopping) throw new Error(`${s.label}: not started, the tests are over`);
      const server = await startHostileTarget(s.mode, s.options);
      servers.push(server);
      return runAgainst(s.label, server, s.args, s.timeoutMs ?? TIMEOUT_MS);
    };
    // A few runs at a time, so that their timing measures the targets more than the shared cores;
    // the streaming targets' runs start when the others have ended. Tests await their own run.
    const all = [...BROKEN, ...RATE, BUDGETED, ...DOWN];
    const limit = pLimit(PARALLEL_RUNS);
    const first = all.filter((s) => !s.streams).map((s) => [s, limit(() => launch(s))] as const);
    const firstDone = Promise.allSettled(first.map(([, run]) => run));
    const second = all.filter((s) => s.streams).map((s) => [s, firstDone.then(() => launch(s))] as const);
    for (const [s, run] of [...first, ...second]) {
      run.catch(() => {});
      runs.set(s.label, run);
    }
  });

  afterAll(async () => {
    stopping = true;
    for (const child of children) child.kill('SIGKILL');
    await Promise.allSettled(runs.values());
    await Promise.all(servers.map((s) => s.close()));
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  for (const s of BROKEN) {
    it(`${s.label}: within ${atTargetBound(s.timeoutMs ?? TIMEOUT_MS) / 1000} s at the target and ${MEMORY_BOUND_KB / 1024} MB, exit 1, both reports, error verdicts and no fail${s.mayFail ? ' but the object read' : ''}`, async () => {
      const o = await runs.get(s.label)!;
      const results = readResults(o);
      console.log(describeOutcome(o, results));
      expectBounded(o);
      expectJudgedFairly(o, results, s.mayFail);
      if (results && s.errorsSay) {
        const errors = messages(results, 'error');
        const say = s.errorsSay;
        expect
          .soft(errors.filter((m) => say.test(m)).length, `error messages saying ${say}`)
          .toBeGreaterThan(0);
        // On a loaded machine an answer can come after the timeout: then the message says that;
        // once the target is taken as down, the checks left say so; and a connection the target
        // closed as the run reused it (its keep-alive timer late) is a reset, no answer either.
        for (const m of errors.filter((e) => !say.test(e)))
          expect
            .soft(m, `error message (whole: ${m})`)
            .toMatch(/--timeout|target unavailable: |reset the connection/);
      }
    });
  }

  for (const s of DOWN) {
    it(`${s.label}, every suite: the target is taken as down, the run stops sending, the cases left are errors saying so, both reports`, async () => {
      const o = await runs.get(s.label)!;
      const results = readResults(o);
      console.log(describeOutcome(o, results));
      expect.soft(o.killedFor, 'killed by the watchdog').toBeUndefined();
      expect.soft(o.code, `exit code (stderr: ${o.stderr.slice(-500)})`).toBe(1);
      expect.soft(o.peakKb, 'peak resident memory in kB').toBeLessThan(MEMORY_BOUND_KB);
      expect.soft(existsSync(o.junitFile), 'JUnit report written').toBe(true);
      expect(results, 'JSON report parses').toBeDefined();
      if (!results) return;
      expect.soft(o.server.requests, 'requests the target saw').toBeLessThan(DOWN_REQUESTS_BOUND);
      expect
        .soft(results.advice?.join('\n'), 'the note saying why the run stopped')
        .toMatch(/^target unavailable: /);
      const unavailable = results.cases.filter(
        (c) => c.verdict === 'error' && c.checks.some((k) => /^target unavailable: /.test(k.message ?? '')),
      );
      const judged = results.cases.filter((c) => c.verdict !== 'skipped');
      expect
        .soft(unavailable.length, 'cases in error saying the target is unavailable')
        .toBeGreaterThan(judged.length * 0.8);
      expect.soft(results.summary.clauses.pass, 'clauses judged pass').toBe(0);
      // A target answering every other request with a made-up success may fail what it answered; no other may.
      if (s.mode !== 'flaky-503') expect.soft(results.summary.clauses.fail, 'clauses judged fail').toBe(0);
    });
  }

  it(`rate-limited, capped at ${CAP.requests} per ${CAP.windowMs / 1000} s: no 429, paced, and the reported request count is the target's`, async () => {
    const o = await runs.get('rate-capped')!;
    const results = readResults(o);
    console.log(describeOutcome(o, results));
    expectBounded(o);
    // The target answers every call with an empty success, so checks may fail: only a crash may not.
    expect.soft([0, 1], `exit code ${o.code} (stderr: ${o.stderr.slice(-500)})`).toContain(o.code);
    expect.soft(o.server.throttled, '429 answers sent by the target').toBe(0);
    expect
      .soft(o.server.requests, 'requests sent: more than one window allows')
      .toBeGreaterThan(SERVER_LIMIT.limit);
    // The cap did hold requests back: the last one started no earlier than this.
    const paced = (Math.ceil(o.server.requests / CAP.requests) - 1) * CAP.windowMs;
    expect.soft(o.atTargetMs, 'ms at the target').toBeGreaterThanOrEqual(paced - 50);
    expect(results, 'JSON report parses').toBeDefined();
    expect(results!.requests, 'requests in the JSON results').toMatchObject({
      total: o.server.requests,
      management: o.server.requests,
      throttled: 0,
    });
  });

  it(`a request budget of ${BUDGET}: the target sees no more, the cases it cannot afford are skipped saying so`, async () => {
    const o = await runs.get('budget')!;
    const results = readResults(o);
    console.log(describeOutcome(o, results));
    expectBounded(o);
    expect.soft([0, 1], `exit code ${o.code} (stderr: ${o.stderr.slice(-500)})`).toContain(o.code);
    expect.soft(o.server.requests, 'requests the target saw').toBeLessThanOrEqual(BUDGET);
    expect(results, 'JSON report parses').toBeDefined();
    // A request cut before it reached the target is counted by the run (it was sent, as the loaded
    // machine this failed on showed: 6 counted, 5 seen): the count is bounded by the budget and by
    // what the target saw, not equal to the latter.
    const counted = results!.requests?.total ?? 0;
    expect.soft(counted, 'requests in the JSON results, at most the budget').toBeLessThanOrEqual(BUDGET);
    expect
      .soft(counted, 'requests in the JSON results, at least those seen')
      .toBeGreaterThanOrEqual(o.server.requests);
    const skipped = results!.cases.filter((c) => c.verdict === 'skipped');
    expect(skipped.length, 'cases skipped').toBeGreaterThan(0);
    for (const c of skipped) expect.soft(c.reason, `${c.id}: reason`).toMatch(/budget/);
  });
});
