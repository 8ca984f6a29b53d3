import type { FaultTrace } from '../../reference/fault-trace.ts';
import { startReference } from '../../reference/server.ts';
import { type RunOptions, runEdgecheck, today } from '../../runner/api.ts';
import type { RunResults } from '../../runner/model/results.ts';

const IN_THREAD_TIMEOUT_MS = 180_000;

/**
 * A run against a reference started in this thread: it starts in milliseconds, where the
 * embedded reference of `edgecheck run` (a worker thread) takes about half a second. For tests
 * that run the suites many times; what `edgecheck run` wires itself is tested elsewhere.
 */
export async function runInThread(
  options: Omit<RunOptions, 'target' | 'ownedTarget'> & { faults?: string[] },
): Promise<RunResults> {
  return (await tracedRunInThread(options, false)).results;
}

/** runInThread, with the reference's fault trace (reference/fault-trace.ts) when `traceFaults`. */
export async function tracedRunInThread(
  options: Omit<RunOptions, 'target' | 'ownedTarget'> & { faults?: string[] },
  traceFaults = true,
): Promise<{ results: RunResults; trace?: FaultTrace }> {
  const { faults = [], ...run } = options;
  const asOf = run.asOf ?? today();
  const reference = await startReference({ asOf, faults, traceFaults });
  try {
    // The reference in this thread never hangs: the timeout only bounds one, far past what a
    // loaded machine needs. Runs at once share this thread with their references, and beside a
    // CPU hog a large PutObject took over the default 30 s, turning a verdict into an error.
    const timeoutMs = run.timeoutMs ?? IN_THREAD_TIMEOUT_MS;
    const results = await runEdgecheck({
      ...run,
      asOf,
      timeoutMs,
      target: reference.target(),
      ownedTarget: { faults },
    });
    return { results, trace: reference.faultTrace };
  } finally {
    await reference.close();
  }
}
