import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runEdgecheck } from '../runner/api.ts';
import type { RunResults } from '../runner/model/results.ts';
import { BIN, cleanEnv, PROJECT_ROOT, STACK_LINE } from './helpers/cli.ts';
import { failure, ok, sendJson, startServer, type TestServer } from './helpers/engine-server.ts';
import { CANARY_TOKEN, fixtureDir, managementTarget } from './helpers/engine-target.ts';

const SUITES = fixtureDir('teardown');

/**
 * A store of things: POST creates, GET reads, DELETE deletes (refused for `keep-me`); /hang never
 * answers; /setting holds a value a PATCH sets, never answering one to `unanswered`, refusing `refused`.
 */
async function thingServer(): Promise<TestServer> {
  const things = new Map<string, string>();
  let next = 1;
  let setting = 'medium';
  return startServer((req, res) => {
    const path = req.url.split('?')[0];
    const id = /^\/client\/v4\/things\/([^/]+)$/.exec(path)?.[1];
    if (req.method === 'POST' && path === '/client/v4/things') {
      const thing = `t${next++}`;
      things.set(thing, JSON.parse(req.body).name);
      if (things.get(thing) === 'unanswered') return; // made, never answered
      return sendJson(res, 200, ok({ id: thing }));
    }
    if (id && req.method === 'GET') {
      return things.has(id)
        ? sendJson(res, 200, ok({ id, name: things.get(id) }))
        : sendJson(res, 404, failure(1001, 'no such thing'));
    }
    if (id && req.method === 'DELETE') {
      if (things.get(id) === 'keep-me') return sendJson(res, 403, failure(9109, 'not allowed'));
      things.delete(id);
      return sendJson(res, 200, ok({ id }));
    }
    if (path === '/client/v4/hang') return; // never answers
    if (path === '/client/v4/setting' && req.method === 'GET')
      return sendJson(res, 200, ok({ value: setting }));
    if (path === '/client/v4/setting' && req.method === 'PATCH') {
      const { value } = JSON.parse(req.body);
      if (value === 'refused') return sendJson(res, 403, failure(9109, 'not allowed'));
      setting = value;
      if (value !== 'unanswered') sendJson(res, 200, ok({ value }));
      return; // applied, never answered
    }
    sendJson(res, 404, failure(7003, 'no route'));
  });
}

/** A thing server, and a run of the given fixture cases against it, one case at a time. */
async function runAgainstThings(
  cases: string[],
  timeoutMs?: number,
): Promise<{ server: TestServer; results: RunResults }> {
  const server = await thingServer();
  const results = await runEdgecheck({
    suitesDir: SUITES,
    target: managementTarget(server.url),
    cases,
    asOf: '2024-06-01',
    concurrency: 1,
    timeoutMs,
  });
  return { server, results };
}

describe('teardown after a failing step', () => {
  let server: TestServer;
  let results: RunResults;

  beforeAll(async () => {
    ({ server, results } = await runAgainstThings(['teardown.after-fail', 'teardown.delete-refused']));
  }, 20_000);

  afterAll(async () => {
    await server?.close();
  });

  it('the failing check fails, and the thing the prerequisite created is deleted afterwards', () => {
    const c = results.cases.find((x) => x.id === 'teardown.after-fail')!;
    expect(c.checks[0]).toMatchObject({ verdict: 'fail', message: 'status: expected 404, got 200' });
    expect(c.leftovers).toBeUndefined();
    const created = server.seen.find((r) => r.method === 'POST' && r.body.includes(results.runId));
    expect(created).toBeDefined();
    const createdAt = server.seen.indexOf(created!);
    const deleted = server.seen.findIndex((r) => r.method === 'DELETE' && r.url === '/client/v4/things/t1');
    const read = server.seen.findIndex((r) => r.method === 'GET' && r.url === '/client/v4/things/t1');
    // create, then the failing read, then the delete, in that order.
    expect(createdAt).toBeGreaterThanOrEqual(0);
    expect(read).toBeGreaterThan(createdAt);
    expect(deleted).toBeGreaterThan(read);
    expect(server.seen[deleted].headers.authorization).toBe(`Bearer ${CANARY_TOKEN}`);
  });

  it('a teardown the target refuses is reported on the case, the case verdict unchanged', () => {
    const c = results.cases.find((x) => x.id === 'teardown.delete-refused')!;
    expect(c.verdict).toBe('pass');
    expect(c.leftovers).toEqual([
      expect.objectContaining({ what: expect.stringContaining('(teardown of create)'), error: 'status 403' }),
    ]);
    expect(c.leftovers![0].undo).toMatch(/^curl .* -X DELETE /);
    expect(server.seen.some((r) => r.method === 'DELETE' && r.url === '/client/v4/things/t2')).toBe(true);
  });
});

describe('a list of teardown steps', () => {
  let server: TestServer;
  let results: RunResults;

  beforeAll(async () => {
    ({ server, results } = await runAgainstThings(['teardown.list']));
  }, 20_000);

  afterAll(async () => {
    await server?.close();
  });

  it('runs in the order written, after the teardown of the later step, each action once', () => {
    const c = results.cases.find((x) => x.id === 'teardown.list')!;
    expect(c.verdict).toBe('pass');
    const deletes = server.seen.filter((r) => r.method === 'DELETE').map((r) => r.url);
    // t2 is the later step's thing: last registered, first removed; then the list as written.
    expect(deletes).toEqual(['/client/v4/things/t2', '/client/v4/things/t1', '/client/v4/things/t1-after']);
    // The second action deletes nothing that exists, and its confirming read says so: no leftover.
    expect(c.leftovers).toBeUndefined();
  });
});

describe('a write whose answer never came, or was refused', () => {
  let server: TestServer;
  let results: RunResults;

  beforeAll(async () => {
    // The unanswered write ends by its timeout; the put-back has its own, longer deadline.
    ({ server, results } = await runAgainstThings(
      ['teardown.unanswered-write', 'teardown.refused-write'],
      1500,
    ));
  }, 30_000);

  afterAll(async () => {
    await server?.close();
  });

  const patches = () =>
    server.seen.filter((r) => r.method === 'PATCH').map((r) => JSON.parse(r.body).value as string);

  it('a write never answered (applied or not) is put back to the value read before it, and nothing is left', () => {
    const c = results.cases.find((x) => x.id === 'teardown.unanswered-write')!;
    expect(c.checks[0].verdict).toBe('error');
    expect(c.leftovers).toBeUndefined();
    expect(patches().slice(0, 2)).toEqual(['unanswered', 'medium']);
  });

  it('a create never answered is listed as left: what it may have made, and the teardown it could not make', async () => {
    const more = await runAgainstThings(['teardown.unanswered-create'], 1500);
    await more.server.close();
    const c = more.results.cases.find((x) => x.id === 'teardown.unanswered-create')!;
    expect(c.checks[0].verdict).toBe('error');
    expect(c.leftovers).toEqual([
      {
        what: 'whatever step create (POST /things) made, should the target have applied it',
        error: expect.stringMatching(/its answer never came .*DELETE \/things\/\$\{thing\}.*ec-/),
      },
    ]);
  }, 30_000);

  it('a write refused is not followed by a put-back', () => {
    const c = results.cases.find((x) => x.id === 'teardown.refused-write')!;
    expect(c.checks[0].verdict).toBe('pass');
    expect(patches().slice(2)).toEqual(['refused']);
  });
});

describe('teardown on SIGINT', () => {
  let server: TestServer | undefined;
  let child: ChildProcess | undefined;

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await server?.close();
  });

  it('a run interrupted while a step hangs lets it end within its timeout, then deletes what it created and exits 130', async () => {
    server = await thingServer();
    const args = [
      BIN,
      'run',
      '--suites-dir',
      SUITES,
      '--case',
      'teardown.sigint',
      '--management-url',
      server.url,
      '--timeout',
      '2000',
      '--reporter',
      'console',
    ];
    child = spawn(process.execPath, args, {
      cwd: PROJECT_ROOT,
      env: cleanEnv({ EDGECHECK_API_TOKEN: CANARY_TOKEN }),
    });
    let output = '';
    child.stdout!.on('data', (d) => {
      output += d;
    });
    child.stderr!.on('data', (d) => {
      output += d;
    });
    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
    // The hanging step is sent only after the create succeeded and registered its teardown.
    await server.waitFor((r) => r.method === 'POST' && r.url === '/client/v4/things', 15_000);
    await server.waitFor((r) => r.url === '/client/v4/hang', 15_000);
    child.kill('SIGINT');
    // The step in flight is not cut (its answer could name what teardown removes): it ends by its timeout.
    const deleted = await server.waitFor((r) => r.method === 'DELETE', 8_000).catch(() => undefined);
    expect(
      deleted,
      `no teardown DELETE reached the server after SIGINT; the run printed:\n${output}`,
    ).toBeDefined();
    expect(deleted!.url).toBe('/client/v4/things/t1');
    expect(deleted!.headers.authorization).toBe(`Bearer ${CANARY_TOKEN}`);
    expect(await exited).toBe(130);
    expect(output).not.toMatch(STACK_LINE);
    expect(output).not.toContain(CANARY_TOKEN);
    expect(output).toContain('SIGINT');
  }, 30_000);
});
