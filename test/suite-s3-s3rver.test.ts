import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runEdgecheck } from '../runner/api.ts';
import type { RunResults } from '../runner/model/results.ts';
import type { Target } from '../runner/model/target.ts';
import { ROOT } from '../runner/util/paths.ts';

/*
 * A second, independent implementation: s3rver, an S3 emulator, runs the S3 suite and its clause
 * verdicts are compared with baselines/s3rver.yaml, which says for every clause s3rver fails what
 * was seen on the wire. Any change of verdict, either way, fails the test.
 */

const SEED = 20261122;
const BASELINE = path.join(ROOT, 'baselines', 's3rver.yaml');

// s3rver 3 on Node 20 needs the legacy OpenSSL provider for the cipher of its list cursors.
const LAUNCH = `
const S3rver = require('s3rver');
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.env.S3RVER_DIR });
server.run().then((a) => process.stdout.write(JSON.stringify({ port: a.port }) + '\\n'));
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
`;

interface Baseline {
  target: string;
  clauses: Record<string, { verdict: 'fail' | 'error'; reason: string }>;
}

let child: ChildProcess | undefined;
let dir: string | undefined;
let results: RunResults;

function startS3rver(directory: string): Promise<number> {
  child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', LAUNCH], {
    cwd: ROOT,
    env: { ...process.env, S3RVER_DIR: directory },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = child;
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`s3rver did not start within 20 s: ${err}`)), 20_000);
    proc.stderr?.on('data', (d) => {
      err += String(d);
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited with ${code}: ${err}`));
    });
    proc.stdout?.once('data', (d) => {
      clearTimeout(timer);
      resolve(JSON.parse(String(d)).port);
    });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-s3rver-'));
  const port = await startS3rver(dir);
  const target: Target = {
    name: 's3rver',
    features: [],
    s3: {
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      addressing: 'path',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    },
  };
  results = await runEdgecheck({ suites: ['s3'], target, seed: SEED, baseline: BASELINE });
}, 300_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the S3 suite against s3rver', () => {
  const baseline = parse(readFileSync(BASELINE, 'utf8')) as Baseline;

  it('has a one-line reason for every clause the baseline lists, and lists only S3 clauses', () => {
    const bad = Object.entries(baseline.clauses)
      .filter(([id, e]) => !id.startsWith('s3.') || !e.reason?.trim() || e.reason.includes('\n'))
      .map(([id]) => id);
    expect(bad).toEqual([]);
    expect(Object.keys(baseline.clauses).length).toBeGreaterThan(0);
  });

  it('fails exactly the clauses of baselines/s3rver.yaml, each the way it says', () => {
    const observed = Object.fromEntries(
      results.clauses
        .filter((c) => c.verdict === 'fail' || c.verdict === 'error')
        .map((c) => [c.id, c.verdict]),
    );
    const expected = Object.fromEntries(Object.entries(baseline.clauses).map(([id, e]) => [id, e.verdict]));
    expect(observed).toEqual(expected);
    expect(results.baseline).toMatchObject({ newFailures: [], fixed: [] });
  });

  it('judges every other testable clause: pass, or skipped for a feature s3rver lacks', () => {
    const other = results.clauses
      .filter((c) => !(c.id in baseline.clauses) && !c.untestable)
      .filter((c) => c.verdict !== 'pass' && !(c.verdict === 'skipped' && c.feature))
      .map((c) => `${c.id}: ${c.verdict}`);
    expect(other).toEqual([]);
  });
});
