import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** The checksum algorithms a request may name in x-amz-checksum-<algorithm>. */
export const CHECKSUM_ALGORITHMS = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'] as const;

/** CRC-32C (Castagnoli), which node:zlib does not offer. */
const CRC32C_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32c(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC32C_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

function uint32(n: number): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(n >>> 0);
  return out.toString('base64');
}

/**
 * The base64 checksum of `body` as x-amz-checksum-<algorithm> carries it, for the algorithms Node
 * computes (SHA-1, SHA-256, CRC32); undefined for the others, which are then not judged.
 */
export function checksumOf(algorithm: string, body: Buffer): string | undefined {
  if (algorithm === 'sha1' || algorithm === 'sha256')
    return createHash(algorithm).update(body).digest('base64');
  if (algorithm === 'crc32') return uint32(crc32(body));
  return undefined;
}

/** As checksumOf, and CRC32C too, which multipart uploads are often created with. */
export const partChecksumOf = (algorithm: string, body: Buffer): string | undefined =>
  algorithm === 'crc32c' ? uint32(crc32c(body)) : checksumOf(algorithm, body);

/**
 * The composite checksum of a multipart upload, as Amazon S3 documents it: the algorithm applied to
 * the parts' binary checksums concatenated in part-number order, base64, then -N for the part count.
 */
export function compositeOf(algorithm: string, parts: string[]): string | undefined {
  const joined = Buffer.concat(parts.map((p) => Buffer.from(p, 'base64')));
  const digest = partChecksumOf(algorithm, joined);
  return digest === undefined ? undefined : `${digest}-${parts.length}`;
}

/** The base64 MD5 of `body`, as Content-MD5 carries it. */
export const md5Of = (body: Buffer): string => createHash('md5').update(body).digest('base64');

/** A Content-MD5 that is one (base64 of 16 bytes), as opposed to a malformed one (InvalidDigest's). */
export const wellFormedMd5 = (value: string): boolean =>
  /^[A-Za-z0-9+/]{22}==$/.test(value) && Buffer.from(value, 'base64').length === 16;

/** The codes a target refuses a checksum with: a correct checksum answered one of these was not accepted. */
export const CHECKSUM_REFUSALS = [
  'BadDigest',
  'XAmzContentChecksumMismatch',
  'InvalidDigest',
  'NotImplemented',
];
