import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from './helpers/cli.ts';

/**
 * Every clause says how observed traffic judges it (`passive:`, or a property's `observe`) or, in
 * `unobservable:`, why it cannot (an `untestable` clause needs nothing more). The fixture,
 * test/fixtures/engine/lint/passive-reasons, holds one clause of each; the tests plant a change.
 */
const FIXTURE = 'test/fixtures/engine/lint/passive-reasons';
const PLANTED = mkdtempSync(path.join(tmpdir(), 'edgecheck-passive-reasons-'));
afterAll(() => rmSync(PLANTED, { recursive: true, force: true }));

let planted = 0;
/** The fixture with its clauses.yaml changed by `edit`; returns the folder and the file. */
function plant(edit: (text: string) => string): { root: string; file: string } {
  const root = path.join(PLANTED, `case-${++planted}`);
  cpSync(FIXTURE, root, { recursive: true });
  const file = path.join(root, 's3/clauses.yaml');
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
  return { root, file };
}

const problemLines = (stderr: string) => stderr.split('\n').filter((l) => l !== '');

describe('a clause that says neither how traffic judges it nor why it cannot', () => {
  it('is an error at its id, saying what to add', async () => {
    const { root, file } = plant((t) =>
      t.replace(
        '    unobservable: that the key is gone shows only in a later read, which another writer may have changed\n',
        '',
      ),
    );
    const r = await runMain(['lint', '--suites-dir', root]);
    expect(problemLines(r.stderr)).toEqual([
      `${file}:14:9: error: clause 's3.lint.stored' says neither how observed traffic judges it nor why it cannot: add passive: checks (docs/case-format.md), or unobservable: <why, in one line>`,
    ]);
    expect(r.stdout).toMatch(
      /^edgecheck lint: 4 clauses \(2 judgeable from observed traffic, 1 not, with reasons, 1 saying neither\), .*; 1 error\(s\), 0 warning\(s\)\n$/,
    );
    expect(r.code).toBe(2);
  });
});

describe('a clause that says both', () => {
  it('is an error when its passive checks are declared', async () => {
    const { root, file } = plant((t) =>
      t.replace(
        '    title: A ranged answer says which bytes it holds\n',
        '    title: A ranged answer says which bytes it holds\n    unobservable: no answer shows it\n',
      ),
    );
    const r = await runMain(['lint', '--suites-dir', root]);
    expect(problemLines(r.stderr)).toEqual([
      `${file}:5:9: error: clause 's3.lint.declared' is judged from observed traffic (by its passive checks), yet says unobservable; remove unobservable`,
    ]);
    expect(r.code).toBe(2);
  });

  it("is an error when a property's observer judges it", async () => {
    const { root, file } = plant((t) =>
      t.replace(
        '    title: Ranges are inclusive\n',
        '    title: Ranges are inclusive\n    unobservable: no answer shows it\n',
      ),
    );
    const r = await runMain(['lint', '--suites-dir', root]);
    expect(problemLines(r.stderr)).toEqual([
      `${file}:11:9: error: clause 's3.lint.observed' is judged from observed traffic (by property lint.prop.observed-ranges), yet says unobservable; remove unobservable`,
    ]);
    expect(r.code).toBe(2);
  });

  it('is an error when it is untestable too, which already says why', async () => {
    const { root, file } = plant((t) =>
      t.replace(
        '    untestable: no response reveals a hint\n',
        '    untestable: no response reveals a hint\n    unobservable: no answer shows it\n',
      ),
    );
    const r = await runMain(['lint', '--suites-dir', root]);
    expect(problemLines(r.stderr)).toEqual([
      `${file}:18:9: error: clause 's3.lint.hint' is untestable, which already says why traffic cannot judge it; remove unobservable`,
    ]);
    expect(r.code).toBe(2);
  });
});

describe('lint --passive', () => {
  it('lists the clauses traffic judges, by what, then those it cannot, each with why', async () => {
    const r = await runMain(['lint', '--suites-dir', FIXTURE, '--passive']);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toEqual([
      'judged from observed traffic (2):',
      '  s3.lint.declared  A ranged answer says which bytes it holds  (by clauses.yaml)',
      '  s3.lint.observed  Ranges are inclusive  (by lint.prop.observed-ranges)',
      'not judgeable from observed traffic (2):',
      '  s3.lint.stored  that the key is gone shows only in a later read, which another writer may have changed',
      '  s3.lint.hint  untestable: no response reveals a hint',
      'edgecheck lint: 4 clauses (2 judgeable from observed traffic, 2 not, with reasons), 1 cases, 1 properties, 3 checks; 0 error(s), 0 warning(s)',
      '',
    ]);
    expect(r.code).toBe(0);
  });
});
