import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../cli/main.ts';
import { runMain, STACK_LINE } from './helpers/cli.ts';

const CODES = ['0', '1', '2', '3', '130'];

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('every exit code is documented', () => {
  it('in edgecheck --help', async () => {
    const { code, stdout } = await runMain(['--help']);
    expect(code).toBe(0);
    const listed = [...stdout.slice(stdout.indexOf('Exit codes')).matchAll(/^ {2}(\d+) /gm)].map((m) => m[1]);
    expect(listed).toEqual(CODES);
    expect(stdout).toMatch(/^ {2}3 +internal error: one line \(EDGECHECK_DEBUG=1 shows the stack\)$/m);
  });

  it('in the README, where CI gating is described', () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('## Gating releases in CI'));
    const start = section.indexOf('- Exit codes:');
    const bullet = section.slice(start, section.indexOf('\n- ', start + 1));
    for (const c of CODES) expect(bullet.replace(/\s+/g, ' ')).toMatch(new RegExp(`\\b${c} (when|for)\\b`));
    expect(bullet).toContain('EDGECHECK_DEBUG=1');
  });
});

describe('an internal error is exit 3 and one line; EDGECHECK_DEBUG=1 adds the stack', () => {
  /** An output stream that fails, the kind of fault no input causes. */
  function failingRun() {
    const out = new PassThrough();
    out.write = () => {
      throw new Error('stream broke');
    };
    const err = new PassThrough();
    let text = '';
    err.on('data', (d) => {
      text += d;
    });
    return { run: () => main(['--version'], out as any, err as any), stderr: () => text };
  }

  it('without EDGECHECK_DEBUG', async () => {
    vi.stubEnv('EDGECHECK_DEBUG', '');
    const f = failingRun();
    expect(await f.run()).toBe(3);
    expect(f.stderr()).toBe('edgecheck: internal error: stream broke (EDGECHECK_DEBUG=1 shows the stack)\n');
  });

  it('with EDGECHECK_DEBUG=1', async () => {
    vi.stubEnv('EDGECHECK_DEBUG', '1');
    const f = failingRun();
    expect(await f.run()).toBe(3);
    expect(f.stderr()).toMatch(STACK_LINE);
  });
});
