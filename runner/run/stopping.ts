import { setMaxListeners } from 'node:events';

/**
 * What stops a run: the caller's signal (SIGINT, SIGTERM) and its own --max-duration. The run's
 * signal fires on either; `release` forgets both once the run is over.
 */
export function runStopping(
  callerSignal: AbortSignal | undefined,
  maxDurationMs: number | undefined,
): { signal: AbortSignal; bySignal: () => boolean; release: () => void } {
  const controller = new AbortController();
  // Every in-flight request listens on the run's signal.
  setMaxListeners(0, controller.signal);
  const onAbort = () => controller.abort(callerSignal?.reason);
  callerSignal?.addEventListener('abort', onAbort, { once: true });
  if (callerSignal?.aborted) onAbort();
  const deadline = maxDurationMs
    ? setTimeout(
        () => controller.abort(new Error(`the run reached its --max-duration of ${maxDurationMs / 1000} s`)),
        maxDurationMs,
      )
    : undefined;
  return {
    signal: controller.signal,
    bySignal: () => Boolean(callerSignal?.aborted),
    release: () => {
      callerSignal?.removeEventListener('abort', onAbort);
      clearTimeout(deadline);
    },
  };
}
