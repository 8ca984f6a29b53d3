import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateBuffer, generateChunks, generatedDigest, generateStream } from '../runner/data/generate.ts';

const SIZE = 200_000; // more than three 64 KiB chunks, so ranges cross chunk and block edges
const whole = generateBuffer(42, 0, SIZE);

describe('generated payloads', () => {
  it('have the asked size, and empty ranges are empty', () => {
    expect(whole.length).toBe(SIZE);
    expect(generateBuffer(42, 10, 10).length).toBe(0);
    expect(generateBuffer(42, 10, 5).length).toBe(0);
  });

  it('are seekable: any range equals the same slice of the whole (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: SIZE }), fc.integer({ min: 0, max: SIZE }), (a, b) => {
        const [start, end] = a <= b ? [a, b] : [b, a];
        expect(generateBuffer(42, start, end).equals(whole.subarray(start, end))).toBe(true);
      }),
      { numRuns: 60, seed: 1 },
    );
  });

  it('are seekable at the awkward offsets: block edges, chunk edges, the last byte', () => {
    for (const [start, end] of [
      [15, 17],
      [16, 32],
      [65_535, 65_537],
      [65_536, 131_073],
      [SIZE - 1, SIZE],
      [0, 1],
    ]) {
      expect(generateBuffer(42, start, end).equals(whole.subarray(start, end))).toBe(true);
    }
  });

  it('are deterministic per seed', () => {
    expect(generateBuffer(42, 0, SIZE).equals(whole)).toBe(true);
    expect(generateBuffer(0, 0, 64).equals(generateBuffer(0, 0, 64))).toBe(true);
  });

  it('differ between seeds', () => {
    expect(generateBuffer(43, 0, 64).equals(whole.subarray(0, 64))).toBe(false);
    const firsts = new Set([0, 1, 2, 3, 4, 5, 6, 7].map((s) => generateBuffer(s, 0, 32).toString('hex')));
    expect(firsts.size).toBe(8);
  });

  it('are not trivially patterned: every byte value occurs in a large sample', () => {
    expect(new Set(whole.subarray(0, 65_536)).size).toBe(256);
  });

  it('digests, chunks and streams agree with the buffer', async () => {
    const sha = createHash('sha256').update(whole.subarray(1000, 150_000)).digest('hex');
    expect(generatedDigest('sha256', 42, 1000, 150_000)).toBe(sha);
    expect(generatedDigest('md5', 42, 0, SIZE)).toBe(createHash('md5').update(whole).digest('hex'));
    // Digests are kept by algorithm and range: each asked again is still its own algorithm's.
    expect(generatedDigest('sha256', 42, 0, SIZE)).toBe(createHash('sha256').update(whole).digest('hex'));
    expect(generatedDigest('md5', 42, 1000, 150_000)).toBe(
      createHash('md5').update(whole.subarray(1000, 150_000)).digest('hex'),
    );
    expect(generatedDigest('sha256', 42, 1000, 150_000)).toBe(sha);
    const chunks = [...generateChunks(42, 7, SIZE)];
    expect(chunks.length).toBeGreaterThan(1);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(64 * 1024);
    expect(Buffer.concat(chunks).equals(whole.subarray(7))).toBe(true);
    const streamed: Buffer[] = [];
    for await (const c of generateStream(42, 99, 70_000)) streamed.push(c as Buffer);
    expect(Buffer.concat(streamed).equals(whole.subarray(99, 70_000))).toBe(true);
  });
});
