import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { BodyCollector, flattenHeaders } from '../transports/response.ts';
import type { ObservedExchange } from './exchange.ts';

/** Headers of one hop, never forwarded (RFC 9110 7.6.1), and those the forwarding sets itself. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  // Node answers 100 Continue to the client itself; the body then streams upstream as it comes.
  'expect',
]);

/** Enough for a CompleteMultipartUpload of 10,000 parts; uploads pass through unkept beyond it. */
const REQUEST_KEEP = 2 * 1024 * 1024;

export interface ProxyOptions {
  /** Where each door forwards to: an origin (scheme, host, port). */
  upstream: { management?: string; s3?: string };
  host?: string;
  /** Management port; S3 listens on the next. 0 (default) picks free ports. */
  port?: number;
  /** Each request's deadline, headers and body (ms). */
  timeoutMs?: number;
  /** Hears every exchange once its answer has passed through whole. */
  onExchange: (ex: ObservedExchange) => void;
}

export interface ProxyHandle {
  urls: { management?: string; s3?: string };
  close(): Promise<void>;
}

/**
 * Listens on loopback, a port per door, and forwards every request unchanged to its upstream,
 * streaming the body both ways. The answer's body passes through a BodyCollector as it streams:
 * kept to the cap, hashed beyond it, never held whole. A client gone mid-body cuts the upstream
 * exchange; nothing of it is judged.
 *
 * The Host header goes as the client sent it: a SigV4 signature covers it, so a client signing
 * for the proxy's address is still verified by a target that checks the Host it receives.
 */
export async function startProxy(o: ProxyOptions): Promise<ProxyHandle> {
  const host = o.host ?? '127.0.0.1';
  const agent = new Agent({ connections: 64, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs });
  const servers: http.Server[] = [];
  const urls: ProxyHandle['urls'] = {};
  const doors: ['management' | 's3', number][] = [
    ['management', o.port ?? 0],
    ['s3', o.port ? o.port + 1 : 0],
  ];
  try {
    for (const [door, port] of doors) {
      const upstream = o.upstream[door];
      if (!upstream) continue;
      const server = http.createServer({ keepAliveTimeout: 5000, requestTimeout: 0 }, (req, res) =>
        forward(door, upstream, agent, req, res, o.onExchange),
      );
      // A client sending garbage gets a 400 from Node, as it would from the target; the proxy goes on.
      server.on('clientError', (_err, socket) => socket.destroy());
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      servers.push(server);
      urls[door] = `http://${host}:${(server.address() as AddressInfo).port}`;
    }
  } catch (err) {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    await agent.close();
    throw err;
  }
  return {
    urls,
    close: async () => {
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
      await agent.destroy();
    },
  };
}

async function forward(
  door: 'management' | 's3',
  upstream: string,
  agent: Agent,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  onExchange: ProxyOptions['onExchange'],
): Promise<void> {
  const startedAt = new Date().toISOString();
  const cut = new AbortController();
  // The client went away before its answer was sent: the upstream exchange is cut, not judged.
  res.on('close', () => {
    if (!res.writableFinished) cut.abort();
  });
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) headers[k] = v;
  const hasBody =
    req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  // The request body is kept to REQUEST_KEEP for the checks that read it (a CompleteMultipartUpload's
  // parts), and only passed on beyond it.
  const sent = hasBody ? new BodyCollector(true, REQUEST_KEEP) : undefined;
  try {
    const answer = await request(new URL(req.url ?? '/', upstream), {
      dispatcher: agent,
      method: req.method as 'GET',
      headers,
      // undici sends an async iterable as it comes, awaiting the socket: backpressure holds.
      body: sent ? (tap(req, sent) as unknown as Readable) : undefined,
      signal: cut.signal,
    });
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
    res.writeHead(answer.statusCode, out);
    const collector = new BodyCollector();
    for await (const chunk of answer.body) {
      collector.push(chunk);
      // Backpressure: the upstream is read no faster than the client takes the answer.
      if (!res.write(chunk)) await once(res, 'drain', { signal: cut.signal });
      if (cut.signal.aborted) return;
    }
    res.end();
    onExchange({
      door,
      request: {
        method: req.method ?? 'GET',
        target: req.url ?? '/',
        headers: flattenHeaders(req.headers),
        body: sent?.done(),
      },
      response: {
        status: answer.statusCode,
        headers: flattenHeaders(answer.headers),
        body: collector.done(),
      },
      startedAt,
    });
  } catch {
    // The upstream is down or the client left: a bare 502 when nothing was sent yet, else a cut answer.
    if (!res.headersSent && !cut.signal.aborted) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('edgecheck proxy: the target did not answer\n');
    } else res.destroy();
  }
}

/** The request's chunks as they come, passed on unchanged, the first of them kept by `into`. */
async function* tap(req: http.IncomingMessage, into: BodyCollector): AsyncGenerator<Buffer> {
  let keeping = true;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if (keeping) keeping = into.push(chunk);
    yield chunk;
  }
}
