import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { limitRequests } from '../reference/management/rate-limit.ts';
import { type ReferenceHandle, startReference } from '../reference/server.ts';
import { runEdgecheck, today } from '../runner/api.ts';
import { runMain } from './helpers/cli.ts';

/** A handler behind the limit, served on loopback, and a clock the test moves. */
async function limited(cap: { requests: number; windowMs: number }) {
  let clock = 1_000_000;
  const handler = limitRequests(
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"success":true,"errors":[],"messages":[],"result":null}');
    },
    cap,
    () => clock,
  );
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/client/v4/zones`;
  return {
    handler,
    advance: (ms: number) => {
      clock += ms;
    },
    get: async () => {
      const res = await fetch(url);
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('the reference enforcing the service limit (serve --enforce-rate-limit)', () => {
  const refs = new Set<ReferenceHandle>();
  afterEach(async () => {
    await Promise.all([...refs].map((r) => r.close()));
    refs.clear();
  });

  it('answers the request past the limit 429 with the envelope and Retry-After, and refuses everything for a window after', async () => {
    const s = await limited({ requests: 3, windowMs: 10_000 });
    try {
      for (let i = 0; i < 3; i++) expect((await s.get()).status).toBe(200);
      const refused = await s.get();
      expect(refused).toMatchObject({ status: 429, retryAfter: '10' });
      expect(refused.body).toMatchObject({ success: false, result: null, errors: [{ code: 971 }] });
      // The first three left the window, but the block lasts a window from the refusal.
      s.advance(9_000);
      expect(await s.get()).toMatchObject({ status: 429, retryAfter: '1' });
      s.advance(1_000);
      expect((await s.get()).status).toBe(200);
      expect(s.handler.refused()).toBe(2);
    } finally {
      await s.close();
    }
  });

  it('counts a sliding window: requests leave it one by one as they age', async () => {
    const s = await limited({ requests: 2, windowMs: 1_000 });
    try {
      expect((await s.get()).status).toBe(200);
      s.advance(600);
      expect((await s.get()).status).toBe(200);
      s.advance(401);
      // The first left the window; the second is still in it.
      expect((await s.get()).status).toBe(200);
      expect((await s.get()).status).toBe(429);
    } finally {
      await s.close();
    }
  });

  it('serve refuses a limit it cannot read in one line naming the flag', async () => {
    const r = await runMain(['serve', '--enforce-rate-limit', 'lots']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      "edgecheck: --enforce-rate-limit lots: write N/WINDOW, e.g. 1200/5m, or 'service'",
    );
  });

  it('a run paced at the same limit is never refused; the same run unpaced is', async () => {
    const cap = { requests: 25, windowMs: 1500 };
    const run = async (paced: boolean) => {
      const ref = await startReference({ asOf: today(), managementRateLimit: cap });
      refs.add(ref);
      const target = { ...ref.target(), embedded: false };
      const results = await runEdgecheck({
        suites: ['management'],
        cases: ['mgmt.pagination.*', 'mgmt.envelope.*'],
        target,
        rateLimit: paced ? cap : undefined,
        maxRetryWaitMs: 2000,
      });
      const throttled = ref.throttled();
      await ref.close();
      refs.delete(ref);
      return { results, throttled };
    };
    // At once, each against a reference of its own: both mostly wait, one for its cap, the other
    // for the Retry-After of the answers it was refused.
    const [paced, unpaced] = await Promise.all([run(true), run(false)]);
    expect(paced.results.requests?.management).toBeGreaterThan(cap.requests * 2);
    expect(paced.throttled).toBe(0);
    expect(paced.results.requests?.throttled).toBe(0);
    expect(paced.results.summary.clauses.fail).toBe(0);
    expect(unpaced.throttled).toBeGreaterThan(0);
    expect(unpaced.results.requests?.throttled).toBe(unpaced.throttled);
  }, 90_000);
});
