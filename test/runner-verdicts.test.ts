import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdgecheck } from '../runner/api.ts';
import type { CaseResult, CheckResult, ClauseResult, RunResults } from '../runner/model/results.ts';
import { failure, ok, sendJson, startServer, type TestServer } from './helpers/engine-server.ts';
import { CANARY_TOKEN, fixtureDir, managementTarget } from './helpers/engine-target.ts';

const SUITES = fixtureDir('verdicts');
const AS_OF = '2024-06-01';

let server: TestServer;
let results: RunResults;
let readOnly: RunResults;

function byCase(r: RunResults, id: string): CaseResult {
  const c = r.cases.find((x) => x.id === id);
  if (!c) throw new Error(`no case ${id} in the results`);
  return c;
}

function checkOf(r: RunResults, caseId: string, clause: string): CheckResult {
  const k = byCase(r, caseId).checks.find((x) => x.clauses.includes(clause));
  if (!k) throw new Error(`no check citing ${clause} in ${caseId}`);
  return k;
}

function clauseOf(r: RunResults, id: string): ClauseResult {
  const c = r.clauses.find((x) => x.id === id);
  if (!c) throw new Error(`no clause ${id} in the results`);
  return c;
}

beforeAll(async () => {
  // A tiny management API: one zone, a 500, a reset, a non-JSON answer, a request that hangs.
  server = await startServer((req, res) => {
    const path = req.url.split('?')[0];
    if (req.method === 'GET' && path === '/client/v4/zones/z1')
      return sendJson(res, 200, ok({ id: 'z1', name: 'example.com' }));
    if (path === '/client/v4/broken') return sendJson(res, 500, failure(10000, 'internal error'));
    if (path === '/client/v4/reset') return void res.socket?.destroy();
    if (path === '/client/v4/garbage') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end('<html>surely not JSON</html>');
    }
    if (path === '/client/v4/hang') return; // never answers
    if (req.method === 'POST' && path === '/client/v4/things') return sendJson(res, 200, ok({ id: 't1' }));
    sendJson(res, 404, failure(7003, 'no route'));
  });
  const target = managementTarget(server.url);
  results = await runEdgecheck({ suitesDir: SUITES, target, asOf: AS_OF, timeoutMs: 1000, concurrency: 4 });
  readOnly = await runEdgecheck({
    suitesDir: SUITES,
    target,
    asOf: AS_OF,
    timeoutMs: 1000,
    readOnly: true,
    cases: ['engine.skip.writes', 'engine.skip.reads'],
  });
}, 20_000);

afterAll(async () => {
  await server?.close();
});

describe('verdict pass', () => {
  it('a check whose status, headers and json all hold passes, and so do its case and clause', () => {
    expect(checkOf(results, 'engine.pass', 'mgmt.verdict.pass')).toMatchObject({
      verdict: 'pass',
      step: 'get-zone',
    });
    expect(byCase(results, 'engine.pass').verdict).toBe('pass');
    expect(clauseOf(results, 'mgmt.verdict.pass')).toMatchObject({ verdict: 'pass', checks: 1 });
  });

  it('the request reached the server under /client/v4 with the bearer token', () => {
    const seen = server.seen.find((r) => r.url === '/client/v4/zones/z1');
    expect(seen?.headers.authorization).toBe(`Bearer ${CANARY_TOKEN}`);
  });
});

describe('verdict fail', () => {
  it('a json value that differs fails with where, expected and actual', () => {
    const k = checkOf(results, 'engine.fail', 'mgmt.verdict.fail');
    expect(k.verdict).toBe('fail');
    expect(k.message).toBe('json at /result/name: expected "example.org", found "example.com"');
    expect(k.expected).toBe('example.org');
    expect(k.actual).toBe('example.com');
    expect(k.repro).toMatch(/^curl .*\/client\/v4\/zones\/z1/);
    expect(byCase(results, 'engine.fail').verdict).toBe('fail');
    expect(clauseOf(results, 'mgmt.verdict.fail')).toMatchObject({
      verdict: 'fail',
      message: 'engine.fail (get-zone): json at /result/name: expected "example.org", found "example.com"',
    });
  });

  it('a step that needs a failing step is blocked, not sent', () => {
    const k = checkOf(results, 'engine.fail', 'mgmt.verdict.after-fail');
    expect(k).toMatchObject({
      verdict: 'blocked',
      step: 'after',
      message: 'step get-zone failed: this step names it in needs',
    });
    expect(clauseOf(results, 'mgmt.verdict.after-fail').verdict).toBe('blocked');
    // GET /zones/z1 is sent by engine.pass, engine.fail's first step and engine.skip.reads (in both
    // runs); engine.fail's `after` step never is.
    const zoneGets = server.seen.filter((r) => r.url === '/client/v4/zones/z1').length;
    expect(zoneGets).toBe(4);
  });
});

describe('verdict blocked', () => {
  it('a prerequisite answering 500 blocks every check of the case, with the reason', () => {
    const c = byCase(results, 'engine.given-blocked');
    expect(c.verdict).toBe('blocked');
    expect(c.reason).toBe('prerequisite given[0] failed: status 500');
    expect(c.checks.map((k) => [k.step, k.verdict, k.message])).toEqual([
      ['get-zone', 'blocked', 'prerequisite given[0] failed: status 500'],
      ['get-zone-again', 'blocked', 'prerequisite given[0] failed: status 500'],
    ]);
    // Nothing after the failed prerequisite was sent.
    expect(server.seen.filter((r) => r.url === '/client/v4/broken')).toHaveLength(1);
    expect(clauseOf(results, 'mgmt.verdict.given-blocked').verdict).toBe('blocked');
  });
});

describe('verdict skipped', () => {
  it('a case needing a feature the target lacks is skipped and sends nothing', () => {
    const c = byCase(results, 'engine.skip.feature');
    expect(c.verdict).toBe('skipped');
    expect(c.reason).toBe('the target does not offer public-buckets');
    expect(c.checks[0]).toMatchObject({
      verdict: 'skipped',
      message: 'the target does not offer public-buckets',
    });
    expect(clauseOf(results, 'mgmt.verdict.feature').verdict).toBe('skipped');
  });

  it('a check citing only a clause whose until date is before the as-of date is skipped', () => {
    const c = byCase(results, 'engine.skip.retired');
    expect(c.verdict).toBe('skipped');
    expect(c.checks[0]).toMatchObject({
      verdict: 'skipped',
      message: `mgmt.verdict.retired applies before 2020-01-01 (as-of ${AS_OF})`,
    });
    expect(clauseOf(results, 'mgmt.verdict.retired').verdict).toBe('skipped');
  });

  it('a case that changes the target runs normally, but is skipped under read-only', () => {
    expect(byCase(results, 'engine.skip.writes').verdict).toBe('pass');
    const c = byCase(readOnly, 'engine.skip.writes');
    expect(c.verdict).toBe('skipped');
    expect(c.reason).toBe('changes the target, and this is a read-only run');
    expect(c.checks[0].verdict).toBe('skipped');
    expect(byCase(readOnly, 'engine.skip.reads').verdict).toBe('pass');
    expect(clauseOf(readOnly, 'mgmt.verdict.writes').verdict).toBe('skipped');
    // Only the first run posted.
    expect(server.seen.filter((r) => r.method === 'POST' && r.url === '/client/v4/things')).toHaveLength(1);
  });

  it('a case needing target.ids.missing, which the config lacks, is skipped naming it', () => {
    const c = byCase(results, 'engine.skip.missing-id');
    expect(c.verdict).toBe('skipped');
    expect(c.reason).toBe('the target config has no target.ids.missing');
    expect(c.checks[0]).toMatchObject({
      verdict: 'skipped',
      message: 'the target config has no target.ids.missing',
    });
    expect(server.seen.some((r) => r.url.startsWith('/client/v4/accounts'))).toBe(false);
  });
});

describe('verdict error', () => {
  it('a connection the server destroys is an error carrying the reason; a step that needs it is blocked', () => {
    const k = checkOf(results, 'engine.error.reset', 'mgmt.verdict.reset');
    expect(k.verdict).toBe('error');
    expect(k.message).toMatch(/^GET \/client\/v4\/reset: .*(other side closed|socket|ECONNRESET)/i);
    const after = checkOf(results, 'engine.error.reset', 'mgmt.verdict.after-error');
    expect(after.verdict).toBe('blocked');
    expect(after.message).toMatch(/^step reset errored: GET \/client\/v4\/reset/);
    expect(byCase(results, 'engine.error.reset').verdict).toBe('error');
    expect(clauseOf(results, 'mgmt.verdict.reset')).toMatchObject({ verdict: 'error' });
    expect(clauseOf(results, 'mgmt.verdict.reset').message).toMatch(/^engine\.error\.reset \(reset\): GET/);
  });

  it('an answer that is not JSON under a json matcher is an error saying so, not a failure', () => {
    const k = checkOf(results, 'engine.error.garbage', 'mgmt.verdict.garbage');
    expect(k.verdict).toBe('error');
    expect(k.message).toBe('body is not JSON (text/html): "<html>surely not JSON</html>"');
    expect(clauseOf(results, 'mgmt.verdict.garbage').verdict).toBe('error');
  });

  it('a request without an answer within timeoutMs is an error naming the timeout', () => {
    const k = checkOf(results, 'engine.error.timeout', 'mgmt.verdict.timeout');
    expect(k.verdict).toBe('error');
    expect(k.message).toMatch(/^no complete answer to GET \/client\/v4\/hang within \d+ ms \(--timeout\)$/);
    expect(clauseOf(results, 'mgmt.verdict.timeout').verdict).toBe('error');
  });
});

describe('verdict untested and the summary', () => {
  it('a clause no check cites is untested', () => {
    expect(clauseOf(results, 'mgmt.verdict.uncited')).toMatchObject({ verdict: 'untested', checks: 0 });
  });

  it('the summary counts every verdict, and a failing run exits 1', () => {
    expect(results.summary.clauses).toEqual({
      pass: 3, // pass, writes, reads
      fail: 1,
      error: 3,
      blocked: 3,
      skipped: 3,
      untested: 1,
    });
    expect(results.summary.cases).toEqual({ pass: 3, fail: 1, error: 3, blocked: 1, skipped: 3 });
    expect(results.exitCode).toBe(1);
    expect(readOnly.exitCode).toBe(0);
  });
});
