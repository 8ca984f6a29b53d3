import { rmSync } from 'node:fs';
import { runEdgecheck } from '../runner/api.ts';
import { startEchoServer } from './echo-server.ts';
import { syntheticSuites } from './synthetic.ts';

export interface LatencyRow {
  concurrency: number;
  requests: number;
  criticalPathMs: number;
  /** The best any runner can do: the longer of the critical path and work / concurrency. */
  boundMs: number;
  wallMs: number;
}

/** Wall time of a run against a server with 50 ms per request, against the critical path. */
export async function measureLatency(latencyMs = 50, levels = [1, 8, 32]): Promise<LatencyRow[]> {
  const chains = Array.from({ length: 32 }, (_, i) => 1 + (i % 8));
  const dir = syntheticSuites(chains);
  const server = await startEchoServer(latencyMs);
  const requests = chains.reduce((a, b) => a + b, 0);
  const longest = Math.max(...chains);
  const rows: LatencyRow[] = [];
  try {
    const target = {
      name: 'slow',
      features: [],
      management: { baseUrl: server.url, token: 'bench-token', ids: {} },
    };
    for (const concurrency of levels) {
      const t = performance.now();
      const results = await runEdgecheck({ suitesDir: dir, target, concurrency });
      const wallMs = performance.now() - t;
      if (results.summary.checks.pass !== requests) throw new Error('bench run did not pass');
      rows.push({
        concurrency,
        requests,
        criticalPathMs: longest * latencyMs,
        boundMs: Math.max(longest, Math.ceil(requests / concurrency)) * latencyMs,
        wallMs,
      });
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
