import { createHash, type Hash } from 'node:crypto';
import type http from 'node:http';
import { PassThrough, type Readable, Transform, type TransformCallback } from 'node:stream';
import { crc32 } from 'node:zlib';
import { AwsChunkedDecoder } from './chunked.ts';
import { S3Error } from './errors.ts';
import type { ChunkSignature } from './sigv4.ts';

/** Checksum algorithms the reference verifies; others (crc32c, crc64nvme) are stored as sent. */
const VERIFIED = ['sha256', 'sha1', 'crc32'] as const;
type Verified = (typeof VERIFIED)[number];

const SNIFF_BYTES = 512;

export interface BodyDigest {
  size: number;
  md5: Buffer;
  /** The first bytes, for Content-Type inference. */
  head: Buffer;
  /** Checksums the client sent (header or trailer), by algorithm, base64; verified where the reference can. */
  checksums: Record<string, string>;
  /** Algorithms whose checksum (md5: the Content-MD5) did not match though they were left unverified (faults that check late). */
  mismatched: string[];
}

export interface IncomingBody {
  /** The decoded body bytes. */
  stream: Readable;
  /** After `stream` ended: sizes and digests, or an S3Error when a digest the client sent does not match. */
  finish(): BodyDigest;
}

function headerOf(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

class Digester extends Transform {
  size = 0;
  head = Buffer.alloc(0);
  readonly md5 = createHash('md5');
  readonly extra = new Map<string, Hash>();
  crc = 0;
  constructor(private readonly wants: Set<string>) {
    super();
    for (const alg of ['sha256', 'sha1'] as const) if (wants.has(alg)) this.extra.set(alg, createHash(alg));
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    if (this.head.length < SNIFF_BYTES) {
      this.head = Buffer.concat([this.head, chunk.subarray(0, SNIFF_BYTES - this.head.length)]);
    }
    this.size += chunk.length;
    this.md5.update(chunk);
    for (const h of this.extra.values()) h.update(chunk);
    if (this.wants.has('crc32')) this.crc = crc32(chunk, this.crc);
    callback(null, chunk);
  }
  private readonly digests = new Map<string, string>();
  digestBase64(alg: Verified): string {
    const known = this.digests.get(alg);
    if (known !== undefined) return known;
    const value = this.compute(alg);
    this.digests.set(alg, value);
    return value;
  }
  private compute(alg: Verified): string {
    if (alg === 'crc32') {
      const b = Buffer.alloc(4);
      b.writeUInt32BE(this.crc >>> 0);
      return b.toString('base64');
    }
    return this.extra.get(alg)!.digest('base64');
  }
}

/**
 * Streams a request body (plain or aws-chunked), hashing as it goes: MD5 always (the ETag), and whatever
 * the signature, Content-MD5 and x-amz-checksum-* headers or trailers ask to be verified.
 */
export interface BodyOptions {
  /** Asked only when a declared checksum could be verified, with its algorithm (default: always verify). */
  verifyChecksums?: (alg: string) => boolean;
  /** x-amz-checksum-* headers describe something else than this body (CompleteMultipartUpload's object). */
  checksumHeadersNotOfBody?: boolean;
  chunkSignature?: ChunkSignature;
  /** Asked only of a body whose Content-Encoding names aws-chunked but whose signature is not streaming. */
  awsChunkedByContentEncoding?: () => boolean;
  /** The code a checksum of this algorithm that does not match the body is refused with (default BadDigest). */
  checksumCode?: (alg: string) => string;
  /** Asked only of a Content-MD5 that does not match the body: false lets the body through (faults). */
  verifyContentMd5?: () => boolean;
  /** The code a Content-MD5 that does not match the body is refused with (default BadDigest). */
  contentMd5Code?: () => string;
  /** Asked only of a signed payload hash: true compares it with the body's SHA-256 in base64 (a fault). */
  payloadHashAsBase64?: () => boolean;
}

export function incomingBody(
  req: http.IncomingMessage,
  payloadHash: string,
  options: BodyOptions = {},
): IncomingBody {
  // The body is aws-chunked when x-amz-content-sha256 says it is streaming (STREAMING-...); aws-chunked in
  // Content-Encoding alone does not make it so (an ordinary PutObject may send `gzip, aws-chunked`).
  const streaming =
    payloadHash.startsWith('STREAMING-') ||
    (/aws-chunked/i.test(headerOf(req, 'content-encoding') ?? '') &&
      (options.awsChunkedByContentEncoding?.() ?? false));
  const signedSha = /^[0-9a-f]{64}$/i.test(payloadHash) ? payloadHash.toLowerCase() : undefined;
  const declared = new Map<string, string>();
  for (const alg of options.checksumHeadersNotOfBody
    ? []
    : ['sha256', 'sha1', 'crc32', 'crc32c', 'crc64nvme']) {
    const v = headerOf(req, `x-amz-checksum-${alg}`);
    if (v !== undefined) declared.set(alg, v);
  }
  const trailerNames = (headerOf(req, 'x-amz-trailer') ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const wants = new Set<string>([...declared.keys()]);
  for (const t of trailerNames) wants.add(t.replace(/^x-amz-checksum-/, ''));
  if (signedSha) wants.add('sha256');
  const digester = new Digester(wants);
  const decoder = streaming ? new AwsChunkedDecoder(options.chunkSignature) : undefined;
  const out = new PassThrough();
  const fail = (err: Error) => out.destroy(err);
  req.on('error', fail);
  // A client that goes away mid-body must not leave the upload waiting forever.
  req.on('close', () => {
    if (!req.complete) fail(new S3Error(400, 'IncompleteBody', 'The request body ended early.'));
  });
  digester.on('error', fail);
  if (decoder) {
    decoder.on('error', fail);
    req.pipe(decoder).pipe(digester).pipe(out);
  } else {
    req.pipe(digester).pipe(out);
  }
  const finish = (): BodyDigest => {
    if (decoder)
      for (const [name, value] of decoder.trailers) {
        if (name.startsWith('x-amz-checksum-')) declared.set(name.slice('x-amz-checksum-'.length), value);
      }
    const decodedLength = headerOf(req, 'x-amz-decoded-content-length');
    if (decoder && decodedLength !== undefined && Number(decodedLength) !== digester.size) {
      throw new S3Error(
        400,
        'IncompleteBody',
        'The body length does not match x-amz-decoded-content-length.',
      );
    }
    const want =
      signedSha &&
      (options.payloadHashAsBase64?.() ? signedSha : Buffer.from(signedSha, 'hex').toString('base64'));
    if (signedSha && digester.digestBase64('sha256') !== want) {
      throw new S3Error(
        400,
        'XAmzContentSHA256Mismatch',
        'The provided x-amz-content-sha256 header does not match what was computed.',
      );
    }
    const md5 = digester.md5.digest();
    const contentMd5 = headerOf(req, 'content-md5');
    const mismatched: string[] = [];
    if (contentMd5 !== undefined && contentMd5 !== md5.toString('base64')) {
      if (options.verifyContentMd5?.() ?? true) throw contentMd5Mismatch(options.contentMd5Code?.());
      mismatched.push('md5');
    }
    const checksums: Record<string, string> = {};
    for (const [alg, value] of declared) {
      const checkable = (VERIFIED as readonly string[]).includes(alg);
      if (checkable && digester.digestBase64(alg as Verified) !== value) {
        if (options.verifyChecksums?.(alg) ?? true) throw badDigest(alg, options.checksumCode?.(alg));
        mismatched.push(alg);
      }
      checksums[alg] = value;
    }
    return { size: digester.size, md5, head: digester.head, checksums, mismatched };
  };
  return { stream: out, finish };
}

export const contentMd5Mismatch = (code = 'BadDigest') =>
  new S3Error(400, code, 'The Content-MD5 you specified did not match what we received.');

export const badDigest = (alg: string, code = 'BadDigest') =>
  new S3Error(400, code, `The ${alg.toUpperCase()} you specified did not match the calculated checksum.`);

/** Reads a small request document (XML) whole, with a size cap. */
export async function readSmallBody(
  req: http.IncomingMessage,
  payloadHash: string,
  limit = 4 * 1024 * 1024,
  chunkSignature?: ChunkSignature,
  checksumHeadersNotOfBody = false,
): Promise<Buffer> {
  const body = incomingBody(req, payloadHash, { chunkSignature, checksumHeadersNotOfBody });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body.stream) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new S3Error(400, 'MaxMessageLengthExceeded', 'Your request was too big.');
    chunks.push(chunk as Buffer);
  }
  body.finish();
  return Buffer.concat(chunks);
}
