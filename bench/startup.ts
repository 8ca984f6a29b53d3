import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../runner/util/paths.ts';

export interface Startup {
  /** `edgecheck --help`, process start to exit, best of the rounds. */
  helpMs: number;
  /** `edgecheck run --clause CLAUSE` against the embedded reference, best of the rounds. */
  oneClauseMs: number;
}

export const ONE_CLAUSE = 'mgmt.envelope.success';

function timed(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const t = performance.now();
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/edgecheck.mjs'), ...args], {
    cwd,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(performance.now() - t)
        : reject(new Error(`edgecheck ${args.join(' ')} exited ${code}`)),
    );
  });
}

/** The build (dist/, what the published package runs) compiled from the sources as they are now. */
export function build(): Promise<void> {
  const child = spawn('npm', ['run', '--silent', 'build'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm run build exited ${code}`))));
  });
}

/**
 * How long the command takes to start, as a user runs it: from the sources through tsx (a
 * checkout), or from the build (`built`, as the installed package does). Best of `rounds`.
 */
export async function measureStartup(built: boolean, rounds = 5): Promise<Startup> {
  const env = { ...process.env, EDGECHECK_DIST: built ? '1' : '0' };
  // A folder of its own: the run writes .edgecheck/last-run.json where it runs.
  const cwd = mkdtempSync(path.join(tmpdir(), 'edgecheck-bench-startup-'));
  try {
    let helpMs = Number.POSITIVE_INFINITY;
    let oneClauseMs = Number.POSITIVE_INFINITY;
    for (let i = 0; i < rounds; i++) {
      helpMs = Math.min(helpMs, await timed(['--help'], env, cwd));
      oneClauseMs = Math.min(
        oneClauseMs,
        await timed(['run', '--clause', ONE_CLAUSE, '--reporter', 'json=results.json'], env, cwd),
      );
    }
    return { helpMs, oneClauseMs };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
