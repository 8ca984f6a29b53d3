import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { BodyCollector, flattenHeaders } from '../transports/response.ts';
import type { ObservedExchange } from './exchange.ts';
import { type ResignCredentials, resign } from './resign.ts';

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
  /**
   * S3 credentials to sign each S3 request again with, for the upstream's Host (resign.ts);
   * without them the Host goes as the client signed it.
   */
  resign?: ResignCredentials;
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
 * The management API's requests get the upstream's Host. An S3 request's Host goes as the client
 * signed it (a SigV4 signature covers it), unless `resign` gives credentials to sign it again for
 * the upstream's Host: a target that routes by Host (every hosted one) needs that.
 */
export async function startProxy(o: ProxyOptions): Promise<ProxyHandle> {
  const host = o.host ?? '127.0.0.1';
  // Node's own client: it pipes a request body to the upstream socket with less work per chunk than
  // undici's, which a 1 GiB upload through the proxy shows.
  const agents: Agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
    timeoutMs: o.timeoutMs ?? 300_000,
  };
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
        forward(door, upstream, agents, req, res, o),
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
    agents.http.destroy();
    agents.https.destroy();
    throw err;
  }
  return {
    urls,
    close: async () => {
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

interface Agents {
  http: http.Agent;
  https: https.Agent;
  /** Each forwarded exchange's idle deadline, headers and body. */
  timeoutMs: number;
}

async function forward(
  door: 'management' | 's3',
  upstream: string,
  agents: Agents,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  o: Pick<ProxyOptions, 'onExchange' | 'resign'>,
): Promise<void> {
  const startedAt = new Date().toISOString();
  const cut = new AbortController();
  // The client went away before its answer was sent: the upstream exchange is cut, not judged.
  res.on('close', () => {
    if (!res.writableFinished) cut.abort();
  });
  let headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) headers[k] = v;
  const hasBody =
    req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  // The request body is kept to REQUEST_KEEP for the checks that read it (a CompleteMultipartUpload's
  // parts), and only passed on beyond it.
  const sent = hasBody ? new BodyCollector(true, REQUEST_KEEP) : undefined;
  try {
    // Joined, not resolved: a path starting with // would otherwise name another host.
    let target = new URL(`${upstream.replace(/\/+$/, '')}${req.url ?? '/'}`);
    // The management API's credentials do not cover Host, and the target routes by it.
    if (door === 'management') headers.host = target.host;
    else if (o.resign) {
      const signed = await resign({ method: req.method ?? 'GET', url: target, headers }, o.resign);
      if ('refused' in signed) {
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end(`edgecheck proxy --resign: ${signed.refused}\n`);
        req.resume();
        return;
      }
      target = signed.url;
      headers = signed.headers;
    }
    const client = target.protocol === 'https:' ? https : http;
    const answer = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const up = client.request(target, {
        method: req.method,
        headers,
        agent: target.protocol === 'https:' ? agents.https : agents.http,
        signal: cut.signal,
      });
      up.setTimeout(agents.timeoutMs, () => up.destroy(new Error('the target did not answer in time')));
      up.once('response', resolve);
      up.on('error', reject);
      if (!sent) return void up.end();
      // Kept as it passes: both listeners are on before the body flows, and pipe keeps the pace.
      let keeping = true;
      req.on('data', (chunk: Buffer) => {
        if (keeping) keeping = sent.push(chunk);
      });
      req.pipe(up);
    });
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
    const status = answer.statusCode ?? 502;
    res.writeHead(status, out);
    const collector = new BodyCollector();
    for await (const chunk of answer as AsyncIterable<Buffer>) {
      collector.push(chunk);
      // Backpressure: the upstream is read no faster than the client takes the answer.
      if (!res.write(chunk)) await once(res, 'drain', { signal: cut.signal });
      if (cut.signal.aborted) return;
    }
    res.end();
    o.onExchange({
      door,
      request: {
        method: req.method ?? 'GET',
        target: req.url ?? '/',
        headers: flattenHeaders(req.headers),
        body: sent?.done(),
      },
      response: {
        status,
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
