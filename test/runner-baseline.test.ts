import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdgecheck } from '../runner/api.ts';
import type { ClauseResult } from '../runner/model/results.ts';
import type { ClauseVerdict } from '../runner/model/verdict.ts';
import { compareBaseline, loadBaseline } from '../runner/results/baseline.ts';
import { failure, ok, sendJson, startServer, type TestServer } from './helpers/engine-server.ts';
import { fixtureDir, managementTarget } from './helpers/engine-target.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-baseline-'));
let server: TestServer;

beforeAll(async () => {
  server = await startServer((req, res) =>
    req.url === '/client/v4/zones/z1'
      ? sendJson(res, 200, ok({ id: 'z1', name: 'example.com' }))
      : sendJson(res, 404, failure(7003, 'no route')),
  );
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function baselineFile(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

const clause = (id: string, verdict: ClauseVerdict): ClauseResult => ({
  id,
  area: 'mgmt',
  section: 's',
  title: 't',
  source: 'spec',
  verdict,
  checks: 1,
});

describe('baseline comparison', () => {
  const baseline = {
    clauses: {
      'a.fails': { verdict: 'fail' as const, reason: 'known bug 1' },
      'a.errors': { verdict: 'error' as const, reason: 'times out' },
      'a.fixed': { verdict: 'fail' as const, reason: 'was broken' },
      'a.changed': { verdict: 'fail' as const, reason: 'known bug 2' },
      'a.skipped': { verdict: 'fail' as const, reason: 'only on some dates' },
    },
  };

  it('an expected failure counts only if it fails the same way; a listed clause that passes is fixed', () => {
    const diff = compareBaseline('b.yaml', baseline, [
      clause('a.fails', 'fail'),
      clause('a.errors', 'error'),
      clause('a.fixed', 'pass'),
      clause('a.changed', 'error'),
      clause('a.skipped', 'skipped'),
      clause('a.new', 'fail'),
      clause('a.fine', 'pass'),
    ]);
    expect(diff).toEqual({
      file: 'b.yaml',
      expected: ['a.fails', 'a.errors'],
      newFailures: ['a.changed', 'a.new'],
      fixed: ['a.fixed'],
    });
  });

  it('a baseline file with a bad entry is an input error at that entry', () => {
    const file = baselineFile('bad.yaml', 'clauses:\n  a.b: { verdict: flaky, reason: x }\n');
    expect(() => loadBaseline(file)).toThrow(
      `${file}:2:8: clause a.b: give verdict fail|error and a one-line reason`,
    );
    expect(() => loadBaseline(path.join(dir, 'none.yaml'))).toThrow('no such file');
    const notOne = baselineFile('empty.yaml', 'target: x\n');
    expect(() => loadBaseline(notOne)).toThrow('a baseline has `clauses:');
  });
});

describe('a run against a baseline', () => {
  const run = (baseline: string) =>
    runEdgecheck({
      suitesDir: fixtureDir('verdicts'),
      target: managementTarget(server.url),
      cases: ['engine.pass', 'engine.fail'],
      asOf: '2024-06-01',
      baseline,
    });

  it('exits 0 when the run fails exactly as the baseline says', async () => {
    const r = await run(
      baselineFile(
        'exact.yaml',
        'clauses:\n  mgmt.verdict.fail: { verdict: fail, reason: the fixture fails on purpose }\n',
      ),
    );
    expect(r.baseline).toMatchObject({ expected: ['mgmt.verdict.fail'], newFailures: [], fixed: [] });
    expect(r.exitCode).toBe(0);
  });

  it('exits 1 on a failure the baseline does not list, and on a listed clause that now passes', async () => {
    const none = await run(baselineFile('none.yaml', 'clauses: {}\n'));
    expect(none.baseline?.newFailures).toEqual(['mgmt.verdict.fail']);
    expect(none.exitCode).toBe(1);
    const stale = await run(
      baselineFile(
        'stale.yaml',
        'clauses:\n  mgmt.verdict.fail: { verdict: fail, reason: r }\n  mgmt.verdict.pass: { verdict: fail, reason: r }\n',
      ),
    );
    expect(stale.baseline).toMatchObject({ newFailures: [], fixed: ['mgmt.verdict.pass'] });
    expect(stale.exitCode).toBe(1);
  });
});
