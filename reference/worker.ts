import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { UnknownFaultError } from './faults.ts';
import type { ReferenceOptions } from './server.ts';
import type { ReferenceTarget } from './target.ts';

export interface WorkerReference {
  urls: { management: string; s3: string; public: string };
  faults: string[];
  target(): ReferenceTarget;
  close(): Promise<void>;
}

/**
 * The reference on its own thread: a run against the embedded reference then uses both cores,
 * one for the runner and one for the server, as it would against a remote target.
 */
export async function startReferenceWorker(options: ReferenceOptions): Promise<WorkerReference> {
  const spill = options.dataDir ? undefined : spillDir();
  try {
    return await startWorker(
      spill ? { ...options, dataDir: spill.dir, inMemoryUpTo: IN_MEMORY_UP_TO } : options,
      spill,
    );
  } catch (err) {
    spill?.remove();
    throw err;
  }
}

/** Bodies over this size go to files: a run's multi-MiB parts and objects, held for whole cases. */
const IN_MEMORY_UP_TO = 1024 * 1024;

/**
 * A folder of the OS's temporary one for the bodies of a reference given no data directory, removed
 * when it closes (or, failing that, when the process exits); none when it cannot be made. Held in
 * memory, the large bodies of the cases in flight were the largest share of a run's peak memory.
 */
function spillDir(): { dir: string; remove: () => void } | undefined {
  let dir: string;
  try {
    dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-reference-'));
  } catch {
    return undefined; // No temporary folder to write: bodies stay in memory, as before.
  }
  const remove = () => {
    process.off('exit', remove);
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', remove);
  return { dir, remove };
}

/**
 * The server's young generation: V8 grows it to 32 MiB of new space for a thread this busy, but a
 * request's garbage dies with its answer, and 4 MiB semi-spaces hold what is in flight (V8 counts the
 * young generation as three of them: 12 MiB).
 */
const YOUNG_GENERATION_MB = 12;

async function startWorker(
  options: ReferenceOptions,
  spill: { remove: () => void } | undefined,
): Promise<WorkerReference> {
  // From the sources, the thread first registers tsx (worker-entry.mjs); the build runs as it is.
  const entry = import.meta.url.endsWith('.ts') ? './worker-entry.mjs' : './worker-thread.js';
  const worker = new Worker(new URL(entry, import.meta.url), {
    workerData: options,
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  const first = await new Promise<any>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`reference worker exited (${code}) before it started`)));
  });
  if (!first.ok) {
    await worker.terminate();
    throw first.name === 'UnknownFaultError'
      ? new UnknownFaultError(first.message)
      : new Error(first.message);
  }
  worker.removeAllListeners('exit');
  worker.removeAllListeners('error');
  let exited = false;
  worker.once('exit', () => {
    exited = true;
  });
  // A crash of the server must not take the runner down with a stack trace: its requests then
  // fail as connection errors, which the run reports as verdicts.
  worker.on('error', (err) => {
    process.stderr.write(`edgecheck: the embedded reference stopped: ${err.message.split('\n')[0]}\n`);
  });
  return {
    urls: first.urls,
    faults: first.faults,
    target: () => structuredClone(first.target),
    close: async () => {
      if (!exited) {
        const closed = new Promise<void>((resolve) => {
          worker.once('message', () => resolve());
          worker.once('exit', () => resolve());
        });
        worker.postMessage('close');
        await closed;
        await worker.terminate();
      }
      spill?.remove();
    },
  };
}
