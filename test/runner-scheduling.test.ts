import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdgecheck } from '../runner/api.ts';
import type { RunResults } from '../runner/model/results.ts';
import { ok, sendJson, startServer, type TestServer } from './helpers/engine-server.ts';
import { fixtureDir, managementTarget } from './helpers/engine-target.ts';

const SUITES = fixtureDir('parallel');
const DELAY_MS = 150;

let server: TestServer;
let inFlight = 0;
let maxInFlight = 0;
const spans: { url: string; start: number; end: number }[] = [];

beforeAll(async () => {
  server = await startServer(async (req, res) => {
    if (req.url.startsWith('/client/v4/slow')) {
      const span = { url: req.url, start: performance.now(), end: 0 };
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, DELAY_MS));
      inFlight--;
      span.end = performance.now();
      spans.push(span);
      return sendJson(res, 200, ok({}));
    }
    sendJson(res, 200, ok({ echo: req.body ? JSON.parse(req.body) : null }));
  });
});

afterAll(async () => {
  await server?.close();
});

async function slowRun(concurrency: number): Promise<{ max: number; results: RunResults }> {
  maxInFlight = 0;
  const results = await runEdgecheck({
    suitesDir: SUITES,
    target: managementTarget(server.url),
    cases: ['parallel.slow-*'],
    concurrency,
    asOf: '2024-06-01',
  });
  return { max: maxInFlight, results };
}

describe('scheduling', () => {
  it('never runs more cases at once than --concurrency', async () => {
    const { max, results } = await slowRun(2);
    expect(results.summary.cases.pass).toBe(6);
    expect(max).toBe(2);
  });

  it('runs cases in parallel up to --concurrency', async () => {
    const { max } = await slowRun(6);
    expect(max).toBeGreaterThan(2);
    expect(max).toBeLessThanOrEqual(6);
  });

  it('sends the steps of a case one after another, in order', async () => {
    spans.length = 0;
    const r = await runEdgecheck({
      suitesDir: SUITES,
      target: managementTarget(server.url),
      cases: ['parallel.ordered'],
      concurrency: 8,
      asOf: '2024-06-01',
    });
    expect(r.cases[0].verdict).toBe('pass');
    expect(spans.map((s) => s.url)).toEqual([
      '/client/v4/slow?step=a',
      '/client/v4/slow?step=b',
      '/client/v4/slow?step=c',
    ]);
    expect(spans[1].start).toBeGreaterThanOrEqual(spans[0].end);
    expect(spans[2].start).toBeGreaterThanOrEqual(spans[1].end);
  });
});

describe('profiles', () => {
  const run = (profile: 'quick' | 'full') =>
    runEdgecheck({
      suitesDir: SUITES,
      target: managementTarget(server.url),
      cases: ['parallel.full-only', 'parallel.by-profile'],
      profile,
      asOf: '2024-06-01',
    });
  const posted = () => server.seen.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body));

  it('quick: a full-only case is skipped; $profile picks the quick value; $repeat fills ${i}', async () => {
    const before = posted().length;
    const r = await run('quick');
    const fullOnly = r.cases.find((c) => c.id === 'parallel.full-only')!;
    expect(fullOnly).toMatchObject({ verdict: 'skipped', reason: 'runs only in the full profile' });
    expect(posted().slice(before)).toEqual([{ size: 1, items: ['k-0', 'k-1'] }]);
    expect(r.profile).toBe('quick');
  });

  it('full: the full-only case runs; $profile picks the full value', async () => {
    const before = posted().length;
    const r = await run('full');
    expect(r.cases.find((c) => c.id === 'parallel.full-only')!.verdict).toBe('pass');
    expect(posted().slice(before)).toEqual([{ size: 1000, items: ['k-0', 'k-1'] }]);
  });
});
