import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { parseXml } from '../match/xml.ts';
import { TargetError } from '../util/errors.ts';

/**
 * Bodies up to this size are kept for parsing and messages; larger ones only by size and digest,
 * so memory stays flat whatever the target sends. Documented in the README (Bounded memory).
 */
export const KEEP_BYTES = 8 * 1024 * 1024;
const CAP = `${KEEP_BYTES / 1024 / 1024} MiB`;

export interface CollectedBody {
  size: number;
  /** The body when it is at most KEEP_BYTES long, else its first KEEP_BYTES. */
  bytes: Buffer;
  truncated: boolean;
  readonly sha256: string;
  readonly md5: string;
}

/**
 * Small bodies are hashed only if a check asks (most never do); a body too large to keep is
 * hashed while it streams, since its bytes are gone afterwards.
 */
class Collected implements CollectedBody {
  private digests?: { sha256: string; md5: string };
  constructor(
    readonly size: number,
    readonly bytes: Buffer,
    readonly truncated: boolean,
    streamed?: { sha256: string; md5: string },
  ) {
    this.digests = streamed;
  }
  private digest() {
    this.digests ??= {
      sha256: createHash('sha256').update(this.bytes).digest('hex'),
      md5: createHash('md5').update(this.bytes).digest('hex'),
    };
    return this.digests;
  }
  get sha256() {
    return this.digest().sha256;
  }
  get md5() {
    return this.digest().md5;
  }
}

export async function collectBody(
  stream: AsyncIterable<Buffer | Uint8Array> | Readable,
): Promise<CollectedBody> {
  const kept: Buffer[] = [];
  let size = 0;
  let hashes: { sha: Hash; md5: Hash } | undefined;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    if (!hashes && size + buf.length > KEEP_BYTES) {
      hashes = { sha: createHash('sha256'), md5: createHash('md5') };
      for (const k of kept) {
        hashes.sha.update(k);
        hashes.md5.update(k);
      }
    }
    if (hashes) {
      hashes.sha.update(buf);
      hashes.md5.update(buf);
    }
    if (size < KEEP_BYTES) kept.push(buf.subarray(0, KEEP_BYTES - size));
    size += buf.length;
  }
  const bytes = kept.length === 1 ? kept[0] : Buffer.concat(kept);
  return new Collected(
    size,
    bytes,
    size > bytes.length,
    hashes && { sha256: hashes.sha.digest('hex'), md5: hashes.md5.digest('hex') },
  );
}

/** A body already in memory (at most KEEP_BYTES). */
export function bufferBody(bytes: Buffer): CollectedBody {
  return new Collected(bytes.length, bytes, false);
}

export function emptyBody(): CollectedBody {
  return new Collected(0, Buffer.alloc(0), false);
}

/** What any step kind produced, in the one shape the matchers read. */
export class StepResponse {
  /** Set when the answer is a throttled or unavailable one that outlasted the retries (see http.ts). */
  unavailable?: string;
  private parsedJson?: { value: unknown };
  private parsedXml?: { value: unknown };

  constructor(
    readonly status: number,
    /** Lower-case names; repeated headers joined with ', '. */
    readonly headers: Record<string, string>,
    readonly body: CollectedBody,
    /** SDK steps: the command output without $metadata, or the error. */
    readonly output?: Record<string, unknown>,
    readonly error?: { name: string; message: string },
  ) {}

  private decoded?: string;

  text(): string {
    this.decoded ??= this.body.bytes.toString('utf8');
    return this.decoded;
  }

  json(): unknown {
    if (!this.parsedJson) {
      if (this.body.truncated)
        throw new TargetError(`body of ${this.body.size} bytes is over the ${CAP} edgecheck reads as JSON`);
      const text = this.text();
      try {
        this.parsedJson = { value: JSON.parse(text) };
      } catch {
        const ct = this.headers['content-type'] ?? 'no content-type';
        throw new TargetError(`body is not JSON (${ct}): ${JSON.stringify(text.slice(0, 80))}`);
      }
    }
    return this.parsedJson.value;
  }

  xml(): unknown {
    if (!this.parsedXml) {
      if (this.body.truncated)
        throw new TargetError(`body of ${this.body.size} bytes is over the ${CAP} edgecheck reads as XML`);
      const text = this.text();
      if (!text.trim()) throw new TargetError('body is empty, expected XML');
      // An HTML page (a proxy's or CDN's) is not an answer from the S3 API, whatever its status says.
      if (/^\s*(<\?xml[^>]*>\s*)?<(!doctype\s+html|html[\s>])/i.test(text)) {
        const ct = this.headers['content-type'] ?? 'no content-type';
        throw new TargetError(`body is an HTML page (${ct}), not XML: ${JSON.stringify(text.slice(0, 80))}`);
      }
      this.parsedXml = { value: parseXml(text) };
    }
    return this.parsedXml.value;
  }
}

export function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}
