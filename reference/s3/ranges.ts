import { S3Error } from './errors.ts';

export interface ByteRange {
  /** Inclusive bounds (SPEC behaviour 10: bytes=0-0 is the first byte). */
  start: number;
  end: number;
}

/**
 * Parses a single `bytes=` range against an object size. Returns undefined when the header is absent or not a
 * single byte range (then the whole object is served, as Amazon S3 does); throws InvalidRange when unsatisfiable.
 */
export function parseRange(
  header: string | undefined,
  size: number,
  /** A fault, asked only for a suffix range. */
  suffixFromStart: () => boolean = () => false,
  /** A fault (start > size instead of start >= size), asked only for a range starting at the size. */
  startAtSizeSatisfiable: () => boolean = () => false,
  /** A fault (an end of 0 read as no end, as a falsy test would), asked only for a last byte of 0. */
  zeroEndOpen: () => boolean = () => false,
): ByteRange | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) throw invalidRange(size);
    const fromStart = suffixFromStart();
    start = fromStart ? 0 : Math.max(0, size - suffix);
    end = fromStart ? Math.min(suffix, size) - 1 : size - 1;
  } else {
    start = Number(m[1]);
    const open = m[2] === '' || (Number(m[2]) === 0 && zeroEndOpen());
    end = open ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (!open && Number(m[2]) < start) return undefined;
    if (start > size || (start === size && !startAtSizeSatisfiable())) throw invalidRange(size);
  }
  return { start, end };
}

/** A header that is no valid single byte range: `reversed` (bytes=5-2) or `malformed` (bytes=x-3). */
export function invalidRangeKind(header: string | undefined): 'reversed' | 'malformed' | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return 'malformed';
  if (m[1] !== '' && m[2] !== '' && Number(m[2]) < Number(m[1])) return 'reversed';
  return undefined;
}

export function invalidRange(size: number): S3Error {
  const e = new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable', {
    ActualObjectSize: String(size),
  });
  e.headers['content-range'] = `bytes */${size}`;
  return e;
}
