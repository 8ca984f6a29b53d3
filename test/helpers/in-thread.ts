import type { FaultTrace } from '../../reference/fault-trace.ts';
import { startReference } from '../../reference/server.ts';
import { type RunOptions, runEdgecheck, today } from '../../runner/api.ts';
import type { RunResults } from '../../runner/model/results.ts';

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
    const results = await runEdgecheck({ ...run, asOf, target: reference.target(), ownedTarget: { faults } });
    return { results, trace: reference.faultTrace };
  } finally {
    await reference.close();
  }
}
