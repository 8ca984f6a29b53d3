import { invalidArgument, S3Error } from './errors.ts';

/** SPEC behaviour 13: continuation tokens issued before this date are rejected. */
export const OLDEST_TOKEN_DATE = '2022-07-01';

interface Cursor {
  /** The last key (or common prefix) of the page the token continues. */
  after: string;
  /** The date the token was issued (the server's as-of date). */
  issued: string;
}

export function encodeCursor(after: string, asOf: string): string {
  return Buffer.from(JSON.stringify({ a: after, i: asOf })).toString('base64url');
}

const invalid = () => invalidArgument('The continuation token provided is incorrect.');

/** Decodes a continuation token; a bad one is a client error with a clear message, never InternalError. */
export function decodeCursor(
  token: string,
  /** A fault per kind of bad token: one that does not decode, or one that decodes to the wrong shape. */
  badCursorIsInternal: (kind: 'undecodable' | 'shape') => boolean,
): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    if (badCursorIsInternal('undecodable')) throw new Error('cannot decode the continuation token');
    throw invalid();
  }
  const c = parsed as { a?: unknown; i?: unknown } | null;
  if (!c || typeof c.a !== 'string' || typeof c.i !== 'string') {
    if (badCursorIsInternal('shape')) throw new Error('cannot read the continuation token');
    throw invalid();
  }
  if (c.i < OLDEST_TOKEN_DATE) {
    throw new S3Error(
      400,
      'InvalidArgument',
      'The continuation token has expired; list again from the start.',
    );
  }
  return { after: c.a, issued: c.i };
}
