import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { ReferenceContext } from '../context.ts';
import { bucketOwner, caseOfUserAgent, requestContext } from '../fault-trace.ts';
import type { Handler } from '../handler.ts';
import { accessDenied, S3Error } from './errors.ts';
import { renderXml, S3_XMLNS } from './xml.ts';

export type Headers = Record<string, string | number | string[]>;

export function requestId(): string {
  return randomBytes(8).toString('hex').toUpperCase();
}

/**
 * Every S3 answer that has a document is XML with Content-Type application/xml (SPEC behaviour 16),
 * unless the caller's headers name another (a fault's).
 */
export function sendXml(
  res: http.ServerResponse,
  status: number,
  doc: Record<string, unknown>,
  headers: Headers = {},
  ctx?: ReferenceContext,
): void {
  const body = renderXml(doc);
  const contentType =
    headers['content-type'] ?? (ctx?.faults.has('s3-xml-text-content-type') ? 'text/xml' : 'application/xml');
  res.writeHead(status, {
    ...headers,
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** A success document whose root carries the S3 namespace, as Amazon S3 renders it. */
export function sendResult(
  res: http.ServerResponse,
  root: string,
  content: Record<string, unknown>,
  headers: Headers = {},
  ctx?: ReferenceContext,
  status = 200,
): void {
  // Under a fault, success documents other than listings go out as text/xml (errors and listings keep application/xml).
  const textXml = root !== 'ListBucketResult' && ctx?.faults.has('s3-xml-result-text-content-type');
  sendXml(
    res,
    status,
    { [root]: { '@xmlns': S3_XMLNS, ...content } },
    textXml ? { ...headers, 'content-type': 'text/xml' } : headers,
    ctx,
  );
}

export function sendEmpty(res: http.ServerResponse, status: number, headers: Headers = {}): void {
  res.writeHead(status, headers);
  res.end();
}

/** Renders an S3Error (anything else becomes InternalError); HEAD answers carry no body. */
export function sendError(
  res: http.ServerResponse,
  err: unknown,
  ctx: ReferenceContext,
  method: string,
  resource: string,
): void {
  const e = faultyError(
    err instanceof S3Error
      ? err
      : new S3Error(500, 'InternalError', 'We encountered an internal error. Please try again.'),
    ctx,
  );
  if (!(err instanceof S3Error)) logInternal(err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const rid = requestId();
  // Under a fault, a missing key's error names the credentials the request was checked with.
  if (e.code === 'NoSuchKey' && ctx.faults.has('s3-no-such-key-debug-credentials'))
    res.setHeader('x-debug-credentials', `${ctx.credentials.accessKeyId}:${ctx.credentials.secretAccessKey}`);
  // Under a fault, a GET of a missing key is answered as a HEAD would be: 404 without a document.
  const bodiless =
    (method === 'GET' && e.code === 'NoSuchKey' && ctx.faults.has('s3-no-such-key-no-body')) ||
    // Under a fault, a failed condition is answered 412 alone, as an HTTP server answers it.
    (e.status === 412 && ctx.faults.has('s3-precondition-failed-no-body')) ||
    e.bodiless;
  if (method === 'HEAD' || bodiless) {
    res.writeHead(e.status, { ...e.headers, 'x-amz-request-id': rid, 'x-amz-error-code': e.code });
    res.end();
    return;
  }
  const inner = { Code: e.code, Message: e.message, ...e.extra, Resource: resource, RequestId: rid };
  // SPEC behaviour 16: no xmlns on the top-level Error element.
  // Under a fault, the documents of one error (rendered by its own layer) carry it.
  const xmlns =
    ctx.faults.has('s3-error-xmlns') ||
    (e.code === 'NoSuchUpload' && ctx.faults.has('s3-no-such-upload-xmlns'));
  const doc = xmlns ? { Error: { '@xmlns': S3_XMLNS, ...inner } } : { Error: inner };
  // Under a fault, error documents go out with the web framework's default type for error pages.
  const html: Headers = ctx.faults.has('s3-xml-error-html-content-type')
    ? { 'content-type': 'text/html; charset=utf-8' }
    : {};
  sendXml(res, e.status, doc, { ...e.headers, 'x-amz-request-id': rid, ...html }, ctx);
}

/** Faults that answer a known condition with the wrong status or code. */
function faultyError(e: S3Error, ctx: ReferenceContext): S3Error {
  const f = ctx.faults;
  if (e.code === 'NoSuchBucket' && f.has('s3-missing-bucket-403')) return accessDenied();
  if (e.code === 'NoSuchKey' && f.has('s3-no-such-key-generic'))
    return new S3Error(404, 'NotFound', 'Not Found');
  // An object-level lookup that reports the missing bucket as a missing key.
  if (e.code === 'NoSuchBucket' && f.has('s3-missing-bucket-no-such-key'))
    return new S3Error(404, 'NoSuchKey', 'The specified key does not exist.');
  if (e.code === 'NoSuchUpload' && f.has('s3-no-such-upload-generic'))
    return new S3Error(404, 'NotFound', 'Not Found');
  if (e.status === 412 && f.has('s3-precondition-status-400'))
    return new S3Error(400, 'InvalidRequest', e.message);
  return e;
}

function logInternal(err: unknown): void {
  // One line, no request data: request headers may carry signatures.
  const what = err instanceof Error ? err.message : String(err);
  process.stderr.write(`edgecheck reference s3: internal error: ${what}\n`);
}

/**
 * A request handler whose unexpected failures still become an S3 error answer, never a dropped
 * socket. Each request is handled with its own context, whose fault consults the fault trace
 * (when on) notes under the case its User-Agent names, else the bucket `bucketOf` reads from it.
 */
export function asHandler(
  ctx: ReferenceContext,
  bucketOf: (req: http.IncomingMessage) => string | undefined,
  handle: (req: http.IncomingMessage, res: http.ServerResponse, ctx: ReferenceContext) => Promise<unknown>,
): Handler {
  return (req, res) => {
    const rctx = requestContext(
      ctx,
      () => caseOfUserAgent(req.headers['user-agent']) ?? bucketOwner(bucketOf(req)),
    );
    handle(req, res, rctx).catch((err) => sendError(res, err, rctx, req.method ?? 'GET', req.url ?? '/'));
  };
}
