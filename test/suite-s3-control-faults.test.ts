import { describe, expect, it } from 'vitest';
import { runAgainstEmbedded } from '../cli/embedded.ts';
import { FAULTS } from '../reference/faults.ts';

/*
 * A control fault changes only the form of an answer that no clause states (a part ETag without
 * its quotes): with it on, the whole S3 suite must still pass. A check that fails on it asks more
 * than its clause says.
 */

const controls = FAULTS.filter((f) => f.area === 's3' && f.breaks.length === 0);

describe('S3 control faults', () => {
  it('are named as controls, and there is one at least', () => {
    expect(controls.length).toBeGreaterThan(0);
    for (const f of controls) expect(f.description).toMatch(/^Control: /);
  });

  for (const fault of controls) {
    it(`fail no S3 clause: ${fault.name}`, async () => {
      const r = await runAgainstEmbedded({
        suites: ['s3'],
        seed: 20261122,
        reference: { faults: [fault.name] },
      });
      const wrong = r.clauses
        .filter((c) => c.area === 's3' && ['fail', 'error', 'blocked'].includes(c.verdict))
        .map((c) => `${c.id}: ${c.verdict} ${(c.message ?? '').split('\n')[0].slice(0, 200)}`);
      expect({ fault: fault.name, wrong }).toEqual({ fault: fault.name, wrong: [] });
      expect(r.summary.clauses.pass).toBeGreaterThan(100);
    }, 600_000);
  }
});
