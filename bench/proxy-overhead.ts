import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { ROOT } from '../runner/util/paths.ts';
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

/**
 * `edgecheck proxy` as users run it, its own process, in front of a loopback echo server: the
 * median time of an exchange direct and through it, and a 1 GiB upload direct and through it.
 */
export async function measureProxyOverhead(requests = 2000, gib = 1024 ** 3): Promise<ProxyOverhead> {
  const server = await startEchoServer(0);
  const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-bench-'));
  const results = path.join(dir, 'proxy.json');
  const child = spawn(
    process.execPath,
    [
      path.join(ROOT, 'bin/edgecheck.mjs'),
      'proxy',
      '--management-url',
      server.url,
      '--reporter',
      `json=${results}`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const agent = new Agent({ connections: 1 });
  try {
    const proxied = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        const m = /management API\s+(http:\/\/\S+)/.exec(text);
        if (m) resolve(m[1]);
      });
      child.on('exit', () => reject(new Error(`the proxy exited before listening: ${text}`)));
    });
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
    // Warm-up, then alternating rounds so that neither side gets the quieter moments.
    for (let i = 0; i < 300; i++) {
      await one(server.url, i);
      await one(proxied, i);
    }
    const direct: number[] = [];
    const through: number[] = [];
    for (let i = 0; i < requests; i++) {
      direct.push(await one(server.url, i));
      through.push(await one(proxied, i));
    }
    const gibDirectMs = await upload(server.url);
    const gibProxiedMs = await upload(proxied);
    child.kill('SIGINT');
    await once(child, 'exit');
    const judged = JSON.parse(readFileSync(results, 'utf8')) as { observed?: number };
    return {
      directMedianUs: median(direct),
      proxiedMedianUs: median(through),
      gibDirectMs,
      gibProxiedMs,
      exchangesJudged: judged.observed ?? 0,
    };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await agent.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
