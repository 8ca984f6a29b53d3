import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResults } from '../runner/model/results.ts';
import { SUITES_DIR } from '../runner/util/paths.ts';
import { BIN, cleanEnv } from './helpers/cli.ts';

/*
 * A copy of suites/ in a temporary folder, with no package.json and no node_modules anywhere above
 * it, run by the CLI from that folder against the embedded reference: its properties import
 * edgecheck/kit, which must resolve to this installation, and must load as ES modules.
 */

const run = promisify(execFile);

// A few properties of each area, together using every kind of helper the kit offers.
const PROPERTIES = [
  's3.prop.range-bytes', // the seekable generator
  's3.prop.mpu-etag', // raw signed requests on a connection pool of the property's own
  's3.prop.cond-weak',
  's3.prop.list-key-count', // XML parsing, key arbitraries
  's3.prop.virtual-hosted', // the .localhost lookup
  's3.prop.presign-expired', // the SigV4 signer
  'mgmt.lcf.params-shape', // the schema registry
  'mgmt.pagination.past-end-empty',
  'dep.security-level.under-attack-from', // a support file of another area
];

let dir: string;
let outcome: { stdout: string; stderr: string; code: number };

beforeAll(async () => {
  // Real path: the run reports files relative to its working directory, which is the real one.
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'edgecheck-suites-copy-')));
  cpSync(SUITES_DIR, path.join(dir, 'suites'), { recursive: true });
  const args = [BIN, 'run', '--suites-dir', path.join(dir, 'suites'), '--reporter', 'console'];
  for (const id of PROPERTIES) args.push('--case', id);
  args.push('--reporter', `json=${path.join(dir, 'results.json')}`);
  outcome = await run(process.execPath, args, { cwd: dir, env: cleanEnv(), timeout: 90_000 }).then(
    ({ stdout, stderr }) => ({ stdout, stderr, code: 0 }),
    (err) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? String(err), code: err.code ?? -1 }),
  );
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a copy of the suites outside the project, run with --suites-dir', () => {
  it('exits 0', () => {
    expect(outcome.code, `${outcome.stderr}\n${outcome.stdout}`).toBe(0);
  });

  it('loads the selected properties from the copy, and each one passes', () => {
    const file = path.join(dir, 'results.json');
    expect(existsSync(file), `no results written; the run printed:\n${outcome.stderr}`).toBe(true);
    const results: RunResults = JSON.parse(readFileSync(file, 'utf8'));
    const verdicts = results.cases.map((c) => ({
      id: c.id,
      verdict: c.verdict,
      fromCopy: path.resolve(dir, c.file).startsWith(path.join(dir, 'suites') + path.sep),
    }));
    expect(verdicts.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [...PROPERTIES].sort().map((id) => ({ id, verdict: 'pass', fromCopy: true })),
    );
  });
});
