import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdgecheck } from '../runner/api.ts';
import type { RunResults } from '../runner/model/results.ts';
import { failure, ok, sendJson, startServer, type TestServer } from './helpers/engine-server.ts';
import { fixtureDir, managementTarget } from './helpers/engine-target.ts';

let server: TestServer;
let results: RunResults;
/** When each POST /stamps arrived, in order. */
const posts: number[] = [];

beforeAll(async () => {
  server = await startServer((req, res) => {
    const path = req.url.split('?')[0];
    if (path === '/client/v4/stamps') posts.push(Date.now());
    if (path === '/client/v4/things' || path === '/client/v4/stamps') return sendJson(res, 200, ok({}));
    sendJson(res, 404, failure(7000, 'no route'));
  });
  results = await runEdgecheck({
    suitesDir: fixtureDir('prerequisite-step'),
    target: managementTarget(server.url),
    asOf: '2024-06-01',
    seed: 1,
  });
}, 20_000);

afterAll(async () => {
  await server?.close();
});

const kase = (id: string) => results.cases.find((c) => c.id === id)!;

describe('a prerequisite step in the middle of a case', () => {
  it('refused, blocks its own checks and those of the steps that read it, with its reason, and fails none', () => {
    const c = kase('pre.refused');
    expect(c.checks.map((k) => k.verdict)).toEqual(['pass', 'blocked', 'blocked', 'pass']);
    expect(c.verdict).toBe('blocked');
    expect(c.checks[1].message).toContain('helper was refused (status 404)');
    expect(c.checks[1].message).toContain('which the fixture does not list');
    expect(c.checks[2].message).toContain('which the fixture does not list');
    expect(c.checks[2].message).toContain('this step uses its capture missing');
  });

  it('served, has its checks judged', () => {
    expect(kase('pre.served').checks.map((k) => k.verdict)).toEqual(['pass']);
  });
});

describe('pauseMs', () => {
  it('sends the step no sooner than the pause after the one before it', () => {
    expect(kase('pre.paused').verdict).toBe('pass');
    expect(posts).toHaveLength(2);
    expect(posts[1] - posts[0]).toBeGreaterThanOrEqual(1000);
  });
});
