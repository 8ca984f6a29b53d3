import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdgecheck } from '../runner/api.ts';
import type { RunResults } from '../runner/model/results.ts';
import { runMain } from './helpers/cli.ts';
import { failure, ok, sendJson, startServer, type TestServer } from './helpers/engine-server.ts';
import { fixtureDir, managementTarget } from './helpers/engine-target.ts';

/*
 * Prerequisites belong to each check, not to its case: a step that did not pass blocks only the
 * steps that depend on it (the earlier writes that reach what they read, back to the last write
 * that replaced it, unless `needs` names the steps; a read only through its captures), and the
 * others are judged on their own answers.
 */

let server: TestServer;
let results: RunResults;
const seen: string[] = [];

beforeAll(async () => {
  server = await startServer((req, res) => {
    const path = req.url.split('?')[0].replace('/client/v4', '');
    seen.push(`${req.method} ${path}`);
    if (path === '/broken' || path === '/things/broken') return sendJson(res, 500, failure(7001, 'broken'));
    if (path === '/refused' || path === '/things/refused')
      return sendJson(res, 400, failure(7002, 'refused'));
    if (path === '/things' || path === '/nothing') return sendJson(res, 200, ok({}));
    sendJson(res, 404, failure(7000, 'no route'));
  });
  results = await runEdgecheck({
    suitesDir: fixtureDir('step-dependencies'),
    target: managementTarget(server.url),
    asOf: '2024-06-01',
    seed: 1,
  });
}, 20_000);

afterAll(async () => {
  await server?.close();
});

const verdicts = (id: string) => results.cases.find((c) => c.id === id)!.checks.map((k) => k.verdict);
const messages = (id: string) => results.cases.find((c) => c.id === id)!.checks.map((k) => k.message);

describe('a step that did not pass', () => {
  it('a failed read blocks nothing: each later step is sent and judged on its own answer', () => {
    expect(verdicts('dep.read-fails')).toEqual(['fail', 'pass', 'fail']);
  });

  it('a failed write blocks the steps that read what it writes, saying which step and why', () => {
    expect(verdicts('dep.write-fails')).toEqual(['fail', 'blocked']);
    expect(messages('dep.write-fails')[1]).toBe(
      'step refused failed: it writes api /things/refused, which this step reads',
    );
  });

  it('a failed write blocks nothing that reads another resource', () => {
    expect(verdicts('dep.write-elsewhere')).toEqual(['fail', 'pass']);
  });

  it('a read waits on the last write that replaced what it reads, not on a refused write before it', () => {
    expect(verdicts('dep.superseded')).toEqual(['fail', 'pass', 'pass']);
  });

  it('a write answered as its checks expect but wrong in a detail blocks only the steps that name it in needs', () => {
    // 400 where 409 was expected is still a refusal; a success without the id expected is still a success.
    expect(verdicts('dep.write-detail')).toEqual(['fail', 'fail', 'pass', 'blocked']);
    expect(messages('dep.write-detail')[3]).toBe(
      'step created-otherwise failed: this step names it in needs',
    );
  });

  it('a write with another outcome than expected, or a server error, blocks the steps after it', () => {
    expect(verdicts('dep.write-outcome')).toEqual(['fail', 'blocked']);
    expect(verdicts('dep.write-server-error')).toEqual(['fail', 'blocked']);
  });

  it('needs names exactly what a step depends on: [] runs after a failed write, [refused] does not', () => {
    expect(verdicts('dep.needs')).toEqual(['fail', 'pass', 'pass', 'blocked']);
  });

  it('a missing capture blocks only the step that uses it', () => {
    expect(verdicts('dep.capture')).toEqual(['pass', 'blocked', 'pass']);
    expect(messages('dep.capture')[1]).toMatch(/thing/);
  });

  it('a blocked step is not sent', () => {
    expect(seen.filter((s) => s.startsWith('GET /things/'))).toEqual([]);
  });
});

describe('a precondition of a check (requires)', () => {
  it('unmet, blocks that check alone, saying what the answer lacks; met, the check is judged', () => {
    expect(verdicts('dep.requires')).toEqual(['blocked', 'pass', 'fail']);
    expect(messages('dep.requires')[0]).toMatch(
      /^not judged: the answer lacks what the check needs \(json at \/result\/id/,
    );
  });
});

describe('lint', () => {
  it('refuses needs that names no earlier step, at its line', async () => {
    const dir = 'test/fixtures/engine/lint/needs-later-step';
    const { code, stderr } = await runMain(['lint', '--suites-dir', dir]);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      `${dir}/mgmt/needs.case.yaml:4:5: error: needs 'write', which is no earlier step of case 'lint.needs-later-step'; name a step above it`,
    );
  });
});

describe('edgecheck lint --waits', () => {
  it('lists what each check waits on: the step whose state it reads, never one it does not read', async () => {
    const { code, stdout } = await runMain([
      'lint',
      '--waits',
      '--suites-dir',
      fixtureDir('step-dependencies'),
    ]);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    const superseded = lines.slice(lines.indexOf('dep.superseded'), lines.indexOf('dep.superseded') + 4);
    // The read waits on the PUT that replaced what it reads, not on the refused PATCH before it.
    expect(superseded[3]).toMatch(
      /^ {2}steps\[2\] \(1 check, .*\) waits on: step reset \(it writes api \/things, which this step reads\)$/,
    );
    expect(superseded.join('\n')).not.toMatch(/steps\[2\].*step set/);
    const elsewhere = lines[lines.indexOf('dep.write-elsewhere') + 2];
    expect(elsewhere).toMatch(/waits on: nothing$/);
  });
});
