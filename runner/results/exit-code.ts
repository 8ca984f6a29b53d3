import type { BaselineDiff, RunResults } from '../model/results.ts';

/**
 * A run's exit policy, in one place: a single run, a merge of its shards, and several targets
 * in one run all end by these rules (README, "Exit codes").
 */

export type ExitCode = 0 | 1 | 130;

export interface RunOutcome {
  /** A signal (SIGINT, SIGTERM) stopped the run. */
  bySignal: boolean;
  /** Something stopped it before every case ran (a signal, or its --max-duration). */
  interrupted: boolean;
  /** What teardown could not remove or put back. */
  leftovers: number;
  /** Some clause fails or errors. */
  failing: boolean;
  /** Set when the run was held to a baseline: then only a change from it counts. */
  baseline?: Pick<BaselineDiff, 'newFailures' | 'fixed'>;
}

/**
 * 130 when a signal stopped it; else 1 when something is left on the target or the run was cut
 * short, whatever the verdicts; else, held to a baseline, 1 for any change from it (a new failure,
 * or a listed one fixed, so the baseline is kept true); else 1 when a clause fails or errors; else 0.
 */
export function exitCodeOf(o: RunOutcome): ExitCode {
  if (o.bySignal) return 130;
  if (o.leftovers > 0 || o.interrupted) return 1;
  if (o.baseline) return o.baseline.newFailures.length || o.baseline.fixed.length ? 1 : 0;
  return o.failing ? 1 : 0;
}

/**
 * Several targets in one run: the named target's code with --exit-from; else 130 when any run was
 * interrupted; else 1 when any target's run is not clean; else 0.
 */
export function severalTargetsExitCode(
  results: Pick<RunResults, 'exitCode' | 'interrupted'>[],
  exitFrom?: number,
): number {
  if (exitFrom !== undefined) return results[exitFrom].exitCode;
  if (results.some((r) => r.interrupted)) return 130;
  return results.some((r) => r.exitCode !== 0) ? 1 : 0;
}

/**
 * The code the process ends with: a signal that arrives once every case has run changes nothing,
 * so the report's code stands unless the run was itself cut short by it.
 */
export function processExitCode(
  results: Pick<RunResults, 'exitCode' | 'interrupted'>,
  signalled: boolean,
): number {
  return results.interrupted && signalled ? 130 : results.exitCode;
}
