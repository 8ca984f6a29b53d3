import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_CREDENTIALS } from '../reference/context.ts';
import { REFERENCE_FEATURES, type ReferenceHandle, startReference } from '../reference/server.ts';
import { snapshotReference } from '../reference/snapshot.ts';
import { today } from '../runner/api.ts';

/*
 * Ctrl-C at any moment of a real CLI run leaves nothing behind. Full runs against
 * two references (two lanes in parallel), each interrupted with SIGINT at a seeded random moment from
 * just after start-up (the console's run header) to near the end (95% of its cases done). A moment is a
 * point of the run's progress (cases done) plus a delay, not a time since start, so that it falls inside
 * the run however loaded the machine is. After each run: exit code 130, a JSON report that says the run
 * was interrupted, and a reference holding exactly what it held before.
 */

/**
 * The moments change daily (the seed is the day's number, printed; EDGECHECK_INTERRUPT_SEED
 * replays one): ten a day cover more of the run over the days than a fixed twenty would.
 */
const SEED = Number(process.env.EDGECHECK_INTERRUPT_SEED ?? Math.floor(Date.now() / 86_400_000));
const RUNS = 10;
const LANES = 3;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'edgecheck.mjs');
const AS_OF = today();
/** A child still running this long after its SIGINT is killed and reported. */
const EXIT_GRACE_MS = 30_000;

/** mulberry32: a small seeded PRNG, so the moments replay exactly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const references: ReferenceHandle[] = [];
const children = new Set<ChildProcess>();
let work: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'edgecheck-interrupt-'));
  for (let i = 0; i < LANES; i++) {
    const r = await startReference({ asOf: AS_OF });
    references.push(r);
    // A value the spec still accepts, so that what a run leaves is about the interrupt, not about a value
    // that can no longer be put back (test/suite-live-safety-state.test.ts covers that).
    const res = await fetch(
      `${r.urls.management}/client/v4/zones/${r.context.ids.zoneId}/settings/security_level`,
      {
        method: 'PATCH',
        headers: {
          authorization: `Bearer ${REFERENCE_CREDENTIALS.token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ value: 'off' }),
      },
    );
    expect(res.status).toBe(200);
  }
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(references.map((r) => r.close()));
  if (work) rmSync(work, { recursive: true, force: true });
});

/** When to interrupt: once this share of the run's cases is done (0: at the run header), `delayMs` later. */
interface Moment {
  share: number;
  delayMs: number;
}

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Cases done when the signal was sent (-1: never sent), of how many. */
  done: number;
  /** ms from the signal to the exit (teardown included). */
  unwind: number;
  total: number;
  stderr: string;
}

/** One CLI run against `r`, interrupted with SIGINT at `moment` of its progress. */
function runCli(r: ReferenceHandle, report: string, moment: Moment): Promise<Outcome> {
  const c = REFERENCE_CREDENTIALS;
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('EDGECHECK_')),
  );
  Object.assign(env, {
    EDGECHECK_API_TOKEN: c.token,
    EDGECHECK_AUTH_EMAIL: c.legacyEmail,
    EDGECHECK_AUTH_KEY: c.legacyKey,
    EDGECHECK_S3_ACCESS_KEY_ID: c.accessKeyId,
    EDGECHECK_S3_SECRET_ACCESS_KEY: c.secretAccessKey,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    NO_COLOR: '1',
  });
  const args = [
    BIN,
    'run',
    '--management-url',
    r.urls.management,
    '--s3-endpoint',
    r.urls.s3,
    '--public-url',
    r.urls.public,
    '--account-id',
    r.context.ids.accountId,
    '--zone-id',
    r.context.ids.zoneId,
    // The invitation is left out: accepting one cannot be undone, interrupted or not.
    '--id',
    `certificatePack=${r.context.ids.certificatePackId}`,
    ...REFERENCE_FEATURES.flatMap((f) => ['--feature', f]),
    '--as-of',
    AS_OF,
    '--concurrency',
    '8',
    // A local reference, not an account whose API budget the run shares with its owner.
    '--rate-limit',
    'off',
    // A line per case: the progress the moments are counted in.
    '--verbose',
    '--reporter',
    'console',
    '--reporter',
    `json=${report}`,
  ];
  // cwd in the temporary folder: every run also writes .edgecheck/last-run.json where it runs.
  const child = spawn(process.execPath, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let total = -1;
  let done = 0;
  let sent = false;
  let doneAtSignal = -1;
  let signalledAt = 0;
  let stdout = '';
  let stderr = '';
  let grace: NodeJS.Timeout | undefined;
  const interrupt = () => {
    sent = true;
    doneAtSignal = done;
    setTimeout(() => {
      signalledAt = performance.now();
      child.kill('SIGINT');
      grace = setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS);
    }, moment.delayMs);
  };
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    const lines = stdout.split('\n');
    stdout = lines.pop() ?? '';
    for (const line of lines) {
      const header = / (\d+) cases, \d+ clauses$/.exec(line);
      if (header && total < 0) total = Number(header[1]);
      else if (/^\[\s*\d+\/\d+\] /.test(line)) done += 1;
      else continue;
      if (!sent && total >= 0 && done >= Math.floor(moment.share * total)) interrupt();
    }
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      clearTimeout(grace);
      children.delete(child);
      const unwind = signalledAt ? Math.round(performance.now() - signalledAt) : -1;
      resolve({ code, signal, done: doneAtSignal, total, unwind, stderr });
    });
  });
}

/** Where two snapshots differ, one line per value: `path: before -> after`. */
function differences(before: unknown, after: unknown, at = ''): string[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  if (isObj(before) && isObj(after) && Array.isArray(before) === Array.isArray(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    // Arrays of named things (records, buckets, objects) line up by their name, not by position.
    const label = (v: unknown, i: string) =>
      isObj(v) ? String(v.name ?? v.key ?? v.id ?? v.uploadId ?? i) : i;
    if (Array.isArray(before) && Array.isArray(after)) {
      const b = new Map(before.map((v, i) => [label(v, String(i)), v]));
      const a = new Map(after.map((v, i) => [label(v, String(i)), v]));
      return [...new Set([...b.keys(), ...a.keys()])].flatMap((k) =>
        differences(b.get(k), a.get(k), `${at}[${k}]`),
      );
    }
    return [...keys].flatMap((k) => differences(before[k], after[k], `${at}.${k}`));
  }
  const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v).slice(0, 300));
  return [`${at}: ${show(before)} -> ${show(after)}`];
}

describe('SIGINT at seeded random moments of full CLI runs', () => {
  it(`leaves nothing behind, exits 130 and reports the interrupt (seed ${SEED})`, async () => {
    const started = performance.now();
    const random = prng(SEED);
    // From just after start-up (no case done) to near the end (95% of the cases done), plus up to 300 ms.
    const moments: Moment[] = Array.from({ length: RUNS }, () => ({
      share: Math.round(random() * 950) / 1000,
      delayMs: Math.floor(random() * 300),
    }));
    console.log(
      `seed ${SEED}: SIGINT once this share of the cases is done, plus ms: ${moments.map((m) => `${m.share}+${m.delayMs}`).join(', ')}`,
    );

    const problems: string[] = [];
    await Promise.all(
      references.map(async (r, lane) => {
        for (let i = lane; i < RUNS; i += LANES) {
          const before = snapshotReference(r.state);
          const report = path.join(work, `run-${i}.json`);
          const t0 = performance.now();
          const out = await runCli(r, report, moments[i]);
          console.log(
            `run ${i}: SIGINT ${moments[i].delayMs} ms after ${out.done} of ${out.total} cases, exit ${out.code ?? out.signal} ${out.unwind} ms later, ${Math.round(performance.now() - t0)} ms in all`,
          );
          const at = `run ${i} (SIGINT ${moments[i].delayMs} ms after ${out.done} of ${out.total} cases)`;
          try {
            const json = JSON.parse(readFileSync(report, 'utf8')) as {
              interrupted?: unknown;
              exitCode?: unknown;
            };
            // A signal landing after the last case ran finds a finished run: its report and exit code
            // must then agree on that (0, nothing interrupted) instead. Once the process has emitted
            // 'exit', Node tears its signal handlers down before the process ends (some 20-40 ms), so
            // a signal landing then ends it by that signal, its report already whole: the late
            // handler itself is held to the run's code in cli-late-signal-keeps-exit-code.test.ts.
            const reported = json.interrupted === false && json.exitCode === 0;
            const finished = reported && (out.code === 0 || out.signal === 'SIGINT');
            if (!finished && out.code !== 130)
              problems.push(`${at}: exit ${out.code ?? out.signal}: ${out.stderr.slice(-500)}`);
            if (!finished && (json.interrupted !== true || json.exitCode !== 130)) {
              problems.push(`${at}: report says interrupted ${json.interrupted}, exitCode ${json.exitCode}`);
            }
          } catch (err) {
            problems.push(`${at}: no JSON report (${(err as Error).message})`);
          }
          for (const d of differences(before, snapshotReference(r.state))) problems.push(`${at}: left ${d}`);
        }
      }),
    );
    console.log(
      `${RUNS} interrupted runs in ${LANES} lanes: ${Math.round(performance.now() - started)} ms wall`,
    );
    expect(problems).toEqual([]);
  }, 600_000);
});
