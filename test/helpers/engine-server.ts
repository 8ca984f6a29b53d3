import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the in-test server saw it. */
export interface SeenRequest {
  method: string;
  /** Path and query, e.g. /client/v4/things?x=1 */
  url: string;
  headers: IncomingHttpHeaders;
  /** Header names and values as they arrived, in order. */
  rawHeaders: string[];
  body: string;
  bytes: Buffer;
}

export type Handler = (req: SeenRequest, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  /** http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  seen: SeenRequest[];
  /** Resolves once a request matching `test` has been seen (or rejects after `ms`). */
  waitFor(test: (r: SeenRequest) => boolean, ms?: number): Promise<SeenRequest>;
  close(): Promise<void>;
}

/** A small HTTP server on 127.0.0.1 and a free port, recording every request it receives. */
export async function startServer(handler: Handler): Promise<TestServer> {
  const seen: SeenRequest[] = [];
  const waiters: { test: (r: SeenRequest) => boolean; resolve: (r: SeenRequest) => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const r: SeenRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: bytes.toString('utf8'),
        bytes,
      };
      seen.push(r);
      for (const w of [...waiters]) {
        if (w.test(r)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(r);
        }
      }
      Promise.resolve(handler(r, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    waitFor(test, ms = 10_000) {
      const already = seen.find(test);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching request within ${ms} ms`)), ms);
        waiters.push({
          test,
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
        });
      });
    },
    close() {
      // Hanging requests would keep close() waiting: drop every connection first.
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The v4 envelope of a successful call. */
export function ok(result: unknown): unknown {
  return { success: true, errors: [], messages: [], result };
}

export function failure(code: number, message: string): unknown {
  return { success: false, errors: [{ code, message }], messages: [], result: null };
}
