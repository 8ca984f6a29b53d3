import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LAST_RUN } from '../cli/run.ts';
import type { RunResults } from '../runner/model/results.ts';
import { type CliOutcome, runMainIn } from './helpers/cli.ts';
import { ok, sendJson, startServer, type TestServer } from './helpers/engine-server.ts';
import { CANARY_TOKEN, fixtureDir } from './helpers/engine-target.ts';

/*
 * `edgecheck run --failed` runs only the clauses that failed or errored in the last run in the
 * folder (.edgecheck/last-run.json), as someone fixing an implementation runs them again and again;
 * the other selection flags narrow it further. With no last run, or one that cannot be read, it
 * says so in one line and exits 2; when nothing failed it says so and runs nothing. Each test runs
 * in a folder of its own, against a server whose answers the test changes as a fix would.
 */

const state = { zone: 'example.com', garbage: true };
let server: TestServer;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'edgecheck-run-failed-'));
  server = await startServer((req, res) => {
    if (req.url === '/client/v4/zones/z1') return sendJson(res, 200, ok({ id: 'z1', name: state.zone }));
    if (req.url === '/client/v4/garbage' && state.garbage) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end('{ not json');
    }
    if (req.url === '/client/v4/garbage') return sendJson(res, 200, ok({}));
    sendJson(res, 404, {
      success: false,
      errors: [{ code: 7003, message: 'no route' }],
      messages: [],
      result: null,
    });
  });
});

beforeEach(() => {
  state.zone = 'example.com';
  state.garbage = true;
});

afterAll(async () => {
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** The CLI in this process, with `folder` (under tmp) as the current folder. */
async function inFolder(folder: string, args: string[]): Promise<CliOutcome> {
  return runMainIn(path.join(tmp, folder), args, { EDGECHECK_API_TOKEN: CANARY_TOKEN });
}

const target = () => [
  '--suites-dir',
  fixtureDir('verdicts'),
  '--management-url',
  server.url,
  '--as-of',
  '2024-06-01',
];
const CASES = ['--case', 'engine.pass', '--case', 'engine.fail', '--case', 'engine.error.garbage'];

/** A run in `folder` with the JSON results written beside, and those results. */
async function run(folder: string, ...extra: string[]): Promise<CliOutcome & { doc?: RunResults }> {
  const json = path.join(tmp, folder, 'results.json');
  rmSync(json, { force: true });
  const r = await inFolder(folder, ['run', ...target(), '--reporter', `json=${json}`, ...extra]);
  let doc: RunResults | undefined;
  try {
    doc = JSON.parse(readFileSync(json, 'utf8')) as RunResults;
  } catch {
    doc = undefined;
  }
  return { ...r, doc };
}

const ran = (doc: RunResults | undefined) => doc?.cases.map((c) => c.id).sort();
const judged = (doc: RunResults | undefined) => doc?.clauses.map((c) => `${c.id} ${c.verdict}`).sort();
const lastRun = (folder: string) => readFileSync(path.join(tmp, folder, LAST_RUN), 'utf8');

describe('run --failed', () => {
  it('runs the clauses that failed or errored last time, until none did, then runs nothing', async () => {
    const first = await run('loop', ...CASES);
    expect(first.code).toBe(1);
    expect(judged(first.doc)).toEqual([
      'mgmt.verdict.after-fail blocked',
      'mgmt.verdict.fail fail',
      'mgmt.verdict.garbage error',
      'mgmt.verdict.pass pass',
    ]);

    // Only the failing and erroring clauses, through the cases that cite them; a blocked one is not among them.
    const again = await run('loop', '--failed');
    expect(again.code).toBe(1);
    expect(ran(again.doc)).toEqual(['engine.error.garbage', 'engine.fail']);
    expect(judged(again.doc)).toEqual(['mgmt.verdict.fail fail', 'mgmt.verdict.garbage error']);
    expect(again.doc?.selection?.clauses?.sort()).toEqual(['mgmt.verdict.fail', 'mgmt.verdict.garbage']);

    // One is fixed: the next --failed runs only the other.
    state.garbage = false;
    expect(judged((await run('loop', '--failed')).doc)).toEqual([
      'mgmt.verdict.fail fail',
      'mgmt.verdict.garbage pass',
    ]);
    state.zone = 'example.org';
    const fixed = await run('loop', '--failed');
    expect(fixed.code).toBe(0);
    expect(ran(fixed.doc)).toEqual(['engine.fail']);
    expect(judged(fixed.doc)).toEqual(['mgmt.verdict.fail pass']);

    // Nothing failed: one line, exit 0, no request and no report; the last run stays as it was.
    const before = { seen: server.seen.length, last: lastRun('loop') };
    const none = await run('loop', '--failed');
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('nothing failed in the last run\n');
    expect(none.stderr).toBe('');
    expect(none.doc).toBeUndefined();
    expect(server.seen.length).toBe(before.seen);
    expect(lastRun('loop')).toBe(before.last);
  });

  it('is narrowed by the other selection flags: only what both select runs', async () => {
    expect((await run('narrowed', ...CASES)).code).toBe(1);
    const byClause = await run('narrowed', '--failed', '--no-last-run', '--clause', 'mgmt.verdict.garb*');
    expect(ran(byClause.doc)).toEqual(['engine.error.garbage']);
    expect(judged(byClause.doc)).toEqual(['mgmt.verdict.garbage error']);
    const byCase = await run('narrowed', '--failed', '--no-last-run', '--case', 'engine.fail');
    expect(ran(byCase.doc)).toEqual(['engine.fail']);
    expect(judged(byCase.doc)).toEqual(['mgmt.verdict.fail fail']);
    const bySuite = await run(
      'narrowed',
      '--failed',
      '--no-last-run',
      '--suite',
      'mgmt',
      '--clause',
      'mgmt.verdict.f*',
    );
    expect(ran(bySuite.doc)).toEqual(['engine.fail']);
  });

  it('refuses in one line a --clause that names none of the clauses that failed, sending nothing', async () => {
    expect((await run('disjoint', ...CASES)).code).toBe(1);
    const seen = server.seen.length;
    const r = await run('disjoint', '--failed', '--clause', 'mgmt.verdict.pass');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'edgecheck: --failed: 2 clauses failed in the last run, none of them selected by --clause mgmt.verdict.pass\n',
    );
    expect(server.seen.length).toBe(seen);
  });

  it('says in one line that there is no last run, exits 2 and sends nothing', async () => {
    const seen = server.seen.length;
    const r = await run('never-run', '--failed');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `edgecheck: --failed: no last run in this folder (${LAST_RUN}); run once without --failed (and without --no-last-run)\n`,
    );
    expect(server.seen.length).toBe(seen);
  });

  it('says in one line that the last run cannot be read, and exits 2', async () => {
    mkdirSync(path.join(tmp, 'unreadable', '.edgecheck'), { recursive: true });
    writeFileSync(path.join(tmp, 'unreadable', LAST_RUN), '{"not": "results"');
    const r = await run('unreadable', '--failed');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^edgecheck: --failed: the last run cannot be read \(.+\); run once without --failed\n$/,
    );
    expect(r.stderr.split('\n')).toHaveLength(2);
  });
});
