import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyFailure } from '../runner/run/property-failure.ts';

/** What fast-check throws when `predicate` fails for some integer. */
function failure(predicate: (n: number) => void): unknown {
  try {
    fc.assert(fc.property(fc.integer({ min: 0, max: 100 }), predicate), { seed: 7, numRuns: 200 });
  } catch (err) {
    return err;
  }
  throw new Error('the property held');
}

describe('a property failure reads as its own sentence first', () => {
  it("puts the property's sentence on the first line, then fast-check's counterexample, seed and hints", () => {
    const lines = propertyFailure(
      failure((n) => {
        if (n > 10) throw new Error(`ListObjectsV2 answered ${n + 1} keys for ${n} written`);
      }),
    ).split('\n');
    expect(lines[0]).toBe('ListObjectsV2 answered 12 keys for 11 written');
    const rest = lines.slice(1).join('\n');
    expect(rest).toMatch(/^Property failed after \d+ tests/);
    expect(rest).toContain('{ seed: 7,');
    expect(rest).toContain('Counterexample: [11]');
    expect(rest).toContain('Hint:');
  });

  it('keeps a sentence of several lines whole before the counterexample', () => {
    const text = propertyFailure(
      failure((n) => {
        if (n > 10) throw new Error('the listing skipped a key\nkeys asked: a, b');
      }),
    );
    expect(text.split('\n').slice(0, 3)).toEqual([
      'the listing skipped a key',
      'keys asked: a, b',
      expect.stringMatching(/^Property failed after/),
    ]);
  });

  it('leaves any other error as it is', () => {
    expect(propertyFailure(new Error('PutObject answered 500'))).toBe('PutObject answered 500');
  });
});
