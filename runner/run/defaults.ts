/**
 * A run's defaults, in one place: what a run does when neither a flag, a config file nor the
 * caller says otherwise (README, "Running against a live endpoint").
 */
export const RUN_DEFAULTS = {
  profile: 'quick' as 'quick' | 'full',
  /** Cases in flight at once. */
  concurrency: 8,
  /** Each request's deadline, body included. */
  timeoutMs: 30_000,
};

/** The date whose behaviour applies when no --as-of is given: today, in UTC. */
export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** Each teardown action's own deadline: the larger of 60 s and four request timeouts. */
export function teardownTimeoutFor(timeoutMs: number): number {
  return Math.max(60_000, 4 * timeoutMs);
}
