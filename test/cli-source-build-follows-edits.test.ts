import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliOutcome, cleanEnv, copyCheckout, outcomeOf } from './helpers/cli.ts';

/*
 * A checkout runs its sources from their transform kept in a cache (bin/source-build.mjs). It must
 * never run an old one: an edit to any source is a new build. And the build must run what the
 * sources say, the parts that move with it included: the reference's worker thread, the suites'
 * properties and their `edgecheck/kit`, and the project's files found from the checkout, with the
 * compiled suites kept elsewhere (EDGECHECK_CACHE_DIR). A copy of the checkout is edited, never the
 * checkout.
 */

let scratch: string;
let copy: string;
let cache: string;
let elsewhere: string;

beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'edgecheck-source-build-'));
  copy = path.join(scratch, 'checkout');
  cache = path.join(copy, 'node_modules', '.cache', 'edgecheck');
  elsewhere = path.join(scratch, 'compiled-suites');
  copyCheckout(copy);
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function edgecheck(args: string[], env: Record<string, string> = {}): Promise<CliOutcome> {
  const child = spawn(process.execPath, [path.join(copy, 'bin', 'edgecheck.mjs'), ...args], {
    cwd: copy,
    env: cleanEnv({ EDGECHECK_CACHE_DIR: elsewhere, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return outcomeOf(child, 60_000);
}

/** Whole builds in the cache folder (a half-made one is named *.partial). */
const builds = () => (existsSync(cache) ? readdirSync(cache).filter((n) => /^build-[0-9a-f]+$/.test(n)) : []);

/** Changes the usage line of `edgecheck --help` in the copy to `to`, whatever it says now. */
function editUsage(to: string): void {
  const main = path.join(copy, 'cli', 'main.ts');
  writeFileSync(
    main,
    readFileSync(main, 'utf8').replace(/Usage: edgecheck[\w-]* <command>/, `Usage: ${to} <command>`),
  );
}

describe("a checkout's sources, run from their cached transform", () => {
  it('runs a property-driven clause, its reference in a worker thread, its compiled suites kept elsewhere', async () => {
    // A property (suites/s3/properties) imports edgecheck/kit; the embedded reference runs in a worker.
    const r = await edgecheck(['run', '--clause', 's3.mpu.etag-format', '--profile', 'quick']);
    expect(r.stdout + r.stderr).toMatch(/\b1 passed, 0 failed\b/);
    expect(r.code).toBe(0);
    expect(readdirSync(elsewhere).some((n) => n.startsWith('suites-'))).toBe(true);
    const [build] = builds();
    const property = readFileSync(
      path.join(cache, build, 'suites', 's3', 'properties', 'multipart.property.js'),
      'utf8',
    );
    expect(property).toMatch(/from ["']\.\.\/\.\.\/\.\.\/runner\/kit\.js["']/);
    expect(property).not.toMatch(/\.ts["']/);
  });

  it('makes a new build when a source changes, and runs the change', async () => {
    editUsage('edgecheck-first');
    const first = await edgecheck(['--help']);
    editUsage('edgecheck-second');
    const before = builds().length;
    const second = await edgecheck(['--help']);
    expect(first.stdout).toContain('Usage: edgecheck-first <command>');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Usage: edgecheck-second <command>');
    expect(builds().length).toBe(before + 1);
  });

  it('gives the same answer through tsx (EDGECHECK_TSX=1), with no build made', async () => {
    const built = await edgecheck(['--help']);
    const before = builds();
    const throughTsx = await edgecheck(['--help'], { EDGECHECK_TSX: '1' });
    expect(throughTsx.code).toBe(0);
    expect(throughTsx.stdout).toBe(built.stdout);
    expect(builds()).toEqual(before);
  });
});
