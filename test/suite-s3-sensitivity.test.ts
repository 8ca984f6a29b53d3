import { describe, expect, it } from 'vitest';
import { runAgainstEmbedded } from '../cli/embedded.ts';
import { FAULTS } from '../reference/faults.ts';
import { loadClauses } from '../runner/load/clauses.ts';
import type { RunResults } from '../runner/model/results.ts';

/*
 * Each S3 fault of the reference breaks one documented behaviour. With the fault on, the S3
 * clauses that fail or error must be exactly the ones the fault lists, and nothing else; with no
 * fault, every testable S3 clause passes. The seed is fixed so that the properties replay.
 */

const SEED = 20261122;
const faults = FAULTS.filter((f) => f.area === 's3');
const clauses = loadClauses(['s3']);

const broken = (r: RunResults) =>
  r.clauses
    .filter((c) => c.area === 's3' && (c.verdict === 'fail' || c.verdict === 'error'))
    .map((c) => c.id)
    .sort();

const why = (r: RunResults) =>
  r.clauses
    .filter((c) => c.verdict === 'fail' || c.verdict === 'error' || c.verdict === 'blocked')
    .map((c) => `${c.id}: ${c.verdict} ${(c.message ?? '').split('\n')[0].slice(0, 200)}`);

describe('the S3 suite against the reference', () => {
  it('passes every testable S3 clause of the fault-free reference: no fail, error or blocked', async () => {
    const r = await runAgainstEmbedded({ suites: ['s3'], seed: SEED });
    expect(why(r)).toEqual([]);
    const untested = r.clauses.filter((c) => c.verdict === 'untested' && !c.untestable).map((c) => c.id);
    expect(untested).toEqual([]);
    expect(r.summary.clauses.pass).toBeGreaterThan(100);
  }, 300_000);

  it('has S3 faults to catch, each listing clauses of the S3 catalog', () => {
    expect(faults.length).toBeGreaterThan(0);
    const unknown = faults.flatMap((f) =>
      f.breaks.filter((id) => !clauses.has(id)).map((id) => `${f.name}: ${id}`),
    );
    expect(unknown).toEqual([]);
    const uncaught = faults.filter((f) => f.breaks.length === 0).map((f) => f.name);
    expect(uncaught).toEqual([]);
  });

  // Whole-suite runs, one per fault: several at once, each with its own reference on its own ports.
  for (const fault of faults) {
    it.concurrent(`notices fault ${fault.name} by exactly the clauses it breaks`, async () => {
      const r = await runAgainstEmbedded({ suites: ['s3'], seed: SEED, reference: { faults: [fault.name] } });
      expect({ fault: fault.name, broken: broken(r) }).toEqual({
        fault: fault.name,
        broken: [...fault.breaks].sort(),
      });
    }, 300_000);
  }
});
