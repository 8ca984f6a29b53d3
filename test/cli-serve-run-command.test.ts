import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { parse } from '../cli/args.ts';
import { OPTIONS } from '../cli/run.ts';
import { REFERENCE_CREDENTIALS } from '../reference/context.ts';
import { REFERENCE_FEATURES } from '../reference/server.ts';
import { BIN, cleanEnv, PROJECT_ROOT, runBinAsync } from './helpers/cli.ts';

let server: ChildProcess | undefined;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-serve-'));
});

afterEach(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `edgecheck serve` and resolves with what it printed once it is listening. */
function serve(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], { cwd: PROJECT_ROOT, env: cleanEnv() });
    server = child;
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('Ctrl-C stops the server.')) resolve(out);
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`serve exited ${code} before listening: ${out}`)));
  });
}

/** The printed command as its environment and its arguments (the values need no shell quoting). */
function printedCommand(out: string): { env: Record<string, string>; args: string[] } {
  const block = out.slice(out.indexOf('Run every suite'), out.indexOf('Ctrl-C stops the server.'));
  const words = block.split('\n').slice(1).join(' ').replace(/\\/g, ' ').split(/\s+/).filter(Boolean);
  expect(block).not.toMatch(/['"]/);
  const run = words.indexOf('run');
  expect(words.slice(run - 2, run + 1)).toEqual(['npx', 'edgecheck', 'run']);
  const env = Object.fromEntries(words.slice(0, run - 2).map((w) => w.split(/=(.*)/s).slice(0, 2)));
  return { env, args: words.slice(run + 1) };
}

it('serve prints a run command with every credential and feature the reference offers, and it runs every management clause', async () => {
  const { env, args } = printedCommand(await serve());
  expect(env).toEqual({
    EDGECHECK_API_TOKEN: REFERENCE_CREDENTIALS.token,
    EDGECHECK_AUTH_EMAIL: REFERENCE_CREDENTIALS.legacyEmail,
    EDGECHECK_AUTH_KEY: REFERENCE_CREDENTIALS.legacyKey,
    EDGECHECK_S3_ACCESS_KEY_ID: REFERENCE_CREDENTIALS.accessKeyId,
    EDGECHECK_S3_SECRET_ACCESS_KEY: REFERENCE_CREDENTIALS.secretAccessKey,
    EDGECHECK_BINDINGS_SECRET: REFERENCE_CREDENTIALS.bindingsSecret,
  });
  const { values } = parse('run', args, OPTIONS);
  expect([...(values.feature ?? [])].sort()).toEqual([...REFERENCE_FEATURES].sort());
  expect(values).toMatchObject({ 'account-id': expect.any(String), 'zone-id': expect.any(String) });
  expect(values.id?.map((i) => i.split('=')[0]).sort()).toEqual(['certificatePack', 'invite']);

  // Copied as printed, it leaves no management clause skipped (the key-pair clause included).
  const results = path.join(dir, 'results.json');
  const r = await runBinAsync(
    ['run', ...args, '--suite', 'management', '--reporter', `json=${results}`],
    env,
  );
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const doc = JSON.parse(readFileSync(results, 'utf8'));
  expect(doc.clauses.find((c: { id: string }) => c.id === 'mgmt.auth.legacy')?.verdict).toBe('pass');
  expect(doc.summary.clauses.skipped).toBe(0);

  // The served bindings probe too: every worker-bindings case runs, the one across binding and S3 included.
  expect(values).toMatchObject({
    'bindings-url': expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//),
    'bindings-legacy-url': expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//),
    'bindings-bucket': expect.any(String),
  });
  const bindings = path.join(dir, 'bindings.json');
  const rb = await runBinAsync(
    ['run', ...args, '--suite', 's3', '--tag', 'bindings', '--reporter', `json=${bindings}`],
    env,
  );
  expect(rb.code, rb.stdout + rb.stderr).toBe(0);
  const bdoc = JSON.parse(readFileSync(bindings, 'utf8'));
  expect(bdoc.summary.cases).toMatchObject({ pass: 10, skipped: 0 });
}, 30_000);
