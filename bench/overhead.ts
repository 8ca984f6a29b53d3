import { rmSync } from 'node:fs';
import { Agent, request } from 'undici';
import { runEdgecheck } from '../runner/api.ts';
import { startEchoServer } from './echo-server.ts';
import { syntheticSuites } from './synthetic.ts';

const TOKEN = 'bench-token';

/**
 * Per-request time of raw undici (`request()`, the stated method), of undici's bare dispatcher
 * (what the engine sends through, so the engine's own work per step shows apart), and of a run's steps (each a request with a status and a JSON
 * check), both sequential on loopback. Rounds alternate and the best of each counts, so a
 * neighbour's burst of CPU does not land on one side only.
 */
export async function measureOverhead(
  requests = 2000,
  rounds = 3,
  /** The engine measured: the sources (through tsx, as a checkout runs) or the build's (as the package runs). */
  engine: typeof runEdgecheck = runEdgecheck,
): Promise<{ rawUs: number; dispatchUs: number; runnerUs: number; ratio: number }> {
  const server = await startEchoServer(0);
  const perCase = 20;
  const dir = syntheticSuites(Array.from({ length: requests / perCase }, () => perCase));
  const target = { name: 'echo', features: [], management: { baseUrl: server.url, token: TOKEN, ids: {} } };
  const agent = new Agent({ connections: 1 });
  const raw = async (n: number) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) {
      const res = await request(`${server.url}/client/v4/echo/${i}`, {
        dispatcher: agent,
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
      });
      JSON.parse(await res.body.text());
    }
    return ((performance.now() - t) * 1000) / n;
  };
  // undici's dispatcher with a handler that keeps the body's chunks: what the engine sends through.
  const origin = server.url;
  const dispatchOne = (path: string) =>
    new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      agent.dispatch(
        {
          origin,
          path,
          method: 'GET',
          headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
        },
        {
          onRequestStart: () => {},
          onResponseData: (_c, chunk) => void chunks.push(chunk),
          onResponseEnd: () => resolve(Buffer.concat(chunks)),
          onResponseError: (_c, err) => reject(err),
        },
      );
    });
  const dispatched = async (n: number) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) JSON.parse((await dispatchOne(`/client/v4/echo/${i}`)).toString());
    return ((performance.now() - t) * 1000) / n;
  };
  const runner = async () => {
    const results = await engine({ suitesDir: dir, target, concurrency: 1 });
    if (results.summary.checks.pass !== requests)
      throw new Error(`bench run did not pass: ${JSON.stringify(results.summary)}`);
    // The run's own clock starts after loading and linting the suites: per-request work only.
    return (results.durationMs * 1000) / requests;
  };
  try {
    // Warm-up: module loading, schema compilation, and the JIT, which takes a few runs to settle.
    for (let w = 0; w < 3; w++) {
      await raw(requests);
      await dispatched(requests);
      await runner();
    }
    let rawUs = Number.POSITIVE_INFINITY;
    let dispatchUs = Number.POSITIVE_INFINITY;
    let runnerUs = Number.POSITIVE_INFINITY;
    for (let r = 0; r < rounds; r++) {
      rawUs = Math.min(rawUs, await raw(requests));
      dispatchUs = Math.min(dispatchUs, await dispatched(requests));
      runnerUs = Math.min(runnerUs, await runner());
    }
    return { rawUs, dispatchUs, runnerUs, ratio: runnerUs / rawUs };
  } finally {
    await agent.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
