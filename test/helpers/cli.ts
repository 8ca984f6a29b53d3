import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { main } from '../../cli/main.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(PROJECT_ROOT, 'bin', 'edgecheck.mjs');

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Environment for a child edgecheck without any EDGECHECK_* variable of the parent. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('EDGECHECK_')) env[k] = v;
  return { ...env, NO_COLOR: '1', ...extra };
}

/**
 * A bound on a child edgecheck that hangs, far past what one needs on a loaded machine: starting
 * tsx and loading the suites beside a CPU hog and other test files takes many times its quiet time.
 */
const CHILD_HANG_MS = 90_000;

/** Runs bin/edgecheck.mjs as a child process (the real exit code and streams). */
export function runBin(args: string[], env: Record<string, string> = {}): CliOutcome {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: PROJECT_ROOT,
    env: cleanEnv(env),
    encoding: 'utf8',
    timeout: CHILD_HANG_MS,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Same as runBin, without blocking the event loop (for runs against an in-process server). */
export function runBinAsync(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = CHILD_HANG_MS,
): Promise<CliOutcome> {
  return outcomeOf(
    spawn(process.execPath, [BIN, ...args], { cwd: PROJECT_ROOT, env: cleanEnv(env) }),
    timeoutMs,
  );
}

/** Collects a child's output and exit code; a child still running after `timeoutMs` is killed. */
export function outcomeOf(child: ChildProcess, timeoutMs: number): Promise<CliOutcome> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** Runs the CLI in this process (fast): the same `main` bin/edgecheck.mjs calls. */
export async function runMain(args: string[]): Promise<CliOutcome> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d) => {
    stdout += d;
  });
  err.on('data', (d) => {
    stderr += d;
  });
  const code = await main(args, out as any, err as any);
  return { code, stdout, stderr };
}

/** A stack trace line, as Node prints them. */
export const STACK_LINE = /^\s+at (?:.+ \()?(?:file:\/\/|node:|\/).*:\d+:\d+\)?$/m;

/**
 * A copy of the checkout at `dest`, without what a checkout makes (builds, reports, git), for tests
 * that edit or pack the project itself. Its node_modules links each package of the checkout's rather
 * than copying it, and has a cache folder of its own (node_modules/.cache).
 */
export function copyCheckout(dest: string): void {
  const skip = new Set(['node_modules', '.git', 'dist', 'out', '.edgecheck', 'coverage']);
  cpSync(PROJECT_ROOT, dest, {
    recursive: true,
    filter: (from) => !skip.has(path.relative(PROJECT_ROOT, from).split(path.sep)[0]),
  });
  const modules = path.join(PROJECT_ROOT, 'node_modules');
  mkdirSync(path.join(dest, 'node_modules'));
  for (const name of readdirSync(modules)) {
    if (name !== '.cache') symlinkSync(path.join(modules, name), path.join(dest, 'node_modules', name));
  }
}

/**
 * The CLI in this process with `dir` (made if missing) as the current folder and `env` stubbed,
 * for commands that read or write files of the current folder (.edgecheck/last-run.json).
 */
export async function runMainIn(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliOutcome> {
  mkdirSync(dir, { recursive: true });
  const before = process.cwd();
  process.chdir(dir);
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  try {
    return await runMain(args);
  } finally {
    vi.unstubAllEnvs();
    process.chdir(before);
  }
}
