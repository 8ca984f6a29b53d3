import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A run of stored bytes: in memory (the chunks as received) or one file under the data directory. */
interface Segment {
  size: number;
  chunks?: Buffer[];
  file?: string;
  refs: number;
}

/**
 * Object and part bodies: an immutable list of segments. Completing a multipart upload or copying an
 * object only lists the same segments again (reference counted), so no body is copied or held whole.
 */
export interface Blob {
  size: number;
  segments: Segment[];
}

export class BlobStore {
  private readonly dir?: string;

  /**
   * `dataDir`: bodies go to files there, those of `inMemoryUpTo` bytes or fewer aside (they stay in
   * memory, where a file each would cost more than it saves); without it, every body is in memory.
   */
  constructor(
    dataDir?: string,
    private readonly inMemoryUpTo = 0,
  ) {
    if (dataDir) {
      this.dir = path.join(dataDir, 's3-blobs');
      mkdirSync(this.dir, { recursive: true });
    }
  }

  /** Stores a stream. Nothing is kept when the stream fails. */
  async write(stream: Readable): Promise<Blob> {
    const chunks: Buffer[] = [];
    let size = 0;
    const source = stream[Symbol.asyncIterator]();
    for (;;) {
      if (this.dir && size > this.inMemoryUpTo) return this.writeFile(chunks, size, source, stream);
      const next = await source.next();
      if (next.done) return { size, segments: size > 0 ? [{ size, chunks, refs: 1 }] : [] };
      chunks.push(next.value as Buffer);
      size += (next.value as Buffer).length;
    }
  }

  /** The chunks read so far, then the rest of `source`, into a new file. */
  private async writeFile(
    chunks: Buffer[],
    read: number,
    source: AsyncIterator<unknown>,
    stream: Readable,
  ): Promise<Blob> {
    const file = path.join(this.dir!, randomBytes(12).toString('hex'));
    let size = read;
    async function* body() {
      yield* chunks.splice(0);
      for (let next = await source.next(); !next.done; next = await source.next()) {
        size += (next.value as Buffer).length;
        yield next.value as Buffer;
      }
    }
    try {
      await pipeline(body, createWriteStream(file));
    } catch (err) {
      rmSync(file, { force: true });
      // Whether the file or the body failed, nothing more of the body is read.
      stream.destroy();
      throw err;
    }
    return { size, segments: [{ size, file, refs: 1 }] };
  }

  /** A blob made of other blobs, end to end (multipart completion, copies). */
  concat(parts: Blob[]): Blob {
    const segments = parts.flatMap((p) => p.segments);
    for (const s of segments) s.refs += 1;
    return { size: parts.reduce((n, p) => n + p.size, 0), segments };
  }

  /** Drops one holder of a blob; files go when nothing lists them any more. */
  release(blob: Blob): void {
    for (const s of blob.segments) {
      s.refs -= 1;
      if (s.refs <= 0 && s.file) rmSync(s.file, { force: true });
    }
  }

  /** Bytes [start, end] inclusive, streamed segment by segment. */
  read(blob: Blob, start = 0, end = blob.size - 1): Readable {
    const segments = blob.segments;
    async function* gen() {
      let offset = 0;
      for (const seg of segments) {
        const segStart = offset;
        const segEnd = offset + seg.size - 1;
        offset += seg.size;
        if (segEnd < start || segStart > end) continue;
        const from = Math.max(start, segStart) - segStart;
        const to = Math.min(end, segEnd) - segStart;
        if (seg.file) {
          yield* createReadStream(seg.file, { start: from, end: to, highWaterMark: 256 * 1024 });
        } else {
          yield* sliceChunks(seg.chunks!, from, to);
        }
      }
    }
    return Readable.from(gen(), { objectMode: false });
  }
}

function* sliceChunks(chunks: Buffer[], from: number, to: number): Generator<Buffer> {
  let offset = 0;
  for (const c of chunks) {
    const cStart = offset;
    const cEnd = offset + c.length - 1;
    offset += c.length;
    if (cEnd < from) continue;
    if (cStart > to) return;
    yield c.subarray(Math.max(from, cStart) - cStart, Math.min(to, cEnd) - cStart + 1);
  }
}
