import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAST_RUN } from '../cli/run.ts';
import { type CliOutcome, runMainIn } from './helpers/cli.ts';
import { ok, sendJson, startServer, type TestServer } from './helpers/engine-server.ts';
import { CANARY_TOKEN, fixtureDir } from './helpers/engine-target.ts';

/*
 * A run writes .edgecheck/last-run.json in the folder it runs in, for `edgecheck clauses`: its last
 * line says so, and --no-last-run writes nothing there. Each run here runs in a folder of its own.
 */

const NOTE = `last run written to ${LAST_RUN} (--no-last-run skips it)`;

let server: TestServer;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'edgecheck-last-run-'));
  server = await startServer((req, res) => {
    if (req.url === '/client/v4/zones/z1') return sendJson(res, 200, ok({ id: 'z1', name: 'example.com' }));
    sendJson(res, 404, {
      success: false,
      errors: [{ code: 7003, message: 'no route' }],
      messages: [],
      result: null,
    });
  });
});

afterAll(async () => {
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** The CLI in this process, with `folder` (made fresh under tmp) as the current folder. */
async function inFolder(folder: string, args: string[]): Promise<CliOutcome & { dir: string }> {
  const dir = path.join(tmp, folder);
  return { ...(await runMainIn(dir, args, { EDGECHECK_API_TOKEN: CANARY_TOKEN })), dir };
}

const run = (folder: string, ...extra: string[]) =>
  inFolder(folder, [
    'run',
    '--suites-dir',
    fixtureDir('verdicts'),
    '--case',
    'engine.pass',
    '--management-url',
    server.url,
    '--as-of',
    '2024-06-01',
    ...extra,
  ]);

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

describe('a run and its last-run file', () => {
  it('writes the file and says where in the last line, after the console summary', async () => {
    const r = await run('plain');
    expect(r.code).toBe(0);
    expect(existsSync(path.join(r.dir, LAST_RUN))).toBe(true);
    expect(lastLine(r.stdout)).toBe(NOTE);
    expect(r.stdout.indexOf('Totals')).toBeLessThan(r.stdout.indexOf(NOTE));
    expect(r.stdout.split(NOTE)).toHaveLength(2);
    expect(r.stderr).toBe('');
  });

  it('says it on stderr when a reporter writes its document to stdout, which stays the document', async () => {
    const r = await run('json-to-stdout', '--reporter', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('clauses');
    expect(r.stderr).toBe(`${NOTE}\n`);
  });

  it('with --no-last-run writes nothing in the folder and says nothing of it', async () => {
    const r = await run('skipped', '--no-last-run');
    expect(r.code).toBe(0);
    expect(existsSync(path.join(r.dir, '.edgecheck'))).toBe(false);
    expect(r.stdout).not.toContain(LAST_RUN);
    // The console's own closing line ends the output.
    expect(lastLine(r.stdout)).toBe('1 passed, 0 failed');
  });
});

describe('edgecheck clauses and the last run', () => {
  const clauses = (folder: string) => inFolder(folder, ['clauses', '--suites-dir', fixtureDir('verdicts')]);

  it("shows the last run's verdicts and names the file", async () => {
    await run('then-clauses');
    const r = await clauses('then-clauses');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^mgmt\.verdict\.pass\s+pass\s/m);
    expect(lastLine(r.stdout)).toBe(`verdicts from ${LAST_RUN}`);
  });

  it('says why there are no verdicts where no run wrote one', async () => {
    const r = await clauses('never-run');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^mgmt\.verdict\.pass\s+1 check\s/m);
    expect(lastLine(r.stdout)).toBe(
      `no verdicts: no run wrote ${LAST_RUN} in this folder (or it ran with --no-last-run); give --results FILE`,
    );
  });

  it('says why there are no verdicts where the file cannot be read, and still lists the clauses', async () => {
    mkdirSync(path.join(tmp, 'unreadable', '.edgecheck'), { recursive: true });
    writeFileSync(path.join(tmp, 'unreadable', LAST_RUN), '{"not": "results"');
    const r = await clauses('unreadable');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^14 clauses: /m);
    expect(lastLine(r.stdout)).toMatch(
      new RegExp(
        `^no verdicts: ${LAST_RUN.replace('.', '\\.')} cannot be read \\(.+\\); give --results FILE$`,
      ),
    );
  });

  it('--json prints the document only', async () => {
    const r = await inFolder('never-run-json', ['clauses', '--json', '--suites-dir', fixtureDir('verdicts')]);
    expect(JSON.parse(r.stdout)).toHaveLength(14);
  });
});
