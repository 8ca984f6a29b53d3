import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { paginate } from '../reference/s3/listing.ts';
import { parseRange } from '../reference/s3/ranges.ts';

/** What one listing should contain: keys under the prefix, rolled up at the first delimiter after it. */
function model(keys: string[], prefix: string, delimiter: string): string[] {
  const out = new Set<string>();
  for (const k of keys) {
    if (!k.startsWith(prefix)) continue;
    const i = delimiter ? k.indexOf(delimiter, prefix.length) : -1;
    out.add(i < 0 ? k : k.slice(0, i + delimiter.length));
  }
  return [...out].sort();
}

const keyArb = fc.stringMatching(/^[ab/]{1,5}$/);

describe('S3 listing pages', () => {
  it('following the cursor returns every key and common prefix once, in order, pages never over max-keys', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(keyArb, { maxLength: 25 }),
        fc.constantFrom('', 'a', 'b/'),
        fc.constantFrom('', '/'),
        fc.integer({ min: 1, max: 6 }),
        (keys, prefix, delimiter, max) => {
          const sorted = [...keys].sort().map((k) => [k, k] as [string, string]);
          const seen: string[] = [];
          let after = '';
          for (let pages = 0; pages < 100; pages++) {
            const page = paginate(sorted, { prefix, delimiter, after, max, cursorAtMax: () => false });
            expect(page.items.length + page.prefixes.length).toBeLessThanOrEqual(max);
            seen.push(...[...page.items, ...page.prefixes].sort());
            if (!page.truncated) break;
            // A cursor is only handed out when something follows (SPEC behaviour 13).
            expect(page.last).toBeDefined();
            after = page.last!;
          }
          expect(seen).toEqual(model(keys, prefix, delimiter));
        },
      ),
    );
  });

  it('is not truncated when exactly max-keys entries remain', () => {
    fc.assert(
      fc.property(fc.uniqueArray(keyArb, { minLength: 1, maxLength: 20 }), (keys) => {
        const sorted = [...keys].sort().map((k) => [k, k] as [string, string]);
        const page = paginate(sorted, {
          prefix: '',
          delimiter: '',
          after: '',
          max: keys.length,
          cursorAtMax: () => false,
        });
        expect(page.truncated).toBe(false);
        expect(page.items.length).toBe(keys.length);
      }),
    );
  });
});

describe('S3 byte ranges', () => {
  it('are inclusive and clipped to the object, as Amazon S3 serves them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.nat(60), fc.nat(60), (size, a, b) => {
        const first = Math.min(a, b);
        const last = Math.max(a, b);
        if (first >= size) {
          expect(() => parseRange(`bytes=${first}-${last}`, size)).toThrow();
          return;
        }
        expect(parseRange(`bytes=${first}-${last}`, size)).toEqual({
          start: first,
          end: Math.min(last, size - 1),
        });
        expect(parseRange(`bytes=${first}-`, size)).toEqual({ start: first, end: size - 1 });
        if (a > 0)
          expect(parseRange(`bytes=-${a}`, size)).toEqual({ start: Math.max(0, size - a), end: size - 1 });
      }),
    );
  });

  it('ignore what is not a single byte range', () => {
    for (const h of ['bytes=0-1,3-4', 'items=0-1', 'bytes=5-2', 'bytes=-'])
      expect(parseRange(h, 10)).toBeUndefined();
  });
});
