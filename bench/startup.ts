import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { ROOT } from '../runner/util/paths.ts';
import { type MeasuredRun, measuredRun, medianRun } from './cpu-run.ts';

export interface Startup {
  /** `edgecheck --help`, process start to exit, median of the rounds. */
  help: MeasuredRun;
  /** `edgecheck run --clause CLAUSE` against the embedded reference, median of the rounds. */
  oneClause: MeasuredRun;
  /** The same, run first: the suites compiled afresh when the cache holds no entry for them. */
  oneClauseFirst: MeasuredRun;
}

export const ONE_CLAUSE = 'mgmt.envelope.success';

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
 * How long the command takes to start, and what CPU it spends, as a user runs it: from the
 * sources (a checkout, from their transform kept by bin/source-build.mjs), or from the build (`built`, as the installed package does).
 * The first one-clause run has a cache of compiled suites of its own (cold); the rest share one.
 */
export async function measureStartup(built: boolean, rounds = 5): Promise<Startup> {
  const env = { EDGECHECK_DIST: built ? '1' : '0' };
  const oneClauseArgs = ['run', '--clause', ONE_CLAUSE, '--reporter', 'json=RESULTS'];
  const cold = `${ROOT}/node_modules/.cache/edgecheck-bench-cold-${process.pid}`;
  const oneClauseFirst = await measuredRun(oneClauseArgs, { env: { ...env, EDGECHECK_CACHE_DIR: cold } });
  rmSync(cold, { recursive: true, force: true });
  const help = await medianRun(rounds, () => measuredRun(['--help'], { env }));
  const oneClause = await medianRun(rounds, () => measuredRun(oneClauseArgs, { env }));
  return { help, oneClause, oneClauseFirst };
}
