import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** The checksum algorithms a request may name in x-amz-checksum-<algorithm>. */
export const CHECKSUM_ALGORITHMS = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'] as const;

/**
 * The base64 checksum of `body` as x-amz-checksum-<algorithm> carries it, for the algorithms Node
 * computes (SHA-1, SHA-256, CRC32); undefined for the others, which are then not judged.
 */
export function checksumOf(algorithm: string, body: Buffer): string | undefined {
  if (algorithm === 'sha1' || algorithm === 'sha256')
    return createHash(algorithm).update(body).digest('base64');
  if (algorithm === 'crc32') {
    const out = Buffer.alloc(4);
    out.writeUInt32BE(crc32(body) >>> 0);
    return out.toString('base64');
  }
  return undefined;
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
