import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_CREDENTIALS } from '../reference/context.ts';
import { type ReferenceHandle, startReference } from '../reference/server.ts';
import type { RunResults } from '../runner/model/results.ts';
import { runMain } from './helpers/cli.ts';

/*
 * A config file may name several targets (`targets:`), as `--target NAME=SPEC` does: paths are
 * relative to the config, and each target's own file sets its run settings.
 */

let dir: string;
let reference: ReferenceHandle;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-config-targets-'));
  mkdirSync(path.join(dir, 'targets'));
  reference = await startReference({ asOf: '2026-11-23' });
  // A target of its own file, with a request budget too small for the selected cases.
  writeFileSync(
    path.join(dir, 'targets', 'tight.yaml'),
    [
      's3:',
      `  endpoint: ${reference.urls.s3}`,
      '  accessKeyIdEnv: TIGHT_KEY',
      '  secretAccessKeyEnv: TIGHT_SECRET',
      'maxRequests: 3',
      '',
    ].join('\n'),
  );
  process.env.TIGHT_KEY = REFERENCE_CREDENTIALS.accessKeyId;
  process.env.TIGHT_SECRET = REFERENCE_CREDENTIALS.secretAccessKey;
});

afterAll(async () => {
  await reference?.close();
  delete process.env.TIGHT_KEY;
  delete process.env.TIGHT_SECRET;
  rmSync(dir, { recursive: true, force: true });
});

const read = (file: string): RunResults => JSON.parse(readFileSync(file, 'utf8'));
const failing = (r: RunResults) =>
  r.clauses
    .filter((c) => c.verdict === 'fail')
    .map((c) => c.id)
    .sort();

describe('a config file naming several targets', () => {
  it('runs the cases against each, one results file per target, each with its own settings', async () => {
    const config = path.join(dir, 'several.yaml');
    writeFileSync(
      config,
      [
        'asOf: 2026-11-23',
        'targets:',
        '  good: embedded',
        '  broken: embedded:s3-range-off-by-one',
        '  tight: targets/tight.yaml',
        '',
      ].join('\n'),
    );
    const out = path.join(dir, 'out', 'r.json');
    const r = await runMain([
      'run',
      '--config',
      config,
      '--suite',
      's3',
      '--case',
      's3.get.range-*',
      '--reporter',
      'console',
      '--reporter',
      `json=${out}`,
      '--exit-from',
      'good',
    ]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const good = read(path.join(dir, 'out', 'r.good.json'));
    const broken = read(path.join(dir, 'out', 'r.broken.json'));
    const tight = read(path.join(dir, 'out', 'r.tight.json'));
    expect(failing(good)).toEqual([]);
    expect(good.summary.clauses.pass).toBeGreaterThan(2);
    // What the fault breaks among the clauses the selected cases judge.
    expect(failing(broken)).toContain('s3.get.range-forms');
    expect(
      failing(broken).filter(
        (id) => !['s3.get.range-forms', 's3.get.range-inclusive', 's3.get.range-206'].includes(id),
      ),
    ).toEqual([]);
    // The tight target's own budget stopped its run; the others ran whole.
    const skipped = tight.cases
      .flatMap((c) => c.checks)
      .filter((k) => /request budget of 3/.test(k.message ?? ''));
    expect(skipped.length).toBeGreaterThan(0);
    expect(good.cases.flatMap((c) => c.checks).some((k) => /request budget/.test(k.message ?? ''))).toBe(
      false,
    );
    // The console ends with the side-by-side table naming the three.
    expect(r.stdout).toMatch(/good[\s\S]*broken[\s\S]*tight/);
  }, 120_000);

  it('refuses a config that names targets and describes one itself, and targets given twice', async () => {
    const both = path.join(dir, 'both.yaml');
    writeFileSync(
      both,
      ['targets:', '  a: embedded', 's3:', '  endpoint: http://127.0.0.1:9', ''].join('\n'),
    );
    const r = await runMain(['run', '--config', both]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /both\.yaml:3:1: a config with targets describes each target in its own file; move s3/,
      ),
    ]);
    const named = path.join(dir, 'named.yaml');
    writeFileSync(named, ['targets:', '  a: embedded', ''].join('\n'));
    const twice = await runMain(['run', '--config', named, '--target', 'b=embedded']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(
      /^edgecheck: --target: .*names its targets already; give them in one place\n$/,
    );
    const missing = path.join(dir, 'missing.yaml');
    writeFileSync(missing, ['targets:', '  a: nowhere.yaml', ''].join('\n'));
    const gone = await runMain(['run', '--config', missing]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/missing\.yaml targets\.a: no such config file 'nowhere\.yaml'/);
  });
});
