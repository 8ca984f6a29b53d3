import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { S3Error } from './errors.ts';
import type { ChunkSignature } from './sigv4.ts';

const incomplete = () =>
  new S3Error(400, 'IncompleteBody', 'The aws-chunked body ended before its final chunk.');
const badChunkSignature = () =>
  new S3Error(
    403,
    'SignatureDoesNotMatch',
    'The chunk signature we calculated does not match the one you provided.',
  );
const malformed = () => new S3Error(400, 'InvalidRequest', 'The aws-chunked body is malformed.');

/**
 * Decodes the aws-chunked body of streaming SigV4 uploads (STREAMING-AWS4-HMAC-SHA256-PAYLOAD,
 * STREAMING-UNSIGNED-PAYLOAD-TRAILER, ...): `<hex size>[;chunk-signature=...]\r\n<data>\r\n`, then a
 * zero-size chunk and optional trailers such as `x-amz-checksum-crc32:...`.
 */
export class AwsChunkedDecoder extends Transform {
  /** Trailing headers, lower-cased names; complete once the stream has ended. */
  readonly trailers = new Map<string, string>();
  private state: 'size' | 'data' | 'data-crlf' | 'trailers' | 'done' = 'size';
  private pending = Buffer.alloc(0);
  private remaining = 0;
  /** Chunk signatures: the one claimed for the chunk being read, the previous one, and checks under way. */
  private claimed?: string;
  private previous?: string;
  private hash?: Hash;
  private checks: Promise<boolean>[] = [];

  /** With `signature`, every chunk's chunk-signature is verified (STREAMING-AWS4-HMAC-SHA256-PAYLOAD). */
  constructor(private readonly signature?: ChunkSignature) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    try {
      this.consume(chunk);
    } catch (err) {
      callback(err as Error);
      return;
    }
    const checks = this.checks;
    this.checks = [];
    if (checks.length === 0) {
      callback();
      return;
    }
    Promise.all(checks).then(
      (ok) => callback(ok.every(Boolean) ? null : badChunkSignature()),
      (err) => callback(err as Error),
    );
  }

  private startChunk(line: string): void {
    if (!this.signature) return;
    const claimed = /;\s*chunk-signature=([0-9a-f]{64})/i.exec(line)?.[1];
    if (!claimed) throw badChunkSignature();
    this.claimed = claimed.toLowerCase();
    this.hash = createHash('sha256');
  }

  private endChunk(): void {
    if (!this.signature || !this.hash || !this.claimed) return;
    const claimed = this.claimed;
    this.checks.push(
      this.signature(this.previous, this.hash.digest('hex')).then((expected) => expected === claimed),
    );
    this.previous = claimed;
    this.hash = undefined;
  }

  override _flush(callback: TransformCallback): void {
    if (this.state === 'trailers' && this.pending.length === 0) this.state = 'done';
    callback(this.state === 'done' ? null : incomplete());
  }

  private consume(input: Buffer): void {
    let buf = this.pending.length > 0 ? Buffer.concat([this.pending, input]) : input;
    this.pending = Buffer.alloc(0);
    while (buf.length > 0) {
      if (this.state === 'data') {
        const n = Math.min(this.remaining, buf.length);
        this.hash?.update(buf.subarray(0, n));
        this.push(buf.subarray(0, n));
        this.remaining -= n;
        buf = buf.subarray(n);
        if (this.remaining === 0) {
          this.endChunk();
          this.state = 'data-crlf';
        }
        continue;
      }
      const eol = buf.indexOf('\r\n');
      if (eol < 0) {
        if (buf.length > 4096) throw malformed();
        this.pending = Buffer.from(buf);
        return;
      }
      const line = buf.subarray(0, eol).toString('latin1');
      buf = buf.subarray(eol + 2);
      if (this.state === 'data-crlf') {
        if (line !== '') throw malformed();
        this.state = 'size';
      } else if (this.state === 'size') {
        const size = Number.parseInt(line.split(';')[0], 16);
        if (!Number.isFinite(size) || size < 0) throw malformed();
        this.startChunk(line);
        if (size === 0) {
          this.endChunk();
          this.state = 'trailers';
        } else {
          this.remaining = size;
          this.state = 'data';
        }
      } else if (this.state === 'trailers') {
        if (line === '') {
          this.state = 'done';
        } else {
          const colon = line.indexOf(':');
          if (colon < 0) throw malformed();
          this.trailers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
        }
      } else {
        // After the terminating blank line nothing may follow.
        if (line !== '') throw malformed();
      }
    }
  }
}
