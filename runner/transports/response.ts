import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { TargetError } from '../util/errors.ts';
import { parseXml } from '../util/xml.ts';
import { answerText } from './answer-text.ts';

/**
 * Bodies up to this size are kept for parsing and messages; larger ones only by size and digest,
 * so memory stays flat whatever the target sends. Documented in the README (Bounded memory).
 */
export const KEEP_BYTES = 8 * 1024 * 1024;
const CAP = `${KEEP_BYTES / 1024 / 1024} MiB`;
/** What stays of a body over KEEP_BYTES, to show in messages. */
const PREFIX_BYTES = 64 * 1024;

export interface CollectedBody {
  size: number;
  /** The body when it is at most KEEP_BYTES long, else its first 64 KiB (for messages only). */
  bytes: Buffer;
  truncated: boolean;
  /** Reading stopped at the cap: `size` counts only what was read. */
  readonly cut?: boolean;
  readonly sha256: string;
  readonly md5: string;
}

/**
 * Small bodies are hashed only if a check asks (most never do), and only with the algorithm it asks
 * for; a body too large to keep is hashed with both while it streams, since its bytes are gone
 * afterwards.
 */
class Collected implements CollectedBody {
  private digests: { sha256?: string; md5?: string };
  constructor(
    readonly size: number,
    readonly bytes: Buffer,
    readonly truncated: boolean,
    streamed?: { sha256: string; md5: string },
    readonly cut = false,
  ) {
    this.digests = streamed ?? {};
  }
  private digest(algorithm: 'sha256' | 'md5'): string {
    if (this.cut)
      throw new TargetError(
        `body over the ${CAP} edgecheck reads: reading stopped there, so it has no digest`,
      );
    this.digests[algorithm] ??= createHash(algorithm).update(this.bytes).digest('hex');
    return this.digests[algorithm];
  }
  get sha256() {
    return this.digest('sha256');
  }
  get md5() {
    return this.digest('md5');
  }
}

/**
 * Takes a body chunk by chunk. `stopAtCap`: for answers only ever parsed (the management API's
 * JSON), `push` says stop at the cap and the rest is never fetched; `cut` then says the size is
 * only what was read. Otherwise a body past the cap is hashed as it comes and only a prefix kept.
 */
export class BodyCollector {
  private kept: Buffer[] = [];
  private size = 0;
  private hashes?: { sha: Hash; md5: Hash };
  private stopped?: CollectedBody;
  /** The body so far, when its announced length fits the cap: chunks are copied in as they come. */
  private into?: Buffer;

  constructor(
    private readonly stopAtCap = false,
    /** Where keeping stops (KEEP_BYTES unless a reader needs less). */
    private readonly cap = KEEP_BYTES,
    /** The length the answer announced (Content-Length), if any. */
    private readonly announced?: number,
  ) {}

  /** Takes one chunk; false when reading should stop here (the cap, with `stopAtCap`). */
  push(chunk: Buffer | Uint8Array): boolean {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    if (this.copyIn(buf)) return true;
    const { kept } = this;
    if (this.stopAtCap && this.size + buf.length > this.cap) {
      this.size += buf.length;
      this.stopped = new Collected(this.size, prefixOf(kept), true, undefined, true);
      this.kept = [];
      return false;
    }
    if (!this.hashes && this.size + buf.length > this.cap) {
      const hashes = { sha: createHash('sha256'), md5: createHash('md5') };
      for (const k of kept) {
        hashes.sha.update(k);
        hashes.md5.update(k);
      }
      this.hashes = hashes;
      // Past the cap nothing can be parsed: only a prefix for messages stays, a copy, so that the
      // target's chunks are freed while it keeps sending.
      kept.splice(0, kept.length, prefixOf(kept.length ? kept : [buf]));
    }
    if (this.hashes) {
      this.hashes.sha.update(buf);
      this.hashes.md5.update(buf);
    } else kept.push(buf);
    this.size += buf.length;
    return true;
  }

  /**
   * A body announced with a length it may keep whole is copied into one buffer of that length as
   * it comes, so the target's chunks go at once and no joined copy is made at the end: listed and
   * then joined, a body was held twice. Not at the first chunk when it is the whole body (kept as
   * it is), nor past what was announced (then kept as chunks, as a body of unknown length is).
   */
  private copyIn(buf: Buffer): boolean {
    if (!this.into) {
      const n = this.announced;
      if (n === undefined || this.kept.length || this.hashes || n <= buf.length || n > this.cap) return false;
      this.into = Buffer.allocUnsafe(n);
    }
    if (this.size + buf.length > this.into.length) {
      this.kept = [this.into.subarray(0, this.size)];
      this.into = undefined;
      return false;
    }
    this.size += buf.copy(this.into, this.size);
    return true;
  }

  /** The body as read: whole, or cut at the cap, or a prefix with the digests of all of it. */
  done(): CollectedBody {
    if (this.stopped) return this.stopped;
    const { kept, size, hashes, into } = this;
    if (into) return new Collected(size, into.subarray(0, size), false);
    const bytes = kept.length === 1 ? kept[0] : Buffer.concat(kept);
    return new Collected(
      size,
      bytes,
      size > bytes.length,
      hashes && { sha256: hashes.sha.digest('hex'), md5: hashes.md5.digest('hex') },
    );
  }
}

/** A copy of the first PREFIX_BYTES of `chunks`, joining no more of them than that takes. */
function prefixOf(chunks: Buffer[]): Buffer {
  const total = chunks.reduce((n, c) => n + c.length, 0);
  return Buffer.concat(chunks, Math.min(PREFIX_BYTES, total));
}

/** Reads a stream through a BodyCollector; leaving early destroys it, so nothing more is fetched. */
export async function collectBody(
  stream: AsyncIterable<Buffer | Uint8Array> | Readable,
  { stopAtCap = false }: { stopAtCap?: boolean } = {},
): Promise<CollectedBody> {
  const collector = new BodyCollector(stopAtCap);
  for await (const chunk of stream as AsyncIterable<Buffer>) if (!collector.push(chunk)) break;
  return collector.done();
}

/** A body already in memory (at most KEEP_BYTES). */
export function bufferBody(bytes: Buffer): CollectedBody {
  return new Collected(bytes.length, bytes, false);
}

/**
 * A body of which only the first bytes are known (a recording that cut it): `size` says how long
 * it was; beyond what is kept it has no digest and cannot be parsed.
 */
export function partBody(bytes: Buffer, size: number): CollectedBody {
  if (size <= bytes.length && bytes.length <= KEEP_BYTES) return bufferBody(bytes);
  return new Collected(Math.max(size, bytes.length), bytes.subarray(0, PREFIX_BYTES), true, undefined, true);
}

export function emptyBody(): CollectedBody {
  return new Collected(0, Buffer.alloc(0), false);
}

/** Whether text can be JSON at all, by its first character past white space (RFC 8259's value forms). */
function mayBeJson(text: string): boolean {
  return /^[\s\uFEFF]*[[{"\d\-tfn]/.test(text);
}

/**
 * The value of JSON text, or undefined when it is not JSON. XML, an empty body or an HTML page is
 * refused before JSON.parse, whose SyntaxError would cost its stack on every such answer judged.
 */
export function parseJson(text: string): { value: unknown } | undefined {
  if (!mayBeJson(text)) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
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
    /** SDK steps: the target's own <Code> and <Message>, each empty when it sent none. */
    readonly error?: { name: string; message: string },
    /** SDK steps: the root element of a success answer the SDK parsed, to say what was there. */
    readonly root?: string,
  ) {}

  private decoded?: string;

  /** The answer as the target sent it, in a few words: `404 NoSuchBucket, no message`, `404, empty body`. */
  describe(): string {
    const e = this.error;
    if (e?.name) return `${this.status} ${e.name}${e.message ? `: ${e.message}` : ', no message'}`;
    return answerText(this.status, this.headers, this.body);
  }

  text(): string {
    this.decoded ??= this.body.bytes.toString('utf8');
    return this.decoded;
  }

  json(): unknown {
    if (!this.parsedJson) {
      if (this.body.truncated)
        throw new TargetError(
          this.body.cut
            ? `body is over the ${CAP} edgecheck reads as JSON (reading stopped after ${this.body.size} bytes)`
            : `body of ${this.body.size} bytes is over the ${CAP} edgecheck reads as JSON`,
        );
      const text = this.text();
      const parsed = parseJson(text);
      if (!parsed) {
        const ct = this.headers['content-type'] ?? 'no content-type';
        throw new TargetError(`body is not JSON (${ct}): ${JSON.stringify(text.slice(0, 80))}`);
      }
      this.parsedJson = parsed;
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
