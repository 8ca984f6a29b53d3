import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyFailure } from '../runner/run/property-failure.ts';

/** What fast-check throws when `predicate` fails for some integer. */
function failure(predicate: (n: number) => void, options: fc.Parameters<[number]> = {}): unknown {
  try {
    fc.assert(fc.property(fc.integer({ min: 0, max: 100 }), predicate), {
      seed: 7,
      numRuns: 200,
      ...options,
    });
  } catch (err) {
    return err;
  }
  throw new Error('the property held');
}

/** How many times `part` occurs in `text`. */
const count = (text: string, part: string) => text.split(part).length - 1;

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

  it('says the sentence once, first, when fast-check was told to put the error in its report', () => {
    const text = propertyFailure(
      failure(
        (n) => {
          if (n > 10) throw new Error(`HeadObject answered ${n} for the ETag`);
        },
        { includeErrorInReport: true },
      ),
    );
    const lines = text.split('\n');
    expect(lines[0]).toBe('HeadObject answered 11 for the ETag');
    expect(lines[1]).toMatch(/^Property failed after \d+ tests/);
    expect(count(text, 'HeadObject answered 11')).toBe(1);
    expect(text).not.toContain('Got error');
    expect(text).not.toMatch(/^\s+at /m);
    expect(count(text, 'Counterexample: [11]')).toBe(1);
    expect(count(text, 'Hint:')).toBe(1);
    expect(text).not.toMatch(/\n{3}/);
  });

  it('gives one report, the innermost, when a property asserts inside another', () => {
    const text = propertyFailure(
      failure((n) => {
        fc.assert(
          fc.property(fc.integer({ min: 0, max: 100 }), (m) => {
            if (m + n > 50) throw new Error(`listed ${m + n} keys`);
          }),
          { seed: 3 },
        );
      }),
    );
    const lines = text.split('\n');
    expect(lines[0]).toBe('listed 51 keys');
    expect(lines[1]).toMatch(/^Property failed after \d+ tests/);
    expect(count(text, 'Property failed after')).toBe(1);
    expect(count(text, 'Counterexample:')).toBe(1);
    expect(count(text, 'Hint:')).toBe(1);
    expect(count(text, 'listed 51 keys')).toBe(1);
  });

  it('keeps the failures verbose mode lists after the sentence', () => {
    const text = propertyFailure(
      failure(
        (n) => {
          if (n > 10) throw new Error(`answered ${n}`);
        },
        { verbose: 1 },
      ),
    );
    expect(text.split('\n')[0]).toBe('answered 11');
    expect(text).toContain('Encountered failures were:\n- [');
  });

  it('shows a value that came back empty as (empty), never as a blank between two spaces', () => {
    let caught: unknown;
    try {
      fc.assert(
        fc.property(fc.string(), (etag) => {
          if (etag.length < 3)
            throw new Error(`GET with If-Match ${etag} answered 200; Content-Range ${etag}`);
        }),
        { seed: 7 },
      );
    } catch (err) {
      caught = err;
    }
    const text = propertyFailure(caught);
    expect(text.split('\n')[0]).toBe('GET with If-Match (empty) answered 200; Content-Range (empty)');
    expect(text).toContain('Counterexample: [""]');
    expect(propertyFailure(new Error('PUT  answered 500'))).toBe('PUT (empty) answered 500');
    // A sentence whose lines are indented keeps them as they are.
    expect(propertyFailure(new Error('keys differ:\n  a\n  b'))).toBe('keys differ:\n  a\n  b');
  });
});
