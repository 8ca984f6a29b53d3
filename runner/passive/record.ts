import { isUtf8 } from 'node:buffer';
import {
  closeSync,
  existsSync,
  ftruncateSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import type { CollectedBody } from '../transports/response.ts';
import { redactDeep, redactText, redactUrl } from '../util/redact.ts';
import type { ObservedExchange } from './exchange.ts';

/** Recorded bodies are cut here: enough for every passive check, never a whole object. */
export const RECORDED_BODY_LIMIT = 64 * 1024;

/** A recording's bounds: its size, its age, and how many rotated files are kept. */
export interface RecordLimits {
  /** Past this a file is closed and a new one begun (default 100 MiB). */
  maxBytes?: number;
  /** Rotated files kept beside the one being written; older ones are deleted (default 10). */
  keep?: number;
  /** A file older than this is closed and a new one begun, if any exchange comes (ms). */
  maxAgeMs?: number;
}

const CLOSE = '\n]}}\n';

/**
 * Writes exchanges to a HAR 1.2 file as they come (`edgecheck proxy --record`), each entry on its
 * own line, secrets redacted before anything is written: credential headers, signatures and
 * credentials in query strings, and every registered secret wherever it stands. A SigV4 credential
 * keeps its scope (date, region, service) and signed header names, which are no secret and say
 * which region the request was signed for.
 *
 * The file is a complete HAR after every entry: each is written over the previous closing
 * brackets, followed by its own. Past `maxBytes` or `maxAgeMs` the file is renamed with the time
 * (traffic.har becomes traffic.2026-01-01T00-00-00-000Z.har) and a new one begun; only the newest
 * `keep` rotated files are kept, so a recording never takes more than (keep + 1) x maxBytes. A
 * write that fails (a full disk) stops the recording, not the proxy: `error` says why.
 */
export class HarRecorder {
  private fd = -1;
  private position = 0;
  private entries = 0;
  private openedAt = 0;
  private closed = false;
  private readonly maxBytes: number;
  private readonly keep: number;
  /** Why recording stopped early, if it did. */
  error?: string;
  /** Files rotated out so far. */
  rotations = 0;
  /** The time the last rotated file was named with, and how many before it had the same. */
  private lastStamp = '';
  private sameStamp = 0;

  constructor(
    private readonly file: string,
    private readonly creator: string,
    private readonly limits: RecordLimits = {},
  ) {
    this.maxBytes = limits.maxBytes ?? 100 * 1024 * 1024;
    this.keep = limits.keep ?? 10;
    this.open();
  }

  add(ex: ObservedExchange, origin: { management?: string; s3?: string }): void {
    if (this.closed) return;
    const line = JSON.stringify(harEntry(ex, origin));
    // Where the file ends complete before this entry: its closing brackets stand there.
    let complete = this.position;
    try {
      const full = this.position + Buffer.byteLength(line) + CLOSE.length + 2 > this.maxBytes;
      const old = this.limits.maxAgeMs !== undefined && Date.now() - this.openedAt >= this.limits.maxAgeMs;
      if (this.entries && (full || old)) this.rotate();
      complete = this.position;
      const text = `${this.entries ? ',\n' : ''}${line}`;
      // The entry and the closing brackets after it in one write; the next entry writes over them.
      this.position += writeAll(this.fd, text + CLOSE, this.position) - CLOSE.length;
      this.entries += 1;
    } catch (err) {
      this.fail(err, complete);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.fd >= 0) closeSync(this.fd);
  }

  private open(): void {
    this.fd = openSync(this.file, 'w');
    const head = `{"log":{"version":"1.2","creator":${JSON.stringify({ name: 'edgecheck', version: this.creator })},"entries":[\n`;
    try {
      this.position = writeAll(this.fd, head, 0);
      writeAll(this.fd, CLOSE, this.position);
    } catch (err) {
      // A file begun on a full disk is no HAR: it goes, and the rotated ones stay as they are.
      closeSync(this.fd);
      this.fd = -1;
      rmSync(this.file, { force: true });
      throw err;
    }
    this.entries = 0;
    this.openedAt = Date.now();
  }

  /** The file, complete, renamed with the time; the oldest rotated files past `keep` deleted. */
  private rotate(): void {
    closeSync(this.fd);
    this.fd = -1;
    const { dir, name, ext } = path.parse(this.file);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    // Rotated again within the same millisecond: a suffix that sorts after the names before it (`~`
    // after `.`, the count zero-padded and never reused, though the oldest file is deleted), for the
    // oldest are found by sorting names.
    this.sameStamp = stamp === this.lastStamp ? this.sameStamp + 1 : 0;
    this.lastStamp = stamp;
    const named = () =>
      path.join(
        dir,
        `${name}.${stamp}${this.sameStamp ? `~${String(this.sameStamp).padStart(4, '0')}` : ''}${ext}`,
      );
    let rotated = named();
    while (existsSync(rotated)) {
      this.sameStamp += 1;
      rotated = named();
    }
    renameSync(this.file, rotated);
    this.rotations += 1;
    const mine = new RegExp(
      `^${escapeRegExp(name)}\\.\\d{4}-\\d{2}-\\d{2}T[\\d-]+Z(~\\d+)?${escapeRegExp(ext)}$`,
    );
    const old = readdirSync(dir || '.')
      .filter((f) => mine.test(f))
      .sort();
    for (const f of old.slice(0, Math.max(0, old.length - this.keep)))
      rmSync(path.join(dir, f), { force: true });
    this.open();
  }

  /**
   * Recording stops; the file keeps the entries written whole, closed. A write cut short by a full
   * disk left part of an entry after `complete`: the closing brackets go back over it (bytes the
   * file already has, so no space is needed) and the file is cut after them.
   */
  private fail(err: unknown, complete: number): void {
    this.error = `recording stopped: ${(err as Error).message}`;
    this.closed = true;
    if (this.fd < 0) return;
    try {
      writeAll(this.fd, CLOSE, complete);
      ftruncateSync(this.fd, complete + CLOSE.length);
    } catch {
      // Not even that could be written: the file ends where the disk let it.
    }
    closeSync(this.fd);
    this.fd = -1;
  }
}

/** Writes all of `text` at `at`: a write to a disk filling up may write part of it and say so. */
function writeAll(fd: number, text: string, at: number): number {
  const bytes = Buffer.from(text);
  let done = 0;
  while (done < bytes.length) {
    const n = writeSync(fd, bytes, done, bytes.length - done, at + done);
    if (n === 0) throw new Error(`nothing more could be written (${done} of ${bytes.length} bytes)`);
    done += n;
  }
  return bytes.length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One exchange as a HAR entry, redacted. */
function harEntry(ex: ObservedExchange, origin: { management?: string; s3?: string }): object {
  const base = (ex.door === 'management' ? origin.management : origin.s3) ?? 'http://target';
  const body = ex.response.body;
  const sent = ex.request.body;
  return {
    startedDateTime: ex.startedAt ?? new Date().toISOString(),
    ...(ex.startedAtMs === undefined ? {} : { _startedAtMs: ex.startedAtMs }),
    // edgecheck's own: the proxy signed the request again, for this region (no secret).
    ...(ex.resigned ? { _resigned: { region: ex.resigned.region } } : {}),
    time: ex.durationMs ?? 0,
    request: {
      method: ex.request.method,
      url: redactUrl(new URL(ex.request.target, base).href),
      httpVersion: 'HTTP/1.1',
      headers: pairs(ex.request.headers),
      queryString: [],
      ...(sent ? { postData: { mimeType: ex.request.headers['content-type'] ?? '', ...content(sent) } } : {}),
      headersSize: -1,
      bodySize: sent ? sent.size : -1,
    },
    response: {
      status: ex.response.status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: pairs(ex.response.headers),
      content: { size: body.size, mimeType: ex.response.headers['content-type'] ?? '', ...content(body) },
      redirectURL: '',
      headersSize: -1,
      bodySize: body.size,
    },
    cache: {},
    timings: { send: 0, wait: 0, receive: 0 },
  };
}

/** A body as HAR text, cut at RECORDED_BODY_LIMIT and redacted; base64 where it is not UTF-8. */
function content(body: CollectedBody): { text: string; encoding?: 'base64'; comment?: string } {
  const kept = body.bytes.subarray(0, RECORDED_BODY_LIMIT);
  const utf8 = isUtf8(kept);
  return {
    text: redactText(utf8 ? kept.toString('utf8') : kept.toString('base64')),
    ...(utf8 ? {} : { encoding: 'base64' as const }),
    ...(body.size > kept.length || body.cut
      ? { comment: `cut at ${kept.length} of ${body.size} bytes` }
      : {}),
  };
}

function pairs(headers: Record<string, string>): { name: string; value: string }[] {
  return Object.entries(redactDeep(headers)).map(([name, value]) => ({ name, value }));
}
