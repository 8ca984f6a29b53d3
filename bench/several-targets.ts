import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { runSeveral } from '../cli/several-targets.ts';
import { runEdgecheck } from '../runner/api.ts';
import type { Target } from '../runner/model/target.ts';
import { startEchoServer } from './echo-server.ts';
import { syntheticSuites } from './synthetic.ts';

export interface SeveralRow {
  targets: number;
  /** The slowest of the targets, each run alone. */
  aloneMs: number;
  /** All of them in one run (`--target` several times). */
  togetherMs: number;
}

/** Several targets with 50 ms per request in one run, against the slowest of them run alone. */
export async function measureSeveralTargets(count = 3, latencyMs = 50): Promise<SeveralRow> {
  const chains = Array.from({ length: 32 }, (_, i) => 1 + (i % 8));
  const dir = syntheticSuites(chains);
  const servers = await Promise.all(Array.from({ length: count }, () => startEchoServer(latencyMs)));
  try {
    const targets: Target[] = servers.map((s, i) => ({
      name: `t${i}`,
      features: [],
      management: { baseUrl: s.url, token: 'bench-token', ids: {} },
    }));
    let aloneMs = 0;
    for (const target of targets) {
      const t = performance.now();
      await runEdgecheck({ suitesDir: dir, target });
      aloneMs = Math.max(aloneMs, performance.now() - t);
    }
    const quiet = new Writable({ write: (_c, _e, done) => done() });
    const t = performance.now();
    const code = await runSeveral(
      {
        suitesDir: dir,
        targets: targets.map((target) => ({ name: target.name, target })),
        reporterSpecs: [],
      },
      quiet,
    );
    const togetherMs = performance.now() - t;
    if (code !== 0) throw new Error(`the several-targets bench run exited ${code}`);
    return { targets: count, aloneMs, togetherMs };
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}
