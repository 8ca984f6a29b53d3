import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { parseXml } from '../match/xml.ts';
import { TargetError } from '../util/errors.ts';

/** Bodies up to this size are kept for parsing and messages; larger ones only by size and digest. */
const KEEP_BYTES = 8 * 1024 * 1024;

export interface CollectedBody {
  size: number;
  sha256: string;
  md5: string;
  /** The body when it is at most KEEP_BYTES long, else its first KEEP_BYTES. */
  bytes: Buffer;
  truncated: boolean;
}

export async function collectBody(
  stream: AsyncIterable<Buffer | Uint8Array> | Readable,
): Promise<CollectedBody> {
  const sha = createHash('sha256');
  const md5 = createHash('md5');
  const kept: Buffer[] = [];
  let keptSize = 0;
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    sha.update(buf);
    md5.update(buf);
    size += buf.length;
    if (keptSize < KEEP_BYTES) {
      const piece = buf.subarray(0, KEEP_BYTES - keptSize);
      kept.push(piece);
      keptSize += piece.length;
    }
  }
  return {
    size,
    sha256: sha.digest('hex'),
    md5: md5.digest('hex'),
    bytes: Buffer.concat(kept),
    truncated: size > keptSize,
  };
}

export function emptyBody(): CollectedBody {
  return {
    size: 0,
    sha256: createHash('sha256').digest('hex'),
    md5: createHash('md5').digest('hex'),
    bytes: Buffer.alloc(0),
    truncated: false,
  };
}

/** What any step kind produced, in the one shape the matchers read. */
export class StepResponse {
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

  text(): string {
    return this.body.bytes.toString('utf8');
  }

  json(): unknown {
    if (!this.parsedJson) {
      if (this.body.truncated)
        throw new TargetError(`body of ${this.body.size} bytes is too large to parse as JSON`);
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
        throw new TargetError(`body of ${this.body.size} bytes is too large to parse as XML`);
      const text = this.text();
      if (!text.trim()) throw new TargetError('body is empty, expected XML');
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
