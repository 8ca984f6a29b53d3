import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** CRC-32C (Castagnoli), which node:zlib does not offer; a table is fast enough for part checksums. */
const CRC32C_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32c(data: Buffer, previous = 0): number {
  let c = ~previous >>> 0;
  for (const byte of data) c = CRC32C_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** Algorithms whose composite (checksum of the part checksums) the reference computes. */
export const COMPOSITE = ['sha256', 'sha1', 'crc32', 'crc32c'] as const;

/**
 * The checksum of a completed multipart upload, as Amazon S3 documents it: the algorithm applied to
 * the concatenated binary checksums of the parts, base64, then `-N` for the part count.
 */
export function compositeChecksum(alg: string, parts: string[]): string | undefined {
  if (!(COMPOSITE as readonly string[]).includes(alg)) return undefined;
  const joined = Buffer.concat(parts.map((p) => Buffer.from(p, 'base64')));
  const digest =
    alg === 'crc32'
      ? uint32(crc32(joined))
      : alg === 'crc32c'
        ? uint32(crc32c(joined))
        : createHash(alg).update(joined).digest();
  return `${digest.toString('base64')}-${parts.length}`;
}
