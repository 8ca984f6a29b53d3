import { preconditionFailed, S3Error } from './errors.ts';

/** The fault switches that bend ETag matching (a FaultSet, or nothing). */
export type Faults = { has(name: string): boolean } | undefined;

/**
 * SPEC behaviour 9: If-Match / If-None-Match take lists of ETags, weak ETags (W/"...") and `*`.
 * Comparison is by the opaque tag, so a weak and a strong form of the same tag match. `strongUnder`
 * names the fault under which this header compares strongly, a weak tag then matching nothing.
 */
export function etagListMatches(
  header: string,
  etag: string | undefined,
  faults?: Faults,
  strongUnder?: string,
): boolean {
  if (etag === undefined) return false;
  const want = etag.replace(/^"|"$/g, '');
  let tags = header
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (tags.length > 1 && faults?.has('s3-cond-etag-list-first-only')) tags = tags.slice(0, 1);
  return tags.some((t) => {
    if (t === '*') return !faults?.has('s3-cond-wildcard-ignored');
    if (t.startsWith('W/') && faults?.has('s3-cond-weak-etag-unmatched')) return false;
    if (t.startsWith('W/') && strongUnder !== undefined && faults?.has(strongUnder)) return false;
    return t.replace(/^W\//, '').replace(/^"|"$/g, '') === want;
  });
}

/** As RFC 9110 has it, where SPEC lets If-Match take weak ETags too. */
const IF_MATCH_STRONG = 's3-cond-if-match-strong';

export interface Conditions {
  ifMatch?: string;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
  ifUnmodifiedSince?: string;
}

/** Whether any condition is given: checkRead and checkWrite do nothing without one. */
export function anyCondition(c: Conditions): boolean {
  return (
    c.ifMatch !== undefined ||
    c.ifNoneMatch !== undefined ||
    c.ifModifiedSince !== undefined ||
    c.ifUnmodifiedSince !== undefined
  );
}

function parseDate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/** HTTP dates have second precision: compare whole seconds. */
const seconds = (d: Date) => Math.floor(d.getTime() / 1000) * 1000;

/**
 * Read conditionals (GetObject, HeadObject), with Amazon S3's precedence: a true If-Match overrides a false
 * If-Unmodified-Since, and a false If-None-Match overrides a true If-Modified-Since.
 * Returns 304 when not modified; throws 412 when a precondition fails.
 */
export function checkRead(c: Conditions, etag: string, lastModified: Date, faults?: Faults): 304 | undefined {
  // Under a fault, dates are compared to the millisecond, though an HTTP date has none.
  const dated = c.ifModifiedSince !== undefined || c.ifUnmodifiedSince !== undefined;
  const modified =
    dated && faults?.has('s3-cond-dates-to-the-millisecond') ? lastModified.getTime() : seconds(lastModified);
  // Faults of precedence, asked only when both ETag conditions are given.
  if (c.ifMatch !== undefined && c.ifNoneMatch !== undefined) {
    if (faults?.has('s3-cond-none-match-first') && etagListMatches(c.ifNoneMatch, etag, faults)) return 304;
    if (faults?.has('s3-cond-match-dropped-with-none-match')) c = { ...c, ifMatch: undefined };
  }
  if (c.ifMatch !== undefined) {
    if (!etagListMatches(c.ifMatch, etag, faults, IF_MATCH_STRONG)) throw preconditionFailed();
    // Under a fault, If-Unmodified-Since is evaluated even when If-Match holds.
    const t = parseDate(c.ifUnmodifiedSince);
    if (t !== undefined && modified > t && faults?.has('s3-cond-unmodified-since-over-if-match'))
      throw preconditionFailed();
  } else {
    const t = parseDate(c.ifUnmodifiedSince);
    if (t !== undefined && modified > t && !faults?.has('s3-cond-unmodified-since-ignored'))
      throw preconditionFailed();
  }
  if (c.ifNoneMatch !== undefined) {
    if (etagListMatches(c.ifNoneMatch, etag, faults)) return 304;
  } else {
    const t = parseDate(c.ifModifiedSince);
    if (t !== undefined && modified <= t && !faults?.has('s3-cond-modified-since-ignored')) return 304;
  }
  return undefined;
}

/**
 * Write conditionals (PutObject, CreateMultipartUpload, CompleteMultipartUpload, copy destinations): a failing
 * check against an existing object is 412 (SPEC behaviour 8); If-Match on a missing object is NoSuchKey.
 */
export function checkWrite(
  c: Conditions,
  existing: { etag: string; lastModified: Date } | undefined,
  key: string,
  faults?: Faults,
): void {
  if (c.ifMatch !== undefined) {
    if (!existing) throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key });
    if (!etagListMatches(c.ifMatch, existing.etag, faults, IF_MATCH_STRONG)) throw preconditionFailed();
  }
  if (
    c.ifNoneMatch !== undefined &&
    existing &&
    etagListMatches(c.ifNoneMatch, existing.etag, faults, 's3-cond-weak-on-writes-unmatched')
  ) {
    throw preconditionFailed();
  }
  if (existing) {
    const unmodified = parseDate(c.ifUnmodifiedSince);
    if (unmodified !== undefined && seconds(existing.lastModified) > unmodified) throw preconditionFailed();
    const modifiedSince = parseDate(c.ifModifiedSince);
    if (modifiedSince !== undefined && seconds(existing.lastModified) <= modifiedSince)
      throw preconditionFailed();
  }
}
