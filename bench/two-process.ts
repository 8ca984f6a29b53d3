import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../runner/util/paths.ts';
import { measuredRun } from './cpu-run.ts';

/** The runner and the server it tests as two processes, each one's whole CPU from start to exit. */
export interface TwoProcesses {
  runnerCpuS: number;
  serverCpuS: number;
  requests: number;
  exitCode: number | null;
}

const PRELOAD = path.join(ROOT, 'bench', 'thread-cpu.mjs');

/**
 * The environment and arguments of the run command `edgecheck serve` prints ("Run every suite
 * against it"), as a user would paste it: every credential and feature of the server on.
 */
function pastedCommand(printed: string): { env: Record<string, string>; args: string[] } {
  const from = printed.indexOf('EDGECHECK_API_TOKEN=');
  const words = printed
    .slice(from, printed.indexOf('Ctrl-C', from))
    .replace(/\\\n/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  const env: Record<string, string> = {};
  let at = 0;
  for (; /^[A-Z][A-Z0-9_]*=/.test(words[at]); at++) {
    const eq = words[at].indexOf('=');
    env[words[at].slice(0, eq)] = words[at].slice(eq + 1);
  }
  // `npx edgecheck run ...`: what follows `run`.
  return { env, args: words.slice(words.indexOf('run', at) + 1) };
}

/**
 * `edgecheck serve` and `edgecheck run` against it (quick profile, `suites` or every one), each
 * its own process with bench/thread-cpu.mjs preloaded: the server's CPU is its whole process's, from
 * start to the exit that follows the run's end.
 */
export async function measureTwoProcesses(suites: string[], built = true): Promise<TwoProcesses> {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-bench-serve-'));
  const cpuFile = path.join(dir, 'server-cpu.json');
  const env = { ...process.env, EDGECHECK_DIST: built ? '1' : '0' };
  const server = spawn(
    process.execPath,
    ['--import', PRELOAD, path.join(ROOT, 'bin/edgecheck.mjs'), 'serve'],
    {
      cwd: dir,
      env: { ...env, EDGECHECK_BENCH_CPU_FILE: cpuFile },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const printed = await new Promise<string>((resolve, reject) => {
      let text = '';
      server.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        if (text.includes('Ctrl-C')) resolve(text);
      });
      server.on('exit', () => reject(new Error(`edgecheck serve exited: ${text}`)));
    });
    const pasted = pastedCommand(printed);
    const args = ['run', ...pasted.args, '--profile', 'quick', '--reporter', 'json=RESULTS'];
    for (const s of suites) args.push('--suite', s);
    const run = await measuredRun(args, { env: { EDGECHECK_DIST: env.EDGECHECK_DIST, ...pasted.env } });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGINT');
    await exited;
    const serverCpu = JSON.parse(readFileSync(cpuFile, 'utf8')) as { total: number };
    return {
      runnerCpuS: run.cpuS,
      serverCpuS: serverCpu.total,
      requests: run.results?.requests?.total ?? 0,
      exitCode: run.exitCode,
    };
  } finally {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The median of each figure over `rounds` pairs of processes. */
export async function medianTwoProcesses(suites: string[], rounds = 3, built = true): Promise<TwoProcesses> {
  const runs: TwoProcesses[] = [];
  for (let i = 0; i < rounds; i++) runs.push(await measureTwoProcesses(suites, built));
  const median = (pick: (r: TwoProcesses) => number) =>
    runs.map(pick).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  return {
    runnerCpuS: median((r) => r.runnerCpuS),
    serverCpuS: median((r) => r.serverCpuS),
    requests: median((r) => r.requests),
    exitCode: runs.find((r) => r.exitCode !== 0)?.exitCode ?? runs[0].exitCode,
  };
}
