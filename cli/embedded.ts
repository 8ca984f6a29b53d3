import { startReferenceWorker } from '../reference/worker.ts';
import { preloadSuites, type RunOptions, runEdgecheck, today } from '../runner/api.ts';
import type { RunResults } from '../runner/model/results.ts';
import type { BindingsTarget, Target } from '../runner/model/target.ts';
import { withBindings } from './bindings-miniflare.ts';

export interface EmbeddedRunOptions extends Omit<RunOptions, 'target' | 'ownedTarget'> {
  /** Faults the reference breaks on purpose for this run (reference/faults.ts). */
  reference?: {
    faults?: string[];
    name?: string;
    /** A bindings probe to use in place of the reference's own (--bindings miniflare). */
    bindings?: BindingsTarget;
  };
}

/**
 * Starts the embedded reference for one run, runs against it over HTTP, and stops it. The
 * wiring lives here, outside the engine, because the engine knows targets only as URLs.
 */
export async function runAgainstEmbedded(options: EmbeddedRunOptions): Promise<RunResults> {
  const { reference: referenceOptions, ...runOptions } = options;
  const asOf = options.asOf ?? today();
  const starting = startReferenceWorker({ asOf, faults: referenceOptions?.faults });
  // Awaited below; a failure to start must not count as unhandled meanwhile.
  starting.catch(() => {});
  // The reference starts on a thread of its own while the suites are read here.
  await preloadSuites(runOptions);
  const reference = await starting;
  try {
    // The reference's own description of itself is an engine Target by structure.
    const own: Target = reference.target();
    const named: Target = referenceOptions?.name ? { ...own, name: referenceOptions.name } : own;
    const target = referenceOptions?.bindings ? withBindings(named, referenceOptions.bindings) : named;
    return await runEdgecheck({ ...runOptions, asOf, target, ownedTarget: { faults: reference.faults } });
  } finally {
    await reference.close();
  }
}
