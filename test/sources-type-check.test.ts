import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './helpers/cli.ts';

/*
 * The whole project type-checks (tsconfig.json: the engine, the reference, the suites, the tests,
 * the benchmark and the scripts), as `npm run typecheck` checks it. Here rather than before the
 * tests in `npm test`: tsc works on one core for several seconds, which the tests beside it use.
 */

describe('the sources', () => {
  it('type-check with no error (tsc --noEmit)', async () => {
    const tsc = path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const child = spawn(process.execPath, [tsc, '--noEmit', '-p', path.join(PROJECT_ROOT, 'tsconfig.json')], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(out.trim(), 'tsc --noEmit').toBe('');
    expect(code).toBe(0);
  });
});
