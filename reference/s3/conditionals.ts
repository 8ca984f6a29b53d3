import { preconditionFailed, S3Error } from './errors.ts';

/**
 * SPEC behaviour 9: If-Match / If-None-Match take lists of ETags, weak ETags (W/"...") and `*`.
 * Comparison is by the opaque tag, so a weak and a strong form of the same tag match.
 */
export function etagListMatches(header: string, etag: string | undefined): boolean {
  if (etag === undefined) return false;
  const want = etag.replace(/^"|"$/g, '');
  return header
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
    .some((t) => t === '*' || t.replace(/^W\//, '').replace(/^"|"$/g, '') === want);
}

export interface Conditions {
  ifMatch?: string;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
  ifUnmodifiedSince?: string;
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
export function checkRead(c: Conditions, etag: string, lastModified: Date): 304 | undefined {
  const modified = seconds(lastModified);
  if (c.ifMatch !== undefined) {
    if (!etagListMatches(c.ifMatch, etag)) throw preconditionFailed();
  } else {
    const t = parseDate(c.ifUnmodifiedSince);
    if (t !== undefined && modified > t) throw preconditionFailed();
  }
  if (c.ifNoneMatch !== undefined) {
    if (etagListMatches(c.ifNoneMatch, etag)) return 304;
  } else {
    const t = parseDate(c.ifModifiedSince);
    if (t !== undefined && modified <= t) return 304;
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
): void {
  if (c.ifMatch !== undefined) {
    if (!existing) throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key });
    if (!etagListMatches(c.ifMatch, existing.etag)) throw preconditionFailed();
  }
  if (c.ifNoneMatch !== undefined && existing && etagListMatches(c.ifNoneMatch, existing.etag)) {
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
