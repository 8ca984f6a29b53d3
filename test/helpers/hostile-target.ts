import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A target that misbehaves in one way for every request, on any path: the management API
 * (`/client/v4/...`) and S3 paths alike, so one server stands for both endpoints of a run.
 */
export type HostileMode =
  | 'reset'
  | 'silent'
  | 'slow'
  | 'garbage'
  | 'truncated'
  | 'html'
  | 'endless'
  | 'huge'
  | 'status-429'
  | 'status-503'
  | 'flaky-503'
  | 'rate-limited';

export const HOSTILE_MODES: readonly HostileMode[] = [
  'reset',
  'silent',
  'slow',
  'garbage',
  'truncated',
  'html',
  'endless',
  'huge',
  'status-429',
  'status-503',
  'flaky-503',
  'rate-limited',
];

export interface HostileOptions {
  /** `html`: the status of the error page (a CDN answers 502 for a dead origin, some 200). */
  htmlStatus?: 200 | 502;
  /** `huge`: the announced and sent body size (default 200 MB). */
  hugeBytes?: number;
  /** `rate-limited`: requests allowed per window (default 20 per 2 s). */
  limit?: number;
  windowMs?: number;
  /** `rate-limited`: send the RateLimit-Policy / RateLimit headers (default true). */
  announce?: boolean;
}

export interface HostileTarget {
  /** http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  mode: HostileMode;
  /** Requests received (every mode counts, including the ones it resets). */
  readonly requests: number;
  /** When the first request arrived (ms since the epoch): a run's time at the target starts here. */
  readonly firstRequestAt: number | undefined;
  /** 429 answers sent (`status-429` and `rate-limited`). */
  readonly throttled: number;
  /** Body bytes written, all responses together. */
  readonly bytesSent: number;
  /** Stops listening and destroys every open socket, including the endless ones. */
  close(): Promise<void>;
}

/** The success envelope the management API answers; S3 clients see it as a body they cannot parse. */
export const SUCCESS_ENVELOPE = '{"success":true,"errors":[],"messages":[],"result":{}}';

const CDN_PAGE = `<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title></head>
<body><h1>Bad gateway</h1><p>The web server reported a bad gateway error.</p>
<p>Ray ID: 7d1f2e3c4b5a6978 &bull; Performance &amp; security by the edge</p></body></html>
`;

/** One reusable block for the streaming modes, so the server's memory stays flat. */
const FILL = Buffer.alloc(64 * 1024, 'a');

export async function startHostileTarget(
  mode: HostileMode,
  options: HostileOptions = {},
): Promise<HostileTarget> {
  const limit = options.limit ?? 20;
  const windowMs = options.windowMs ?? 2000;
  const hugeBytes = options.hugeBytes ?? 200 * 1000 * 1000;
  let requests = 0;
  let firstRequestAt: number | undefined;
  let throttled = 0;
  let bytesSent = 0;
  let windowStart = 0;
  let inWindow = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const send = (res: ServerResponse, chunk: Buffer | string): boolean => {
    bytesSent += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    return res.write(chunk);
  };

  /** Writes `total` bytes of filler (or forever) as fast as the client reads: never buffers ahead. */
  const pump = (res: ServerResponse, total: number, tail: string) => {
    let left = total;
    const more = () => {
      while (!closed && !res.destroyed) {
        if (left <= 0) {
          bytesSent += Buffer.byteLength(tail);
          res.end(tail);
          return;
        }
        const chunk = left >= FILL.length ? FILL : FILL.subarray(0, left);
        if (Number.isFinite(left)) left -= chunk.length;
        if (!send(res, chunk)) {
          res.once('drain', more);
          return;
        }
      }
    };
    more();
  };

  /** 429 or 503 with the API's error envelope and `Retry-After: 1`. */
  const refuse = (res: ServerResponse, status: 429 | 503) => {
    if (status === 429) throttled++;
    const body = JSON.stringify({
      success: false,
      errors: [
        { code: status === 429 ? 10000 : 10013, message: status === 429 ? 'Rate limited' : 'Unavailable' },
      ],
      messages: [],
      result: null,
    });
    res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '1' });
    bytesSent += Buffer.byteLength(body);
    res.end(body);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    requests++;
    firstRequestAt ??= Date.now();
    // Request bodies are read and dropped: the server keeps none of them.
    req.resume();
    switch (mode) {
      case 'reset':
        req.socket.resetAndDestroy();
        return;
      case 'silent':
        // Takes the request and never answers: a hung origin behind an open port.
        return;
      case 'slow': {
        res.writeHead(200, { 'content-type': 'application/json' });
        send(res, '{');
        const timer = setInterval(() => {
          if (res.destroyed) return;
          send(res, ' ');
        }, 1000);
        timers.add(timer);
        res.on('close', () => {
          clearInterval(timer);
          timers.delete(timer);
        });
        return;
      }
      case 'garbage': {
        const body = randomBytes(4096);
        res.writeHead(200, { 'content-length': body.length });
        bytesSent += body.length;
        res.end(body);
        return;
      }
      case 'truncated': {
        // Written to the socket directly: Node's own response object would not send a short body.
        const socket = req.socket;
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"success"',
        );
        bytesSent += 10;
        socket.end();
        return;
      }
      case 'html': {
        const status = options.htmlStatus ?? 502;
        res.writeHead(status, { 'content-type': 'text/html; charset=UTF-8', server: 'edge' });
        bytesSent += Buffer.byteLength(CDN_PAGE);
        res.end(CDN_PAGE);
        return;
      }
      case 'endless':
        res.writeHead(200, { 'content-type': 'application/json' });
        send(res, '{"success":true,"errors":[],"messages":[],"result":"');
        pump(res, Number.POSITIVE_INFINITY, '');
        return;
      case 'huge': {
        const head = '{"success":true,"errors":[],"messages":[],"result":"';
        const tail = '"}';
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': hugeBytes });
        send(res, head);
        pump(res, hugeBytes - Buffer.byteLength(head) - Buffer.byteLength(tail), tail);
        return;
      }
      case 'flaky-503':
        // Every other request (by arrival) is refused; the rest succeed.
        if (requests % 2 === 1) {
          refuse(res, 503);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        bytesSent += Buffer.byteLength(SUCCESS_ENVELOPE);
        res.end(SUCCESS_ENVELOPE);
        return;
      case 'status-429':
      case 'status-503':
        refuse(res, mode === 'status-429' ? 429 : 503);
        return;
      case 'rate-limited': {
        // Fixed windows, the first one opened by the first request.
        const now = Date.now();
        if (inWindow === 0 || now - windowStart >= windowMs) {
          windowStart = now;
          inWindow = 0;
        }
        inWindow++;
        const reset = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
        const headers: Record<string, string> =
          options.announce === false
            ? {}
            : {
                'ratelimit-policy': `"default";q=${limit};w=${Math.ceil(windowMs / 1000)}`,
                ratelimit: `"default";r=${Math.max(0, limit - inWindow)};t=${reset}`,
              };
        if (inWindow > limit) {
          throttled++;
          const body =
            '{"success":false,"errors":[{"code":10000,"message":"Rate limited"}],"messages":[],"result":null}';
          res.writeHead(429, {
            ...headers,
            'content-type': 'application/json',
            'retry-after': String(reset),
          });
          bytesSent += Buffer.byteLength(body);
          res.end(body);
          return;
        }
        res.writeHead(200, { ...headers, 'content-type': 'application/json' });
        bytesSent += Buffer.byteLength(SUCCESS_ENVELOPE);
        res.end(SUCCESS_ENVELOPE);
        return;
      }
    }
  };

  const server = createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that resets mid-body is normal here; it must not end the test process.
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    mode,
    get requests() {
      return requests;
    },
    get firstRequestAt() {
      return firstRequestAt;
    },
    get throttled() {
      return throttled;
    },
    get bytesSent() {
      return bytesSent;
    },
    close() {
      closed = true;
      for (const t of timers) clearInterval(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
