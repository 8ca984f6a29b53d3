import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runArgsFor } from '../cli/serve.ts';
import { SERVICE_RATE_LIMIT } from '../reference/management/rate-limit.ts';
import { startReference } from '../reference/server.ts';
import { today } from '../runner/api.ts';
import { ROOT } from '../runner/util/paths.ts';

export interface PacedRun {
  wallMs: number;
  exitCode: number | null;
  management: number;
  /** 429s the server sent, and the run counted. */
  refused: number;
  throttledSeen: number;
  failing: number;
}

/**
 * A live run's time: the management and deprecations suites, as `edgecheck run` runs them against a
 * live target (default pacing, 1000/5m), against a reference that enforces the service's limit
 * (1,200 per five minutes, 429 past it, `serve --enforce-rate-limit service`).
 */
export async function measurePacedRun(): Promise<PacedRun> {
  const asOf = today();
  const ref = await startReference({ asOf, managementRateLimit: SERVICE_RATE_LIMIT });
  const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-bench-'));
  const out = path.join(dir, 'results.json');
  try {
    const { env, args } = runArgsFor({ ...ref.target(), embedded: false }, asOf, { paced: true });
    const t = performance.now();
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'bin/edgecheck.mjs'),
        'run',
        ...args,
        ...['--suite', 'management', '--suite', 'deprecations', '--reporter', `json=${out}`],
      ],
      { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env } },
    );
    const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const wallMs = performance.now() - t;
    const results = JSON.parse(readFileSync(out, 'utf8'));
    return {
      wallMs,
      exitCode,
      management: results.requests.management,
      refused: ref.throttled(),
      throttledSeen: results.requests.throttled,
      failing: results.summary.clauses.fail + results.summary.clauses.error,
    };
  } finally {
    await ref.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
