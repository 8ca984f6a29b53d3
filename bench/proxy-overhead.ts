import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import { PassiveJudge, startProxy } from '../runner/passive/index.ts';
import { startEchoServer } from './echo-server.ts';

/** What passing through `edgecheck proxy` costs: per exchange on loopback, and for a 1 GiB upload. */
export interface ProxyOverhead {
  directMedianUs: number;
  proxiedMedianUs: number;
  gibDirectMs: number;
  gibProxiedMs: number;
  exchangesJudged: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Zeros, `size` bytes, in 1 MiB chunks: a body the sender never holds whole. */
function zeros(size: number): Readable {
  const chunk = Buffer.alloc(1024 * 1024);
  let left = size;
  return new Readable({
    read() {
      if (left <= 0) return this.push(null);
      const n = Math.min(left, chunk.length);
      left -= n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
}

export async function measureProxyOverhead(requests = 2000, gib = 1024 ** 3): Promise<ProxyOverhead> {
  const server = await startEchoServer(0);
  // Judged as `edgecheck proxy` judges: every passive check of every clause in force today.
  const areas = listAreas();
  const judge = new PassiveJudge((await loadSuites(areas, areas)).clauses.values(), today());
  const proxy = await startProxy({
    upstream: { management: server.url },
    onExchange: (ex) => judge.observe(ex),
  });
  const agent = new Agent({ connections: 1 });
  const one = async (base: string, i: number) => {
    const t = performance.now();
    const res = await request(`${base}/client/v4/echo/${i}`, { dispatcher: agent });
    await res.body.text();
    return (performance.now() - t) * 1000;
  };
  const upload = async (base: string) => {
    const t = performance.now();
    const res = await request(`${base}/client/v4/sink`, {
      dispatcher: agent,
      method: 'PUT',
      headers: { 'content-length': String(gib) },
      body: zeros(gib),
    });
    await res.body.text();
    return performance.now() - t;
  };
  try {
    // Warm-up, then alternating rounds so that neither side gets the quieter moments.
    for (let i = 0; i < 300; i++) {
      await one(server.url, i);
      await one(proxy.urls.management!, i);
    }
    const direct: number[] = [];
    const proxied: number[] = [];
    for (let i = 0; i < requests; i++) {
      direct.push(await one(server.url, i));
      proxied.push(await one(proxy.urls.management!, i));
    }
    const gibDirectMs = await upload(server.url);
    const gibProxiedMs = await upload(proxy.urls.management!);
    return {
      directMedianUs: median(direct),
      proxiedMedianUs: median(proxied),
      gibDirectMs,
      gibProxiedMs,
      exchangesJudged: judge.observed,
    };
  } finally {
    await agent.close();
    await proxy.close();
    await server.close();
  }
}
