import { describe, expect, it } from 'vitest';
import { type CliOutcome, runMain, STACK_LINE } from './helpers/cli.ts';

/** Exactly one line on stderr, `edgecheck: <line>`, exit 2, no stack trace. */
function expectOneLine(r: CliOutcome, line: string) {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toBe(`edgecheck: ${line}\n`);
  expect(r.stdout).not.toMatch(STACK_LINE);
}

describe('numbers in flags: one line saying what to write', () => {
  it('negative, fractional, exponent, hex, padded or partly numeric values', async () => {
    for (const [flag, value, range] of [
      ['--timeout', '-1', '100 to 3600000'],
      ['--timeout', '1e3', '100 to 3600000'],
      ['--timeout', '12abc', '100 to 3600000'],
      ['--timeout', '0x100', '100 to 3600000'],
      ['--timeout', ' 500', '100 to 3600000'],
      ['--concurrency', 'abc', '1 to 256'],
      ['--concurrency', '-0.5', '1 to 256'],
      ['--seed', '-5', '0 to 2147483647'],
    ]) {
      expectOneLine(
        await runMain(['run', flag, value]),
        `${flag} ${value}: write a whole number from ${range}`,
      );
    }
  });

  it('the same with --flag=value, an empty value, and in serve', async () => {
    expectOneLine(
      await runMain(['run', '--timeout=-1']),
      '--timeout -1: write a whole number from 100 to 3600000',
    );
    expectOneLine(
      await runMain(['run', '--timeout=']),
      "--timeout '': write a whole number from 100 to 3600000",
    );
    expectOneLine(
      await runMain(['serve', '--port', '-1']),
      '--port -1: write a whole number from 1 to 65533',
    );
  });

  it('a value starting with a dash that is not a number says how to write it', async () => {
    expectOneLine(
      await runMain(['run', '--name', '-x']),
      "--name: needs a value; write one that starts with '-' as --name=VALUE; see 'edgecheck run --help'",
    );
  });
});
