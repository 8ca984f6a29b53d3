import { listAreas } from '../runner/api.ts';
import { type MeasuredRun, measuredRun, medianRun } from './cpu-run.ts';

export interface SuitesTime extends MeasuredRun {
  summary: Record<string, Record<string, number>>;
  cases: number;
  /** Requests the cases of each suite sent. */
  requestsBySuite: Record<string, number>;
  requests: number;
}

/**
 * A quick-profile run against the embedded reference, as a user starts it: from the build
 * (`built`, as the installed package runs) or from the sources (`npm start` in a checkout, from
 * their transform kept by bin/source-build.mjs); median of `rounds`.
 */
async function measureRun(suites: string[], rounds: number, built = true): Promise<SuitesTime> {
  const args = ['run', '--profile', 'quick', '--reporter', 'json=RESULTS'];
  for (const s of suites) args.push('--suite', s);
  const env = { EDGECHECK_DIST: built ? '1' : '0' };
  const run = await medianRun(rounds, () => measuredRun(args, { env }));
  const results = run.results;
  const requestsBySuite: Record<string, number> = {};
  for (const c of (results?.cases ?? []) as { area: string; requests?: number }[]) {
    requestsBySuite[c.area] = (requestsBySuite[c.area] ?? 0) + (c.requests ?? 0);
  }
  return {
    ...run,
    summary: results?.summary ?? {},
    cases: results?.cases?.length ?? 0,
    requestsBySuite,
    requests: results?.requests?.total ?? 0,
  };
}

/** `edgecheck run` as a user runs it: a new process, the embedded reference, every suite, quick profile. */
export function measureSuites(rounds = 3, built = true): Promise<SuitesTime> {
  return measureRun([], rounds, built);
}

/** Each suite alone, the same way. */
export async function measureEachSuite(rounds = 3): Promise<{ suite: string; run: SuitesTime }[]> {
  const out: { suite: string; run: SuitesTime }[] = [];
  for (const suite of listAreas()) out.push({ suite, run: await measureRun([suite], rounds) });
  return out;
}
