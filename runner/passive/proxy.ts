import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { BodyCollector, flattenHeaders } from '../transports/response.ts';
import { registerSecret, SECRET_ACCESS_KEY } from '../util/redact.ts';
import type { ObservedExchange } from './exchange.ts';
import { type ResignCredentials, resign } from './resign.ts';
import { type ProxyStats, upstreamErrorKind } from './stats.ts';

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
  /** How long a client may take to send a request's headers (ms; default 30 s). */
  headersTimeoutMs?: number;
  /** How long an idle keep-alive connection from a client stays open (ms; default 5 s). */
  keepAliveTimeoutMs?: number;
  /** Connections per door at once; past it new ones are closed as they come (default 4096). */
  maxConnections?: number;
  /** Where forwarded exchanges, upstream errors and the added latency are counted. */
  stats?: ProxyStats;
  /**
   * S3 credentials to sign each S3 request again with, for the upstream's Host (resign.ts);
   * without them the Host goes as the client signed it.
   */
  resign?: ResignCredentials;
  /** Hears every exchange once its answer has passed through whole and been written to its client. */
  onExchange: (ex: ObservedExchange) => void;
}

export interface ProxyHandle {
  urls: { management?: string; s3?: string };
  /** Client connections open now, both doors together. */
  connections(): Promise<number>;
  /** Whether every door is listening. */
  listening(): boolean;
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
  // The secret it signs with is masked in every output as what it is, so that a recording shows an
  // answer that carried it.
  if (o.resign) registerSecret(o.resign.secretAccessKey, SECRET_ACCESS_KEY);
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
      const server = doorServer(o, (req, res) => forward(door, upstream, agents, req, res, o));
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
    listening: () => servers.every((s) => s.listening),
    connections: async () => {
      const counts = await Promise.all(
        servers.map((s) => new Promise<number>((r) => s.getConnections((_e, n) => r(n ?? 0)))),
      );
      return counts.reduce((a, b) => a + b, 0);
    },
    close: async () => {
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/**
 * One door's server, bounded: a client has `headersTimeoutMs` to send its headers (one trickling
 * them is cut), an idle keep-alive connection closes after `keepAliveTimeoutMs`, and past
 * `maxConnections` new connections are closed. A body may take as long as it needs (requestTimeout 0:
 * an upload of gigabytes); the upstream deadline bounds the exchange.
 */
function doorServer(o: ProxyOptions, handle: http.RequestListener): http.Server {
  const headersTimeout = o.headersTimeoutMs ?? 30_000;
  const server = http.createServer(
    {
      keepAliveTimeout: o.keepAliveTimeoutMs ?? 5000,
      requestTimeout: 0,
      headersTimeout,
      // Node looks for overdue headers this often (30 s by default, longer than the deadline).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
    handle,
  );
  server.maxConnections = o.maxConnections ?? 4096;
  // A client sending garbage is cut; the proxy goes on.
  server.on('clientError', (_err, socket) => socket.destroy());
  return server;
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
  o: Pick<ProxyOptions, 'onExchange' | 'resign' | 'stats'>,
): Promise<void> {
  const began = performance.now();
  // The wall clock read from the monotonic one, so that start + duration is the answer's instant.
  const startedAtMs = performance.timeOrigin + began;
  const startedAt = new Date(startedAtMs).toISOString();
  // The client went away before its answer was sent: the upstream exchange is cut, not judged.
  const flight: InFlight = { left: false };
  res.once('close', () => {
    if (res.writableFinished) return;
    flight.left = true;
    const gone = new Error('the client left');
    flight.up?.destroy(gone);
    flight.answer?.destroy(gone);
  });
  const hasBody =
    req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  // The request body is kept to REQUEST_KEEP for the checks that read it (a CompleteMultipartUpload's
  // parts), and only passed on beyond it.
  const sent = hasBody ? new BodyCollector(true, REQUEST_KEEP) : undefined;
  let answerStarted = false;
  try {
    const outgoing = await outgoingRequest(door, upstream, req, o.resign);
    if ('refused' in outgoing) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(`edgecheck proxy --resign: ${outgoing.refused}\n`);
      req.resume();
      return;
    }
    const { answer, issuedAfter } = await sendUpstream(outgoing, req, sent, agents, flight, began);
    const answeredAt = performance.now();
    const status = answer.statusCode ?? 502;
    // The answer's header lines as the target sent them (names, order, repeats), less hop-by-hop ones.
    res.writeHead(status, endToEnd(answer.rawHeaders));
    answerStarted = true;
    const added = (issuedAfter + performance.now() - answeredAt) / 1000;
    const collector = new BodyCollector();
    await relay(answer, res, collector);
    const passed: ObservedExchange = {
      door,
      request: {
        method: req.method ?? 'GET',
        target: req.url ?? '/',
        headers: flattenHeaders(req.headers),
        body: sent?.done(),
      },
      response: { status, headers: flattenHeaders(answer.headers), body: collector.done() },
      startedAt,
      startedAtMs,
      durationMs: performance.now() - began,
      ...(outgoing.resigned ? { resigned: outgoing.resigned } : {}),
    };
    // Judged once the answer is written whole, and after the loop has forwarded whatever else was
    // ready: judging never holds an answer back. It waits one turn of the loop at most, an
    // exchange per connection, so what waits is bounded as the exchanges in flight are.
    res.end(() => setImmediate(o.onExchange, passed));
    o.stats?.forward(door, status, added);
  } catch (err) {
    // The client left: nothing to judge, nothing wrong upstream. Otherwise the target is down or
    // stopped mid-answer: a bare 502 when nothing was sent yet, else a cut answer.
    if (flight.left) {
      if (o.stats) o.stats.clientsLeft += 1;
    } else o.stats?.upstreamError(door, upstreamErrorKind(err, answerStarted));
    if (!res.headersSent && !flight.left) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('edgecheck proxy: the target did not answer\n');
    } else res.destroy();
  }
}

/** One forwarded exchange's upstream request and answer, cut when its client leaves. */
interface InFlight {
  left: boolean;
  up?: http.ClientRequest;
  answer?: http.IncomingMessage;
}

/** Raw header lines (name, value, name, value...) without the hop-by-hop ones. */
function endToEnd(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!HOP.has(raw[i].toLowerCase())) out.push(raw[i], raw[i + 1]);
  return out;
}

/**
 * Passes the answer's body to the client as it comes, each chunk through `collector`; the upstream
 * is read no faster than the client takes the answer. Events, not an async iterator: this runs for
 * every exchange. Rejects when the answer stops before its end (the target cut it, or the client
 * left and it was destroyed).
 */
function relay(
  answer: http.IncomingMessage,
  res: http.ServerResponse,
  collector: BodyCollector,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (answer.destroyed) return reject(new Error('the answer stopped before its end'));
    answer.on('data', (chunk: Buffer) => {
      collector.push(chunk);
      if (!res.write(chunk)) answer.pause();
    });
    res.on('drain', () => answer.resume());
    answer.once('end', resolve);
    answer.once('error', reject);
    // Destroyed without an error (its client left): after 'end' this changes nothing.
    answer.once('close', () => reject(new Error('the answer stopped before its end')));
  });
}

interface Outgoing {
  url: URL;
  method: string;
  headers: Record<string, string | string[]>;
  /** The region the proxy signed the request for, when it signed it again. */
  resigned?: { region: string };
}

/**
 * The request as it goes to the target: joined to the upstream's path, without hop-by-hop headers,
 * Host set for the management API and, with `resign`, an S3 request signed again.
 */
async function outgoingRequest(
  door: 'management' | 's3',
  upstream: string,
  req: http.IncomingMessage,
  credentials: ResignCredentials | undefined,
): Promise<Outgoing | { refused: string }> {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) headers[k] = v;
  const method = req.method ?? 'GET';
  // Joined, not resolved: a path starting with // would otherwise name another host.
  const url = new URL(`${upstream.replace(/\/+$/, '')}${req.url ?? '/'}`);
  // The management API's credentials do not cover Host, and the target routes by it.
  if (door === 'management') headers.host = url.host;
  else if (credentials) {
    const signed = await resign({ method, url, headers }, credentials);
    if ('refused' in signed) return signed;
    return { url: signed.url, method, headers: signed.headers, resigned: { region: signed.region } };
  }
  return { url, method, headers };
}

/**
 * Sends the request upstream, its body streamed as it comes and kept in `sent` up to its cap, and
 * resolves with the answer's head and how long after `began` the request was on its way (ms).
 */
function sendUpstream(
  out: Outgoing,
  req: http.IncomingMessage,
  sent: BodyCollector | undefined,
  agents: Agents,
  flight: InFlight,
  began: number,
): Promise<{ answer: http.IncomingMessage; issuedAfter: number }> {
  return new Promise((resolve, reject) => {
    if (flight.left) return reject(new Error('the client left'));
    const secure = out.url.protocol === 'https:';
    const up = (secure ? https : http).request(out.url, {
      method: out.method,
      headers: out.headers,
      agent: secure ? agents.https : agents.http,
    });
    flight.up = up;
    up.setTimeout(agents.timeoutMs, () => up.destroy(new Error('the target did not answer in time')));
    up.on('error', reject);
    let issuedAfter = 0;
    up.once('response', (answer) => {
      flight.answer = answer;
      resolve({ answer, issuedAfter });
    });
    if (!sent) {
      up.end();
      issuedAfter = performance.now() - began;
      return;
    }
    // Kept as it passes: both listeners are on before the body flows, and pipe keeps the pace.
    let keeping = true;
    req.on('data', (chunk: Buffer) => {
      if (keeping) keeping = sent.push(chunk);
    });
    req.pipe(up);
    issuedAfter = performance.now() - began;
  });
}
