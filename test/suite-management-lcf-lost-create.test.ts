import { afterAll, expect, it } from 'vitest';
import { runEdgecheck } from '../runner/api.ts';
import { failure, ok, sendJson, startServer, type TestServer } from './helpers/engine-server.ts';
import { managementTarget } from './helpers/engine-target.ts';

/*
 * A custom log fields ruleset the run created but never learned the id of (its POST answered without
 * one here; an interrupted run never reads the answer) is found by its name in teardown and deleted.
 */

let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
});

it('a custom log fields ruleset whose creation answered no id is found by its name and deleted in teardown', async () => {
  const rulesets = new Map<string, { id: string; name: string; kind: string; phase: string }>();
  server = await startServer((req, res) => {
    const path = req.url.split('?')[0];
    if (req.method === 'GET' && path === '/client/v4/zones/z1/rulesets')
      return sendJson(res, 200, {
        ...(ok([...rulesets.values()]) as object),
        result_info: { total_pages: 1 },
      });
    if (req.method === 'POST' && path === '/client/v4/zones/z1/rulesets') {
      const { name, kind, phase } = JSON.parse(req.body);
      rulesets.set('r1', { id: 'r1', name, kind, phase });
      return sendJson(res, 200, ok({ name, kind, phase })); // made, its id not said
    }
    if (req.method === 'DELETE' && path === '/client/v4/zones/z1/rulesets/r1') {
      rulesets.delete('r1');
      return sendJson(res, 200, ok(null));
    }
    sendJson(res, 404, failure(7003, 'no route'));
  });
  const target = managementTarget(server.url);
  const results = await runEdgecheck({
    suites: ['management'],
    target: { ...target, management: { ...target.management!, zoneId: 'z1' } },
    cases: ['mgmt.lcf.params-shape'],
    concurrency: 1,
  });
  const c = results.cases.find((x) => x.id === 'mgmt.lcf.params-shape');
  expect(c?.checks[0].verdict, JSON.stringify(c?.checks[0])).toBe('fail');
  expect(c?.checks[0].message).toContain('answered no id');
  expect(server.seen.filter((r) => r.method === 'DELETE').map((r) => r.url)).toEqual([
    '/client/v4/zones/z1/rulesets/r1',
  ]);
  expect(rulesets.size).toBe(0);
  expect(c?.leftovers).toBeUndefined();
}, 60_000);
