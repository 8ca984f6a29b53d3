import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './helpers/cli.ts';

/*
 * A checkout runs its sources from their transform kept in the cache (bin/source-build.mjs). It
 * must never run an old one: an edit to any source is a new build. And the build must run what the
 * sources say, the parts that move with it included: the reference's worker thread, the suites'
 * properties and their `edgecheck/kit`. A copy of the checkout is edited here, never the checkout.
 */

let copy: string;
let cache: string;

beforeAll(() => {
  copy = mkdtempSync(path.join(tmpdir(), 'edgecheck-source-build-'));
  for (const entry of ['bin', 'runner', 'reporters', 'reference', 'cli', 'suites', 'schemas', 'fixtures']) {
    cpSync(path.join(PROJECT_ROOT, entry), path.join(copy, entry), { recursive: true });
  }
  for (const file of ['package.json', 'tsconfig.json'])
    cpSync(path.join(PROJECT_ROOT, file), path.join(copy, file));
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  cache = path.join(copy, 'cache');
});

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

function edgecheck(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [path.join(copy, 'bin', 'edgecheck.mjs'), ...args], {
    cwd: copy,
    env: { ...process.env, EDGECHECK_CACHE_DIR: cache, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out })));
}

const builds = () => readdirSync(cache).filter((n) => n.startsWith('build-'));

describe("a checkout's sources, run from their cached transform", () => {
  it('runs a property-driven clause, its reference in a worker thread', async () => {
    // A property (suites/s3/properties) imports edgecheck/kit; the embedded reference runs in a worker.
    const r = await edgecheck(['run', '--clause', 's3.mpu.etag-format', '--profile', 'quick']);
    expect(r.out).toMatch(/\b1 passed, 0 failed\b/);
    expect(r.code).toBe(0);
    expect(builds()).toHaveLength(1);
    const kit = readFileSync(
      path.join(cache, builds()[0], 'suites', 's3', 'properties', 'multipart.property.js'),
      'utf8',
    );
    expect(kit).toMatch(/from ["']\.\.\/\.\.\/\.\.\/runner\/kit\.js["']/);
    expect(kit).not.toMatch(/\.ts["']/);
  });

  it('makes a new build when a source changes, and runs the change', async () => {
    const main = path.join(copy, 'cli', 'main.ts');
    writeFileSync(
      main,
      readFileSync(main, 'utf8').replace('Usage: edgecheck <command>', 'Usage: edgecheck-edited <command>'),
    );
    const r = await edgecheck(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Usage: edgecheck-edited <command>');
    expect(builds()).toHaveLength(2);
  });

  it('runs the sources through tsx instead when EDGECHECK_TSX=1, with the same answer', async () => {
    const r = await edgecheck(['--help'], {
      EDGECHECK_TSX: '1',
      EDGECHECK_CACHE_DIR: path.join(copy, 'other'),
    });
    expect(r.code).toBe(0);
    expect(r.out).toContain('Usage: edgecheck-edited <command>');
    const other = path.join(copy, 'other');
    expect(existsSync(other) ? readdirSync(other).filter((n) => n.startsWith('build-')) : []).toEqual([]);
  });
});
