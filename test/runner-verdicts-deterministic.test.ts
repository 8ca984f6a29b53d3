import { describe, expect, it } from 'vitest';
import type { RunResults } from '../runner/model/results.ts';
import { runInThread } from './helpers/in-thread.ts';

/*
 * A verdict never depends on timing: the same seed against the same reference gives the same
 * verdict for every check, whether the suites run alone, beside another run of themselves at
 * once, or narrowed to a few cases. Two whole runs go at once, each against a reference of its
 * own, so that each is slowed by the other as a busy machine slows a run; a narrowed run follows.
 */

const SEED = 20261202;
const AS_OF = '2026-12-02';

/** Every check's verdict, by case and index, with its message where it did not pass. */
function verdicts(r: RunResults): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of r.cases)
    for (const k of c.checks)
      out.set(
        `${c.id}#${k.index} ${k.step}`,
        k.verdict === 'pass' ? 'pass' : `${k.verdict}: ${k.message ?? ''}`,
      );
  return out;
}

/** The checks whose verdicts differ, each with both verdicts: empty when the runs agree. */
function differences(a: Map<string, string>, b: Map<string, string>, only?: Set<string>): string[] {
  const out: string[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    if (only && !only.has(key.split('#')[0])) continue;
    const x = a.get(key);
    const y = b.get(key);
    // A message may name the run's own resources; the verdict word is what must agree.
    if (x?.split(':')[0] !== y?.split(':')[0]) out.push(`${key}\n  one run:   ${x}\n  the other: ${y}`);
  }
  return out;
}

describe('the same seed gives the same verdict for every check', () => {
  let together: RunResults[];

  it('in two whole runs at once', async () => {
    together = await Promise.all([1, 2].map(() => runInThread({ seed: SEED, asOf: AS_OF })));
    const [a, b] = together.map(verdicts);
    expect(a.size).toBeGreaterThan(700);
    const found = differences(a, b);
    expect(found, found.join('\n')).toEqual([]);
  }, 300_000);

  it('in a run narrowed to a few cases, as in the whole run', async () => {
    const whole = verdicts(together[0]);
    const cases = [
      's3.get.full',
      's3.get.range-invalid',
      's3.prop.range-content-range-presence',
      's3.list.v1-marker',
    ];
    const narrowed = await runInThread({ seed: SEED, asOf: AS_OF, cases });
    const got = verdicts(narrowed);
    expect(got.size).toBeGreaterThan(5);
    const found = differences(whole, got, new Set(cases));
    expect(found, found.join('\n')).toEqual([]);
  }, 300_000);
});
