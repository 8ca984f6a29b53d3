import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An S3 endpoint that behaves as implementations nobody here wrote do, in front of the reference:
 * every request is passed through unchanged except where a chosen habit answers instead. Each habit
 * is one that moto (or a busy service) shows, so a test can hold a verdict class to it without
 * needing moto itself.
 */
export interface ForeignHabits {
  /** CreateBucket signed for region `auto` answers 400 IllegalLocationConstraintException (moto). */
  refuseAutoCreate?: boolean;
  /** AbortMultipartUpload of an upload already completed answers 404 NoSuchUpload (moto, S3). */
  completedAbort404?: boolean;
  /** AbortMultipartUpload answers 404 NoSuchUpload and aborts nothing (a broken target). */
  abortAlways404?: boolean;
  /** Requests whose User-Agent matches pass through every habit unchanged (a person's AWS CLI). */
  spare?: RegExp;
  /**
   * The target removes a bucket itself once an object of it is deleted (a service expiring test
   * buckets): from then on every request to that bucket answers 404 NoSuchBucket, HEAD with no body.
   */
  vanishOnDelete?: boolean;
  /** HEAD of a bucket that does not exist answers 403, as a target that hides buckets it does not own. */
  missingBucketHead403?: boolean;
  /** UploadPart and CompleteMultipartUpload of an aborted upload answer 500 with an HTML page (moto). */
  abortedUpload500?: boolean;
  /**
   * Every n-th request answers `throttleStatus` (default 503) with `Retry-After: 0` instead, once:
   * the same request sent again goes through (a busy service).
   */
  throttleEvery?: number;
  throttleStatus?: 429 | 503;
}

export interface ForeignProxy {
  url: string;
  /** How often each habit answered instead of the reference. */
  counts: {
    refusedAutoCreate: number;
    abort404: number;
    throttled: number;
    aborted500: number;
    vanished: number;
    forwarded: number;
  };
  close(): Promise<void>;
}

const xmlError = (res: ServerResponse, status: number, code: string, message: string) => {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

/** The region of a SigV4 Authorization header's credential scope. */
const signedRegion = (req: IncomingMessage) =>
  /Credential=[^/]+\/\d{8}\/([^/]*)\/s3\//.exec(String(req.headers.authorization ?? ''))?.[1];

export async function startForeignProxy(upstream: string, habits: ForeignHabits): Promise<ForeignProxy> {
  const up = new URL(upstream);
  const completed = new Set<string>();
  const throttledOnce = new Set<string>();
  const counts = {
    refusedAutoCreate: 0,
    abort404: 0,
    throttled: 0,
    aborted500: 0,
    vanished: 0,
    forwarded: 0,
  };
  const vanished = new Set<string>();
  const aborted = new Set<string>();
  let seen = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const parts = url.pathname.split('/').filter(Boolean);
    const uploadId = url.searchParams.get('uploadId');
    seen += 1;
    // A busy service refuses now and then, once: the same request sent again goes through.
    const key = `${req.method} ${req.url}`;
    const again = throttledOnce.delete(key);
    if (habits.throttleEvery && !again && seen % habits.throttleEvery === 0) {
      throttledOnce.add(key);
      counts.throttled += 1;
      req.resume();
      res.writeHead(habits.throttleStatus ?? 503, { 'retry-after': '0', 'content-length': 0 });
      res.end();
      return;
    }
    if (habits.refuseAutoCreate && req.method === 'PUT' && parts.length === 1 && url.search === '') {
      if (signedRegion(req) === 'auto') {
        counts.refusedAutoCreate += 1;
        req.resume();
        xmlError(
          res,
          400,
          'IllegalLocationConstraintException',
          'The unspecified location constraint is incompatible for the region specific endpoint this request was sent to.',
        );
        return;
      }
    }
    if (habits.vanishOnDelete && parts[0] && vanished.has(parts[0])) {
      counts.vanished += 1;
      req.resume();
      if (req.method === 'HEAD') {
        res.writeHead(404, { 'content-length': 0 });
        res.end();
      } else xmlError(res, 404, 'NoSuchBucket', 'The specified bucket does not exist');
      return;
    }
    if (habits.vanishOnDelete && req.method === 'DELETE' && parts.length > 1 && !uploadId) {
      // Deleted, and the bucket with it: the answer a delete gets, and nothing of the bucket after.
      vanished.add(parts[0]);
      req.resume();
      res.writeHead(204);
      res.end();
      return;
    }
    if (req.method === 'DELETE' && uploadId && !habits.spare?.test(String(req.headers['user-agent']))) {
      if (habits.abortAlways404 || (habits.completedAbort404 && completed.has(uploadId))) {
        counts.abort404 += 1;
        req.resume();
        xmlError(res, 404, 'NoSuchUpload', 'The specified multipart upload does not exist.');
        return;
      }
    }
    if (
      habits.abortedUpload500 &&
      uploadId &&
      aborted.has(uploadId) &&
      (req.method === 'PUT' || req.method === 'POST')
    ) {
      counts.aborted500 += 1;
      req.resume();
      const page =
        '<html><head><title>500 Internal Server Error</title></head><body>Internal Server Error</body></html>';
      res.writeHead(500, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': Buffer.byteLength(page),
      });
      res.end(page);
      return;
    }
    counts.forwarded += 1;
    const out = httpRequest(
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        if (req.method === 'POST' && uploadId && answer.statusCode === 200) completed.add(uploadId);
        if (req.method === 'DELETE' && uploadId && (answer.statusCode ?? 500) < 300) aborted.add(uploadId);
        const hidden =
          habits.missingBucketHead403 &&
          req.method === 'HEAD' &&
          parts.length === 1 &&
          answer.statusCode === 404;
        res.writeHead(hidden ? 403 : (answer.statusCode ?? 502), answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
