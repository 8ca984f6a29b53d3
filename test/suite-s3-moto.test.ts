import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference } from '../reference/server.ts';
import { runEdgecheck, today } from '../runner/api.ts';
import { runDiff } from '../runner/diff/run-diff.ts';
import { s3Model } from '../runner/diff/s3-model.ts';
import type { RunResults } from '../runner/model/results.ts';
import { ROOT } from '../runner/util/paths.ts';
import { holdsToBaseline } from './helpers/foreign-baseline.ts';
import { type ForeignServer, haveMoto, startMoto } from './helpers/foreign-servers.ts';
import { recordNotRun } from './helpers/not-run.ts';

/*
 * A third implementation nobody here wrote: moto, the AWS emulator, runs the S3 suite signed for
 * us-east-1 (it refuses CreateBucket signed for auto, which s3.region.auto judges) and its clause
 * verdicts are held to baselines/moto.yaml, every departure of which test/truth-baselines.test.ts
 * shows with botocore and plain HTTP. Any change of verdict, either way, fails the test.
 */

const SEED = 20261125;
const BASELINE = path.join(ROOT, 'baselines', 'moto.yaml');
const HAVE_MOTO = haveMoto();
if (!HAVE_MOTO) {
  recordNotRun({
    what: 'the S3 suite against moto (test/suite-s3-moto.test.ts)',
    why: 'no moto_server on PATH',
    remedy: "pip install 'moto[server]'",
  });
}

describe.skipIf(!HAVE_MOTO)('the S3 suite against moto', () => {
  let server: ForeignServer;
  let results: RunResults;

  beforeAll(async () => {
    server = await startMoto();
    results = await runEdgecheck({
      suites: ['s3'],
      target: { name: 'moto', features: [], s3: server.s3 },
      seed: SEED,
      baseline: BASELINE,
    });
  }, 300_000);

  afterAll(async () => {
    await server?.close();
  });

  holdsToBaseline('moto', BASELINE, () => results);

  /*
   * The differential mode on a foreign target: vendor request ids and dates are set aside whatever
   * their header's name, headers no clause names count by presence, and a difference is counted
   * once whichever command shows it, so what comes first is what a user would act on.
   */
  it('edgecheck diff against the reference puts first what a user acts on: 4 of the first 5 a clause decides or a status or body shows', async () => {
    const reference = await startReference({ asOf: today() });
    try {
      const report = await runDiff(
        [
          { name: 'reference', s3: reference.target().s3! },
          { name: 'moto', s3: server.s3 },
        ],
        { runId: 'toydiffmoto', seed: 7, runs: 100, maxLength: 6, maxDifferences: 5, timeoutMs: 5000 },
        s3Model('toydiffmodel'),
      );
      const first = report.findings.slice(0, 5);
      expect(first).toHaveLength(5);
      const actionable = first.filter(
        (f) => f.clauses.length > 0 || ['status', 'error-code', 'body'].includes(f.difference.aspect),
      );
      expect(actionable.length, first.map((f) => f.signature).join('\n')).toBeGreaterThanOrEqual(4);
      // Noise that used to crowd them out: ids and dates under a vendor's header names.
      expect(first.map((f) => f.signature).join('\n')).not.toMatch(
        /requestid|request-id|last-modified|x-amz-id-2/i,
      );
    } finally {
      await reference.close();
    }
  }, 120_000);
});
