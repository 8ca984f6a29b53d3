import { createCipheriv, createHash } from 'node:crypto';
import { Readable } from 'node:stream';

/**
 * Deterministic, seekable payloads: the AES-128-CTR keystream of a key derived from the seed.
 * Byte n of (size, seed) is the same whatever range is asked for, so a ranged GET can be
 * compared without holding the object, and large bodies stream at memory speed.
 */
const CHUNK = 64 * 1024;

function keyFor(seed: number): Buffer {
  return createHash('sha256').update(`edgecheck-generator:${seed}`).digest().subarray(0, 16);
}

function counterBlock(blockIndex: number): Buffer {
  const iv = Buffer.alloc(16);
  iv.writeBigUInt64BE(BigInt(blockIndex), 8);
  return iv;
}

/** Bytes [start, end) of the stream for `seed`, as a sequence of chunks. */
export function* generateChunks(seed: number, start: number, end: number): Generator<Buffer> {
  if (end <= start) return;
  const firstBlock = Math.floor(start / 16);
  const cipher = createCipheriv('aes-128-ctr', keyFor(seed), counterBlock(firstBlock));
  let pos = firstBlock * 16;
  const zeros = Buffer.alloc(CHUNK);
  while (pos < end) {
    // CTR is a stream cipher: updates need not be block-aligned, only the start is.
    const n = Math.min(CHUNK, end - pos);
    let chunk = cipher.update(zeros.subarray(0, n));
    const chunkStart = pos;
    pos += n;
    if (chunkStart < start) chunk = chunk.subarray(start - chunkStart);
    if (chunk.length) yield chunk;
  }
}

/** Bytes [start, end) in one buffer, each chunk copied in as it comes: a list of them beside the
 * joined copy would hold the body twice. */
export function generateBuffer(seed: number, start: number, end: number): Buffer {
  const out = Buffer.allocUnsafe(Math.max(0, end - start));
  let at = 0;
  for (const chunk of generateChunks(seed, start, end)) at += chunk.copy(out, at);
  return out;
}

/** `onSent` hears the running count of bytes the reader has taken, chunk by chunk. */
export function generateStream(
  seed: number,
  start: number,
  end: number,
  onSent?: (sent: number, total: number) => void,
): Readable {
  const chunks = generateChunks(seed, start, end);
  if (!onSent) return Readable.from(chunks, { objectMode: false });
  const total = Math.max(0, end - start);
  return Readable.from(counted(chunks, total, onSent), { objectMode: false });
}

function* counted(
  chunks: Generator<Buffer>,
  total: number,
  onSent: (sent: number, total: number) => void,
): Generator<Buffer> {
  let sent = 0;
  for (const chunk of chunks) {
    yield chunk;
    // Counted once the reader asks for the next one: the chunk has left the generator.
    sent += chunk.length;
    onSent(sent, total);
  }
}

/** Digests already taken, by algorithm, seed and range: a generated range's bytes never change. */
const digests = new Map<string, string>();
/** A few hundred ranges: a run's multipart parts and their reads, and the next run's alike. */
const DIGESTS_KEPT = 512;

/**
 * Digest of a generated range without holding it, kept: a run repeated with the same seed (the
 * fault-sensitivity tests run hundreds) asks for the same ranges again. Only the algorithm asked
 * for is taken: most ranges are asked for one.
 */
export function generatedDigest(
  algorithm: 'md5' | 'sha256',
  seed: number,
  start: number,
  end: number,
): string {
  const key = `${algorithm}:${seed}:${start}:${end}`;
  let kept = digests.get(key);
  if (kept === undefined) {
    const h = createHash(algorithm);
    for (const c of generateChunks(seed, start, end)) h.update(c);
    kept = h.digest('hex');
    // The oldest goes first: a Map iterates in insertion order.
    if (digests.size >= DIGESTS_KEPT) digests.delete(digests.keys().next().value as string);
    digests.set(key, kept);
  }
  return kept;
}
