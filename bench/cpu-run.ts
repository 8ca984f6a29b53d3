import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../runner/util/paths.ts';

/** One edgecheck process as a user starts it, with what it cost. */
export interface MeasuredRun {
  wallMs: number;
  /** CPU seconds (user + system) of the whole process; of the reference's thread; of the rest. */
  cpuS: number;
  referenceCpuS?: number;
  runnerCpuS?: number;
  /** Peak resident memory of the process (both threads), MiB. */
  peakMiB?: number;
  exitCode: number | null;
  /** The run's JSON results, when it wrote them. */
  results?: any;
}

const PRELOAD = path.join(ROOT, 'bench', 'thread-cpu.mjs');

/**
 * Runs `bin/edgecheck.mjs args` in a folder of its own (`RESULTS` in args names its JSON results
 * file), with bench/thread-cpu.mjs preloaded to split its CPU between the reference and the rest.
 * `nodeArgs` go to node itself (--cpu-prof).
 */
export async function measuredRun(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; nodeArgs?: string[] } = {},
): Promise<MeasuredRun> {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-bench-run-'));
  const resultsFile = path.join(dir, 'results.json');
  const cpuFile = path.join(dir, 'cpu.json');
  try {
    const t = performance.now();
    const child = spawn(
      process.execPath,
      [
        ...(options.nodeArgs ?? []),
        '--import',
        PRELOAD,
        path.join(ROOT, 'bin/edgecheck.mjs'),
        ...args.map((a) => a.replace('RESULTS', resultsFile)),
      ],
      {
        cwd: dir,
        env: { ...process.env, ...options.env, EDGECHECK_BENCH_CPU_FILE: cpuFile },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', resolve);
    });
    const wallMs = performance.now() - t;
    const cpu = readJson(cpuFile) as {
      total: number;
      reference: number;
      runner: number;
      workers: number;
      peakKiB: number;
    };
    return {
      wallMs,
      cpuS: cpu?.total ?? Number.NaN,
      referenceCpuS: cpu?.workers ? cpu.reference : undefined,
      runnerCpuS: cpu?.workers ? cpu.runner : undefined,
      peakMiB: cpu ? cpu.peakKiB / 1024 : undefined,
      exitCode,
      results: readJson(resultsFile),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The median of each figure over `rounds` runs (results from the first). */
export async function medianRun(
  rounds: number,
  run: () => Promise<MeasuredRun>,
): Promise<MeasuredRun & { rounds: number }> {
  const runs: MeasuredRun[] = [];
  for (let i = 0; i < rounds; i++) runs.push(await run());
  const median = (pick: (r: MeasuredRun) => number | undefined) => {
    const v = runs
      .map(pick)
      .filter((x): x is number => x !== undefined)
      .sort((a, b) => a - b);
    return v.length ? v[Math.floor(v.length / 2)] : undefined;
  };
  return {
    rounds,
    wallMs: median((r) => r.wallMs)!,
    cpuS: median((r) => r.cpuS)!,
    referenceCpuS: median((r) => r.referenceCpuS),
    runnerCpuS: median((r) => r.runnerCpuS),
    peakMiB: median((r) => r.peakMiB),
    exitCode: runs.find((r) => r.exitCode !== 0)?.exitCode ?? runs[0].exitCode,
    results: runs[0].results,
  };
}
