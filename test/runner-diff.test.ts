import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTS } from '../reference/faults.ts';
import { type ReferenceHandle, startReference } from '../reference/server.ts';
import { today } from '../runner/api.ts';
import { dnsModel } from '../runner/diff/dns-model.ts';
import { rulesetModel } from '../runner/diff/ruleset-model.ts';
import { type DiffModel, type DiffSide, runDiff } from '../runner/diff/run-diff.ts';
import { s3Model } from '../runner/diff/s3-model.ts';
import { runMain } from './helpers/cli.ts';

/*
 * The differential mode against the reference and the reference with one fault on: it finds the
 * difference, shrinks it to a short sequence and names the clause the fault breaks; against the
 * reference and itself it finds nothing in 500 sequences.
 */

const references: ReferenceHandle[] = [];

async function side(name: string, faults: string[] = []): Promise<DiffSide> {
  const r = await startReference({ asOf: today(), faults });
  references.push(r);
  return { name, s3: r.target().s3! };
}

afterAll(async () => {
  await Promise.all(references.map((r) => r.close()));
});

describe('edgecheck diff, reference against reference', () => {
  let plain: DiffSide;
  beforeAll(async () => {
    plain = await side('reference');
  });

  it('finds no difference between the reference and another of itself in 500 sequences', async () => {
    const report = await runDiff(
      [plain, await side('again')],
      {
        runId: 'toydiff0001',
        seed: 20261123,
        runs: 500,
        maxLength: 6,
        maxDifferences: 1,
      },
      s3Model('toydiffmodel'),
    );
    expect(report.findings).toEqual([]);
    expect(report.sequences).toBe(500);
    expect(report.leftovers).toEqual([]);
  }, 120_000);

  for (const fault of ['s3-range-reversed-416', 's3-cond-none-match-first', 's3-range-off-by-one']) {
    it(`finds ${fault}, shrunk to at most 3 commands and labelled with a clause the fault breaks`, async () => {
      const breaks = FAULTS.find((f) => f.name === fault)!.breaks;
      const report = await runDiff(
        [plain, await side('faulty', [fault])],
        {
          runId: `toydiff${fault.length}`,
          seed: 11,
          runs: 300,
          maxLength: 6,
          maxDifferences: 3,
        },
        s3Model('toydiffmodel'),
      );
      expect(report.findings.length).toBeGreaterThan(0);
      const first = report.findings[0];
      expect(first.sequence.length).toBeLessThanOrEqual(3);
      expect(first.clauses.filter((c) => breaks.includes(c))).not.toEqual([]);
      // The replay of the shrunk sequence shows the same difference.
      const again = await runDiff(
        [plain, references.at(-1)! && { name: 'faulty', s3: references.at(-1)!.target().s3! }],
        {
          runId: `toyreplay${fault.length}`,
          seed: first.seed,
          runs: 1,
          maxLength: 6,
          maxDifferences: 1,
          replay: { seed: first.seed, path: first.path },
        },
        s3Model('toydiffmodel'),
      );
      expect(again.findings[0]?.signature).toBe(first.signature);
    }, 120_000);
  }
});

const managementSide = async (name: string, faults: string[] = []): Promise<DiffSide> => {
  const r = await startReference({ asOf: today(), faults });
  references.push(r);
  return { name, management: r.target().management };
};

/** A management model's tests: nothing found against the reference itself, and each of `faults` found. */
function managementModelTests<C, S>(
  what: string,
  id: string,
  seed: number,
  model: (runId: string) => DiffModel<C, S>,
  faults: string[],
): void {
  describe(`edgecheck diff over ${what}, reference against reference`, () => {
    it('finds no difference between the reference and another of itself in 200 sequences', async () => {
      const runId = `${id}00001`;
      const report = await runDiff(
        [await managementSide('reference'), await managementSide('again')],
        { runId, seed, runs: 200, maxLength: 6, maxDifferences: 1 },
        model(runId),
      );
      expect(report.findings).toEqual([]);
      expect(report.sequences).toBe(200);
      expect(report.leftovers).toEqual([]);
    }, 120_000);

    for (const fault of faults) {
      it(`finds ${fault}, shrunk to at most 3 commands and labelled with a clause the fault breaks`, async () => {
        const breaks = FAULTS.find((f) => f.name === fault)!.breaks;
        const runId = `${id}00002`;
        const report = await runDiff(
          [await managementSide('reference'), await managementSide('faulty', [fault])],
          { runId, seed, runs: 200, maxLength: 6, maxDifferences: 2 },
          model(runId),
        );
        expect(report.findings.length).toBeGreaterThan(0);
        expect(report.findings[0].sequence.length).toBeLessThanOrEqual(3);
        expect(report.findings[0].clauses.filter((c) => breaks.includes(c))).not.toEqual([]);
        expect(report.leftovers).toEqual([]);
      }, 120_000);
    }
  });
}

managementModelTests('DNS records', 'toydns', 5, dnsModel, [
  'relative-record-name',
  'patch-replaces-record',
  'dns-ttl-as-string',
]);
managementModelTests('account rulesets', 'toyrs0', 7, rulesetModel, [
  'put-appends-rules',
  'rule-patch-ignored',
  'ruleset-name-ignored',
]);

describe('edgecheck diff, where SPEC departs from Amazon S3', () => {
  it('says so beside the finding, with what Amazon S3 does, and counts such findings', async () => {
    // The shrunk sequence of the fault that reads only the first ETag of an If-Match list, as Amazon S3 would.
    const r = await runMain([
      'diff',
      'a=embedded',
      'b=embedded:s3-cond-etag-list-first-only',
      '--area',
      's3',
      '--replay',
      '11:23:1:2:2:5:5:5',
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('[s3.cond.etag-list, s3.cond.get-not-modified]');
    expect(r.stdout).toContain(
      '   SPEC departs from Amazon S3 in s3.cond.etag-list; Amazon S3: compares If-Match and If-None-Match with one ETag; a list is not split\n',
    );
    // s3.cond.get-not-modified is Amazon S3's own behaviour: not named as a departure.
    expect(r.stdout).not.toContain('in s3.cond.get-not-modified');
    expect(r.stdout).toContain(
      '1 difference (1 where SPEC departs from Amazon S3: there a target may be doing as Amazon S3 does)',
    );
  }, 60_000);
});
