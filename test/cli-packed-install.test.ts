import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResults } from '../runner/model/results.ts';
import { cleanEnv, copyCheckout } from './helpers/cli.ts';

/*
 * edgecheck as a user gets it: `npm pack` (whose prepack builds dist/), the tarball installed into
 * an empty folder with npm from its cache, and the installed command run with npx. The package
 * must run its build with what its dependencies install: no tsx, no TypeScript.
 */

const exec = promisify(execFile);

let scratch: string;
let tarball: string;
let packed: string[];
let app: string;
let env: NodeJS.ProcessEnv;
const started = new Set<ChildProcess>();

/** The environment without the npm settings of the npm that started the tests (its package, its prefix). */
function npmEnv(): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  const keep = /^npm_config_(cache|registry|userconfig|globalconfig)$/i;
  for (const [k, v] of Object.entries(cleanEnv())) if (!/^npm_/i.test(k) || keep.test(k)) out[k] = v;
  return out;
}

/** Runs a command to its end; rejects on a non-zero exit, with what it printed. */
async function sh(cwd: string, file: string, args: string[], timeout = 60_000) {
  try {
    return await exec(file, args, { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024 });
  } catch (err: any) {
    throw new Error(`${file} ${args.join(' ')} failed (${err.code}):\n${err.stderr}\n${err.stdout}`);
  }
}

beforeAll(async () => {
  env = npmEnv();
  scratch = realpathSync(mkdtempSync(path.join(tmpdir(), 'edgecheck-packed-')));
  // The checkout as it is, packed from a copy: the build goes to the copy's dist/, not the checkout's.
  const source = path.join(scratch, 'source');
  copyCheckout(source);
  const pack = path.join(scratch, 'pack');
  mkdirSync(pack);
  const { stdout } = await sh(source, 'npm', ['pack', '--json', '--pack-destination', pack], 120_000);
  const [info] = JSON.parse(stdout.slice(stdout.indexOf('[')));
  tarball = path.join(pack, info.filename);
  packed = info.files.map((f: { path: string }) => f.path);

  app = path.join(scratch, 'app');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), '{ "name": "app", "private": true }\n');
  const install = ['install', '--no-audit', '--no-fund'];
  // From the cache alone when it holds everything; else the cache first, the registry for the rest.
  await sh(app, 'npm', [...install, '--offline', tarball], 120_000).catch(() =>
    sh(app, 'npm', [...install, '--prefer-offline', tarball], 120_000),
  );
}, 240_000);

afterAll(() => {
  for (const child of started) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

// The tests run at once: each starts the installed command in a process of its own and writes
// only files of its own in the folder, and most of their time is npx and node starting.
describe.concurrent('the packed package, installed with npm into an empty folder', () => {
  it('packs the build, the bin and the data, and no TypeScript', () => {
    for (const file of [
      'package.json',
      'README.md',
      'bin/edgecheck.mjs',
      'bin/suite-hooks.mjs',
      'dist/cli/main.js',
      'dist/runner/kit.js',
      'dist/reference/worker-thread.js',
      'dist/suites/management/properties/pagination.property.js',
      'suites/given.yaml',
      'suites/management/clauses.yaml',
      'schemas/case.schema.json',
      'schemas/results.schema.json',
    ]) {
      expect(packed).toContain(file);
    }
    expect(packed.filter((f) => /\.(ts|mts|cts)$/.test(f))).toEqual([]);
    expect(
      packed.filter((f) => /^(test|bench|scripts|docs|runner|cli|reference|reporters)\//.test(f)),
    ).toEqual([]);
  });

  it('installs without tsx, and edgecheck/kit resolves to the build', async () => {
    expect(existsSync(path.join(app, 'node_modules', 'tsx'))).toBe(false);
    const { stdout } = await sh(app, process.execPath, [
      '--input-type=module',
      '-e',
      "console.log(import.meta.resolve('edgecheck/kit'))",
    ]);
    expect(stdout.trim()).toBe(`file://${path.join(app, 'node_modules/edgecheck/dist/runner/kit.js')}`);
  });

  it('npx edgecheck --help prints the commands', async () => {
    const { stdout } = await sh(app, 'npx', ['edgecheck', '--help']);
    expect(stdout).toMatch(/^edgecheck \d+\.\d+\.\d+: conformance checks/);
    for (const command of ['run', 'lint', 'clauses', 'serve', 'compare', 'sweep']) {
      expect(stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
  });

  it('npx edgecheck run --suite management passes against the embedded reference, properties included', async () => {
    await sh(
      app,
      'npx',
      ['edgecheck', 'run', '--suite', 'management', '--reporter', 'json=out.json'],
      90_000,
    );
    const results: RunResults = JSON.parse(readFileSync(path.join(app, 'out.json'), 'utf8'));
    expect(results.exitCode).toBe(0);
    expect(results.summary.clauses.pass).toBeGreaterThan(0);
    expect(results.summary.clauses.fail + results.summary.clauses.error).toBe(0);
    // The properties ran from their build.
    const properties = results.cases.filter((c) => c.file.endsWith('.property.js'));
    expect(properties.length).toBeGreaterThan(0);
    expect(properties.every((c) => c.file.startsWith('node_modules/edgecheck/dist/suites/'))).toBe(true);
    expect(properties.every((c) => c.verdict === 'pass')).toBe(true);
  });

  it('a suites folder with a .ts property says in one line that it needs tsx', async () => {
    const mine = path.join(app, 'mine');
    cpSync(path.join(app, 'node_modules/edgecheck/suites'), mine, { recursive: true });
    mkdirSync(path.join(mine, 'management', 'properties'), { recursive: true });
    writeFileSync(
      path.join(mine, 'management', 'properties', 'own.property.ts'),
      "import type { PropertyDef } from 'edgecheck/kit';\nconst defs: PropertyDef[] = [];\nexport default defs;\n",
    );
    const outcome = await exec('npx', ['edgecheck', 'lint', '--suites-dir', 'mine'], { cwd: app, env }).then(
      () => ({ code: 0, stderr: '' }),
      (err) => ({ code: err.code, stderr: String(err.stderr) }),
    );
    expect(outcome.code).toBe(2);
    const lines = outcome.stderr.split('\n').filter((l) => l.includes('own.property.ts'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/TypeScript properties need tsx/);
  });

  it('npx edgecheck serve starts, prints its run command, and exits on SIGINT', async () => {
    // Its own process group, as a terminal's Ctrl-C reaches npx and edgecheck alike.
    const child = spawn('npx', ['edgecheck', 'serve'], { cwd: app, env, detached: true });
    started.add(child);
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start:\n${out}`)), 30_000);
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('Ctrl-C stops the server.')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code} before listening:\n${out}`)));
    });
    // The command is wrapped over lines with a backslash at each end.
    expect(out).toMatch(/npx edgecheck run[\s\\]+--management-url http:\/\/127\.0\.0\.1:\d+/);
    process.kill(-child.pid!, 'SIGINT');
    const { code, signal } = await exited;
    expect(code === 0 || signal === 'SIGINT', `exit ${code} ${signal}`).toBe(true);
    // Nothing of the group is left: npx and the server both end, within a bound, not a fixed wait.
    const alive = () => {
      try {
        process.kill(-child.pid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (const until = Date.now() + 10_000; alive() && Date.now() < until; )
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(() => process.kill(-child.pid!, 0)).toThrow();
    started.delete(child);
  });
});
