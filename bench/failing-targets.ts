import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../runner/util/paths.ts';
import { type HostileMode, type HostileOptions, startHostileTarget } from '../test/helpers/hostile-target.ts';
import { vmHwmKb } from '../test/helpers/peak-memory.ts';

export interface FailingRun {
  label: string;
  /** Spawn to exit, and first request to exit. */
  wallMs: number;
  atTargetMs?: number;
  peakMiB: number;
  requests: number;
  exitCode: number | null;
  reports: boolean;
}

/** The ways a live target fails all the way, each for every request. */
const FAILING: { label: string; mode: HostileMode; options?: HostileOptions }[] = [
  { label: 'never answers', mode: 'silent' },
  { label: 'trickles a byte a second', mode: 'slow' },
  { label: '429, Retry-After: 1', mode: 'status-429' },
  { label: '503 to every other request', mode: 'flaky-503' },
  { label: 'HTML 502 page', mode: 'html', options: { htmlStatus: 502 } },
  { label: '200 MB bodies', mode: 'huge' },
  { label: 'endless bodies', mode: 'endless' },
];

/**
 * A whole run (every suite, default timeout, no pacing) against each failing target, one at a
 * time: how long until it exits, its peak memory, and what the target saw. A run still going
 * after `limitMs` is stopped (SIGINT) and shown so.
 */
export async function measureFailingTargets(limitMs = 120_000): Promise<FailingRun[]> {
  const out: FailingRun[] = [];
  for (const f of FAILING) {
    const server = await startHostileTarget(f.mode, f.options);
    const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-bench-'));
    try {
      const started = Date.now();
      const child = spawn(
        process.execPath,
        [
          path.join(ROOT, 'bin/edgecheck.mjs'),
          'run',
          ...['--management-url', server.url, '--s3-endpoint', server.url],
          ...['--account-id', 'a', '--zone-id', 'z', '--rate-limit', 'off'],
          ...['--reporter', `json=${dir}/results.json`, '--reporter', `junit=${dir}/junit.xml`],
        ],
        {
          cwd: dir,
          stdio: 'ignore',
          env: {
            ...process.env,
            EDGECHECK_API_TOKEN: 'bench-token',
            EDGECHECK_S3_ACCESS_KEY_ID: 'bench-key',
            EDGECHECK_S3_SECRET_ACCESS_KEY: 'bench-secret',
          },
        },
      );
      let peakKb = 0;
      const watch = setInterval(() => {
        peakKb = Math.max(peakKb, (child.pid && vmHwmKb(child.pid)) || 0);
        if (Date.now() - started > limitMs) child.kill('SIGINT');
      }, 100);
      const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      clearInterval(watch);
      const now = Date.now();
      out.push({
        label: f.label,
        wallMs: now - started,
        atTargetMs: server.firstRequestAt === undefined ? undefined : now - server.firstRequestAt,
        peakMiB: peakKb / 1024,
        requests: server.requests,
        exitCode,
        reports: existsSync(`${dir}/results.json`) && existsSync(`${dir}/junit.xml`),
      });
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}
