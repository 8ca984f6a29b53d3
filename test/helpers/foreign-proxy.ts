import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
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
  /**
   * A streaming-signed (aws-chunked) upload answers 411 MissingContentLength at once, before its
   * body is read, and the connection closes under the rest of the body (a production front).
   */
  chunked411?: boolean;
  /** Every error answer keeps its status and headers but comes with an empty body. */
  emptyErrorBody?: boolean;
  /** Every error answer keeps its <Code> but its <Message> is empty. */
  emptyErrorMessage?: boolean;
  /**
   * A bucket GET with this query parameter (e.g. `location`) is answered with another operation's
   * document: an empty listing of the bucket (ListBucketResult).
   */
  otherDocumentFor?: string;
  /** The first CompleteMultipartUpload of each upload answers an empty <ETag>; a repeat answers it whole. */
  emptyFirstCompleteETag?: boolean;
  /** UploadPartCopy answers the part's ETag in CopyPartResult without its quotes. */
  unquotePartCopyETag?: boolean;
  /**
   * With encoding-type url, a listing's echoes (Prefix, Delimiter, Marker, StartAfter) and its
   * NextMarker come back decoded, while keys and common prefixes stay encoded.
   */
  unencodedListEchoes?: boolean;
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
    rewritten: number;
    chunked411: number;
    emptied: number;
    otherDocument: number;
    forwarded: number;
  };
  close(): Promise<void>;
}

const errorXml = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;

const xmlError = (res: ServerResponse, status: number, code: string, message: string) => {
  const body = errorXml(code, message);
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

/** A request whose body is aws-chunked under a streaming signature (x-amz-content-sha256 STREAMING-...). */
const streamingSigned = (req: IncomingMessage) =>
  String(req.headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-');

/** The error document with its <Message> emptied. */
const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** A listing with its echoes and NextMarker decoded, keys and common prefixes left as they are. */
const decodeEchoes = (xml: string) =>
  xml.replace(
    /<(Prefix|Delimiter|Marker|StartAfter|NextMarker)>([^<]*)<\/\1>/g,
    (whole, tag: string, text: string, at: number) => {
      // A Prefix inside CommonPrefixes is a common prefix, not the echo.
      const before = xml.slice(0, at);
      if (
        tag === 'Prefix' &&
        before.lastIndexOf('<CommonPrefixes>') > before.lastIndexOf('</CommonPrefixes>')
      )
        return whole;
      return `<${tag}>${xmlText(decodeURIComponent(text))}</${tag}>`;
    },
  );
const emptyMessage = (xml: string) => xml.replace(/<Message>[\s\S]*?<\/Message>/, '<Message></Message>');

/** Passes on an answer with its body rewritten (length adjusted): a target that words it so. */
function rewriteError(answer: IncomingMessage, res: ServerResponse, rewrite: (body: string) => string): void {
  const chunks: Buffer[] = [];
  answer.on('data', (c: Buffer) => chunks.push(c));
  answer.on('end', () => {
    const body = Buffer.from(rewrite(Buffer.concat(chunks).toString('utf8')));
    const headers = { ...answer.headers, 'content-length': String(body.length) };
    delete headers['transfer-encoding'];
    if (!body.length) delete headers['content-type'];
    res.writeHead(answer.statusCode ?? 502, headers);
    res.end(body);
  });
}

/** The region of a SigV4 Authorization header's credential scope. */
const signedRegion = (req: IncomingMessage) =>
  /Credential=[^/]+\/\d{8}\/([^/]*)\/s3\//.exec(String(req.headers.authorization ?? ''))?.[1];

/**
 * `tls` serves the front over HTTPS (with that key and certificate), as production fronts are: a
 * connection closed under an upload loses an early answer over TLS where loopback HTTP keeps it.
 */
export async function startForeignProxy(
  upstream: string,
  habits: ForeignHabits,
  tls?: { key: Buffer; cert: Buffer },
): Promise<ForeignProxy> {
  const up = new URL(upstream);
  const completed = new Set<string>();
  const throttledOnce = new Set<string>();
  const counts = {
    refusedAutoCreate: 0,
    abort404: 0,
    throttled: 0,
    aborted500: 0,
    vanished: 0,
    rewritten: 0,
    chunked411: 0,
    emptied: 0,
    otherDocument: 0,
    forwarded: 0,
  };
  const vanished = new Set<string>();
  const aborted = new Set<string>();
  let seen = 0;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
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
    if (habits.chunked411 && req.method === 'PUT' && streamingSigned(req)) {
      counts.chunked411 += 1;
      // Nothing of the body is read: the socket closes once the answer is out, under the upload.
      const body = errorXml('MissingContentLength', 'You must provide the Content-Length HTTP header.');
      res.writeHead(411, {
        'content-type': 'application/xml',
        'content-length': Buffer.byteLength(body),
        connection: 'close',
      });
      res.end(body, () => req.socket.destroy());
      return;
    }
    const other = habits.otherDocumentFor;
    if (other && req.method === 'GET' && parts.length === 1 && url.searchParams.has(other)) {
      counts.otherDocument += 1;
      req.resume();
      const body = `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult><Name>${parts[0]}</Name><Prefix></Prefix><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>`;
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    const path = req.url ?? '/';
    counts.forwarded += 1;
    const out = httpRequest(
      { host: up.hostname, port: up.port, method: req.method, path, headers: req.headers },
      (answer) => {
        const status = answer.statusCode ?? 502;
        const first = req.method === 'POST' && uploadId && status === 200 && !completed.has(uploadId);
        if (req.method === 'POST' && uploadId && status === 200) completed.add(uploadId);
        if (first && habits.emptyFirstCompleteETag) {
          counts.emptied += 1;
          rewriteError(answer, res, (xml) => xml.replace(/<ETag>[^<]*<\/ETag>/, '<ETag></ETag>'));
          return;
        }
        if (req.method === 'DELETE' && uploadId && status < 300) aborted.add(uploadId);
        if (
          habits.unquotePartCopyETag &&
          req.method === 'PUT' &&
          uploadId &&
          req.headers['x-amz-copy-source']
        ) {
          counts.rewritten += 1;
          rewriteError(answer, res, (xml) =>
            xml.replace(/<ETag>(?:"|&quot;)([^<"&]*)(?:"|&quot;)<\/ETag>/, '<ETag>$1</ETag>'),
          );
          return;
        }
        const listing =
          req.method === 'GET' && parts.length === 1 && url.searchParams.get('encoding-type') === 'url';
        if (habits.unencodedListEchoes && listing && !url.searchParams.has('uploads') && status === 200) {
          counts.rewritten += 1;
          rewriteError(answer, res, decodeEchoes);
          return;
        }
        if (status >= 300 && (habits.emptyErrorBody || habits.emptyErrorMessage)) {
          rewriteError(answer, res, habits.emptyErrorBody ? () => '' : emptyMessage);
          counts.emptied += 1;
          return;
        }
        const hidden =
          habits.missingBucketHead403 && req.method === 'HEAD' && parts.length === 1 && status === 404;
        res.writeHead(hidden ? 403 : status, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  };
  const server = tls ? createTlsServer(tls, handle) : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
