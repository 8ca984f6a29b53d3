import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../runner/util/paths.ts';

export interface SuitesTime {
  wallMs: number;
  exitCode: number | null;
  summary: Record<string, Record<string, number>>;
  cases: number;
  /** Requests the cases of each suite sent. */
  requestsBySuite: Record<string, number>;
  requests: number;
}

/** `edgecheck run` as a user runs it: a new process, the embedded reference, every suite, quick profile. */
export async function measureSuites(): Promise<SuitesTime> {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'edgecheck-bench-')), 'results.json');
  const t = performance.now();
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/edgecheck.mjs'), 'run', '--profile', 'quick', '--reporter', `json=${out}`],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const wallMs = performance.now() - t;
  const results = JSON.parse(readFileSync(out, 'utf8'));
  rmSync(path.dirname(out), { recursive: true, force: true });
  const requestsBySuite: Record<string, number> = {};
  for (const c of results.cases as { area: string; requests?: number }[]) {
    requestsBySuite[c.area] = (requestsBySuite[c.area] ?? 0) + (c.requests ?? 0);
  }
  return {
    wallMs,
    exitCode,
    summary: results.summary,
    cases: results.cases.length,
    requestsBySuite,
    requests: results.requests.total,
  };
}
