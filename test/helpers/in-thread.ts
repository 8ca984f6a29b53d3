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
  const { faults = [], ...run } = options;
  const asOf = run.asOf ?? today();
  const reference = await startReference({ asOf, faults });
  try {
    return await runEdgecheck({ ...run, asOf, target: reference.target(), ownedTarget: { faults } });
  } finally {
    await reference.close();
  }
}
