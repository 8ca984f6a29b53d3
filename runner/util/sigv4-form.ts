/**
 * The form of a SigV4 signature as a request carries it, read alike from the request as it passed
 * and from a recording of it (redact.ts masks the key id and the signature and keeps the rest of
 * exactly this form, nothing of any other).
 */

/** A credential's scope after its key id; a region is a few lower-case words and perhaps a number. */
export const SCOPE =
  /^(\d{8})\/((?:[a-z]{2,10}(?:-[a-z]{1,10}){0,3}(?:-\d{1,2})?)?)\/([a-z][a-z0-9-]{0,29})\/aws4_request$/;

/** An Authorization header of SigV4: scope, signed header names, and a hex (or masked) signature. */
export const AWS4_AUTHORIZATION =
  /^AWS4-HMAC-SHA256\s+Credential=[^/,\s]+\/([^,\s]+),\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=(?:[0-9a-f]+|\[REDACTED\])$/i;

const AMZ_DATE = /^(\d{8})T\d{6}Z$/;

/** What a well-formed SigV4 signature of a request says, none of it secret. */
export interface Signing {
  /** In the Authorization header, or in the query (a presigned URL). */
  form: 'header' | 'query';
  /** The credential scope's date (YYYYMMDD), region and service. */
  date: string;
  region: string;
  service: string;
  /** X-Amz-Date (x-amz-date header, or the query's X-Amz-Date): YYYYMMDDTHHMMSSZ. */
  amzDate: string;
  /** A presigned URL's X-Amz-Expires, in seconds. */
  expires?: number;
}

/**
 * The SigV4 signature a request carries, where it is well formed and its scope's date is the day of
 * its X-Amz-Date; else undefined. A request with both forms, or neither, has none.
 */
export function signingOf(headers: Record<string, string>, query: URLSearchParams): Signing | undefined {
  const authorization = headers.authorization;
  const presigned = query.has('X-Amz-Signature') || query.has('X-Amz-Credential');
  if (authorization !== undefined && authorization.trim() !== '') {
    if (presigned) return undefined;
    const m = AWS4_AUTHORIZATION.exec(authorization);
    return m ? scoped('header', m[1], headers['x-amz-date']) : undefined;
  }
  if (!presigned || query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return undefined;
  if (!query.get('X-Amz-Signature') || !query.get('X-Amz-SignedHeaders')) return undefined;
  const expires = Number(query.get('X-Amz-Expires'));
  if (!Number.isInteger(expires) || expires < 1) return undefined;
  const credential = query.get('X-Amz-Credential') ?? '';
  const signing = scoped('query', credential.slice(credential.indexOf('/') + 1), query.get('X-Amz-Date'));
  return signing && { ...signing, expires };
}

function scoped(
  form: Signing['form'],
  scope: string,
  amzDate: string | null | undefined,
): Signing | undefined {
  const s = SCOPE.exec(scope);
  const d = AMZ_DATE.exec(amzDate ?? '');
  if (!s || !d || d[1] !== s[1] || !amzDate) return undefined;
  return { form, date: s[1], region: s[2], service: s[3], amzDate };
}
