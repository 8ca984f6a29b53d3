/**
 * A checkout run before `npm ci` (no node_modules) says in one line what is missing and what to
 * run, exit 2, instead of Node's stack; any other failure to load is not dressed up as that.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, PROJECT_ROOT, STACK_LINE } from './helpers/cli.ts';

let scratch: string;

/** What bin/edgecheck.mjs needs to start in a checkout, copied to `dest` with no node_modules. */
function bareCheckout(dest: string, { lockfile = true } = {}): string {
  for (const part of ['bin', 'cli', 'package.json', ...(lockfile ? ['package-lock.json'] : [])])
    cpSync(path.join(PROJECT_ROOT, part), path.join(dest, part), { recursive: true });
  return dest;
}

function run(dir: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [path.join(dir, 'bin', 'edgecheck.mjs'), ...args], {
    cwd: dir,
    env: cleanEnv(env),
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  scratch = realpathSync(mkdtempSync(path.join(tmpdir(), 'edgecheck-bare-')));
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('edgecheck in a checkout with no node_modules', () => {
  it('has no node_modules above it that Node would find packages in', () => {
    for (let d = scratch; path.dirname(d) !== d; d = path.dirname(d))
      expect(existsSync(path.join(d, 'node_modules')), `${d}/node_modules`).toBe(false);
  });

  it.each([
    ['--help', {}],
    ['run', {}],
    ['--help through tsx', { EDGECHECK_TSX: '1' }],
  ] as const)('%s: one line naming the missing package and npm ci, exit 2', (label, env) => {
    const dir = bareCheckout(path.join(scratch, label.replace(/\W+/g, '-')));
    const { code, stdout, stderr } = run(dir, [label.split(' ')[0]], env);
    expect(stderr).toMatch(
      /^edgecheck: the packages it needs are not installed \(tsx not found\); run npm ci first\n$/,
    );
    expect(stderr).not.toMatch(STACK_LINE);
    expect(stdout).toBe('');
    expect(code).toBe(2);
  });

  it('an installed package that lost its dependencies is to be reinstalled', () => {
    const dir = bareCheckout(path.join(scratch, 'installed'), { lockfile: false });
    const { code, stderr } = run(dir, ['--help']);
    expect(stderr).toMatch(/^edgecheck: .*\(tsx not found\); reinstall edgecheck\n$/);
    expect(code).toBe(2);
  });

  it('a missing file of its own is not called a missing install: Node says what it is', () => {
    // No cli/main.ts and no dist/: the command looks for its build, which is not there.
    const dir = bareCheckout(path.join(scratch, 'no-build'));
    rmSync(path.join(dir, 'cli', 'main.ts'));
    const { code, stderr } = run(dir, ['--help']);
    expect(stderr).toContain('ERR_MODULE_NOT_FOUND');
    expect(stderr).toContain(path.join('dist', 'cli', 'main.js'));
    expect(stderr).not.toContain('not installed');
    expect(code).toBe(1);
  });
});
