import type { ObservedView } from 'edgecheck/kit';

/**
 * What an S3 exchange seen passing is, for the observers that judge one operation: read from its
 * method, path-style path (`/bucket` or `/bucket/key`) and query, as the clauses' own passive
 * entries select theirs. A virtual-hosted request (`/key` under `<bucket>.<host>`) reads as a bucket's.
 */
export type S3Operation =
  | 'CreateBucket'
  | 'BucketSubresource'
  | 'PutObject'
  | 'CopyObject'
  | 'UploadPart'
  | 'UploadPartCopy'
  | 'CreateMultipartUpload'
  | 'CompleteMultipartUpload'
  | 'AbortMultipartUpload'
  | 'ListParts'
  | 'DeleteObjects'
  | 'GetObject'
  | 'HeadObject'
  | 'DeleteObject'
  | 'Other';

const objectPath = (path: string) => /^\/[^/]+\/./.test(path);

/** The operation an exchange asked for (see S3Operation). */
export function operationOf(ex: ObservedView): S3Operation {
  if (ex.door !== 's3') return 'Other';
  const q = ex.query;
  const copy = ex.requestHeaders['x-amz-copy-source'] !== undefined;
  if (!objectPath(ex.path)) {
    if (ex.path === '/' || ex.path === '') return 'Other';
    if (ex.method === 'POST' && q.has('delete')) return 'DeleteObjects';
    const sub = [...q.keys()].filter((k) => k !== 'x-id');
    if (ex.method === 'PUT') return sub.length ? 'BucketSubresource' : 'CreateBucket';
    return sub.length && ex.method !== 'GET' ? 'BucketSubresource' : 'Other';
  }
  const upload = q.get('uploadId');
  switch (ex.method) {
    case 'PUT':
      if (upload !== null && q.has('partNumber')) return copy ? 'UploadPartCopy' : 'UploadPart';
      if ([...q.keys()].some((k) => k !== 'x-id')) return 'Other';
      return copy ? 'CopyObject' : 'PutObject';
    case 'POST':
      if (q.has('uploads')) return 'CreateMultipartUpload';
      return upload !== null ? 'CompleteMultipartUpload' : 'Other';
    case 'DELETE':
      return upload !== null ? 'AbortMultipartUpload' : 'DeleteObject';
    case 'GET':
      if (upload !== null) return 'ListParts';
      return [...q.keys()].some((k) => !/^(x-id|versionId|partNumber|response-.*)$/.test(k))
        ? 'Other'
        : 'GetObject';
    case 'HEAD':
      return 'HeadObject';
  }
  return 'Other';
}

/** The S3 error code of an answer kept whole (`<Code>` of its error document), else undefined. */
export function errorCodeOf(ex: ObservedView): string | undefined {
  if (ex.status < 300 || ex.body === undefined) return undefined;
  return /<Code>([^<]*)<\/Code>/.exec(ex.body.toString('utf8'))?.[1];
}

/** Where an exchange's resource lives, for what an observer remembers of it: host and path. */
export const placeOf = (ex: ObservedView): string => `${ex.requestHeaders.host ?? ''}${ex.path}`;

/** 2xx. */
export const accepted = (ex: ObservedView): boolean => ex.status >= 200 && ex.status < 300;

/**
 * The request body as its bytes were meant, when the proxy kept it whole and it is no aws-chunked
 * stream (whose framing and signatures are not the payload); else undefined: not judged on it.
 */
export function payloadOf(ex: ObservedView): Buffer | undefined {
  const declared = ex.requestHeaders['x-amz-content-sha256'] ?? '';
  if (declared.startsWith('STREAMING-')) return undefined;
  if (ex.requestBody !== undefined) return ex.requestBody;
  // A request that announced no body has none; one that did was not kept whole.
  const h = ex.requestHeaders;
  return h['content-length'] === undefined && h['transfer-encoding'] === undefined
    ? Buffer.alloc(0)
    : undefined;
}

/** `METHOD path?query -> status`, for messages. */
export function described(ex: ObservedView): string {
  const q = ex.query.toString();
  return `${ex.method} ${ex.path}${q ? `?${q}` : ''} answered ${ex.status}`;
}

/** Codes of refusals made before a request's document is read (signature, integrity, bucket): they say nothing of it. */
const BEFORE_THE_DOCUMENT = new Set([
  'AccessDenied',
  'SignatureDoesNotMatch',
  'InvalidAccessKeyId',
  'AuthorizationHeaderMalformed',
  'RequestTimeTooSkewed',
  'XAmzContentSHA256Mismatch',
  'BadDigest',
  'InvalidDigest',
  'MissingContentMD5',
  'IncompleteBody',
  'NoSuchBucket',
]);

export const refusedBeforeReading = (code: string | undefined): boolean =>
  code !== undefined && BEFORE_THE_DOCUMENT.has(code);

/**
 * A refusal clause's judgement of an answer to what it refuses: carried out (2xx) or failing (5xx),
 * or refused with another code than `code` (where the document was kept to read one), contradicts
 * it; the right refusal, or one made before the document was read, is left unjudged.
 */
export function refusedAs(ex: ObservedView, status: number, code: string, what: string): undefined {
  const got = errorCodeOf(ex);
  if (refusedBeforeReading(got)) return undefined;
  if (ex.status >= 300 && ex.status < 500 && ex.status !== status) return undefined;
  // An answer not kept whole says nothing of its code; one kept whole without a code says it has none.
  if (ex.status === status && (got === code || (got === undefined && ex.body === undefined)))
    return undefined;
  throw new Error(`${described(ex)}${got ? ` ${got}` : ''}: ${what}, expected ${status} ${code}`);
}
