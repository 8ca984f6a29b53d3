import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateBuffer, generateChunks } from '../runner/data/generate.ts';
import { BodyCollector, KEEP_BYTES } from '../runner/transports/response.ts';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

/** Feeds `chunks` to a collector told `announced`, and returns what it collected. */
function collect(chunks: Iterable<Buffer>, announced?: number, stopAtCap = false) {
  const c = new BodyCollector(stopAtCap, KEEP_BYTES, announced);
  for (const chunk of chunks) if (!c.push(chunk)) break;
  return c.done();
}

describe('BodyCollector with an announced length', () => {
  it('keeps a body announced and sent in chunks whole, byte for byte', () => {
    const size = 3 * 1024 * 1024 + 17;
    const body = collect(generateChunks(7, 0, size), size);
    expect(body.size).toBe(size);
    expect(body.truncated).toBe(false);
    expect(body.bytes.equals(generateBuffer(7, 0, size))).toBe(true);
  });

  it('keeps a body longer than announced whole too', () => {
    const size = 300 * 1024;
    const body = collect(generateChunks(8, 0, size), 100 * 1024);
    expect(body.size).toBe(size);
    expect(body.truncated).toBe(false);
    expect(body.bytes.equals(generateBuffer(8, 0, size))).toBe(true);
  });

  it('keeps a body shorter than announced as what came', () => {
    const body = collect(generateChunks(9, 0, 200 * 1024), 1024 * 1024);
    expect(body.size).toBe(200 * 1024);
    expect(body.bytes.equals(generateBuffer(9, 0, 200 * 1024))).toBe(true);
  });

  it('keeps a prefix and the digests of a body over the cap, announced or not', () => {
    const size = KEEP_BYTES + 100 * 1024;
    const whole = generateBuffer(10, 0, size);
    for (const announced of [undefined, size, KEEP_BYTES - 1]) {
      const body = collect(generateChunks(10, 0, size), announced);
      expect(body.size).toBe(size);
      expect(body.truncated).toBe(true);
      expect(body.bytes.equals(whole.subarray(0, 64 * 1024))).toBe(true);
      expect(body.md5).toBe(md5(whole));
    }
  });

  it('stops at the cap with a prefix when told to, even past an announced length', () => {
    const size = KEEP_BYTES + 100 * 1024;
    const body = collect(generateChunks(11, 0, size), 1024 * 1024, true);
    expect(body.cut).toBe(true);
    expect(body.truncated).toBe(true);
    expect(body.bytes.equals(generateBuffer(11, 0, 64 * 1024))).toBe(true);
  });
});

describe('digests of a kept body', () => {
  it('gives each algorithm asked for, alone or after the other', () => {
    const bytes = generateBuffer(12, 0, 200 * 1024);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(collect([bytes]).sha256).toBe(sha256);
    expect(collect([bytes]).md5).toBe(md5(bytes));
    const both = collect([bytes]);
    expect([both.md5, both.sha256]).toEqual([md5(bytes), sha256]);
  });
});
