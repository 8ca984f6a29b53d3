import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { LoadedSuites } from '../runner/load/suite.ts';
import type { Clause } from '../runner/model/clause.ts';
import {
  PassiveJudge,
  type ProxyHandle,
  ProxyStats,
  passiveResults,
  startProxy,
} from '../runner/passive/index.ts';
import { startToyTarget } from './helpers/proxy-service.ts';

const asOf = today();
const ZONE = `/client/v4/zones/${'a'.repeat(32)}`;
let clauses: Clause[];
let properties: LoadedSuites['properties'];

/** A proxy in front of `upstream`, judging and counting, with short client deadlines. */
async function proxyTo(
  upstream: string,
  bounds: { maxConnections?: number; keepAliveTimeoutMs?: number } = {},
) {
  const judge = new PassiveJudge({ clauses, properties }, asOf);
  const stats = new ProxyStats();
  const proxy = await startProxy({
    upstream: { management: upstream, s3: upstream },
    stats,
    timeoutMs: 2000,
    headersTimeoutMs: 400,
    keepAliveTimeoutMs: 500,
    ...bounds,
    onExchange: (ex) => judge.observe(ex),
  });
  const verdicts = () =>
    passiveResults({
      judge,
      clauses,
      mode: 'proxy',
      target: { name: 't', embedded: false },
      asOf,
      startedAt: new Date(),
    });
  return { judge, stats, proxy, verdicts };
}

/** Nothing the trouble caused is held against a clause. */
function noClauseContradicted(judge: PassiveJudge): void {
  for (const [clause, c] of judge.counts) expect(c.contradicting, clause).toEqual({ management: 0, s3: 0 });
}

async function status(url: string): Promise<number> {
  const res = await fetch(url);
  await res.text();
  return res.status;
}

/** A raw connection to the proxy's management door. */
async function socketTo(proxy: ProxyHandle): Promise<net.Socket> {
  const url = new URL(proxy.urls.management as string);
  const socket = net.connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  return socket;
}

/** Resolves when the socket closes, with what the proxy sent on it. */
function closed(socket: net.Socket): Promise<string> {
  let got = '';
  socket.on('data', (d) => {
    got += d;
  });
  socket.on('error', () => undefined);
  return new Promise((resolve) => socket.on('close', () => resolve(got)));
}

beforeAll(async () => {
  const areas = listAreas();
  const suites = await loadSuites(areas, areas);
  clauses = [...suites.clauses.values()];
  properties = suites.properties;
});

/** A client that asks once on its own connection, then keeps it open and says nothing more. */
async function idleClient(proxy: ProxyHandle, clients: net.Socket[], onClose: () => void): Promise<string> {
  const socket = await socketTo(proxy);
  clients.push(socket);
  socket.on('error', () => undefined);
  socket.on('close', onClose);
  socket.write(`GET ${ZONE} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`);
  // Read with a listener: breaking out of the socket's iterator would close it.
  return new Promise<string>((resolve) => {
    let got = '';
    const read = (chunk: Buffer) => {
      got += chunk;
      // The answer is chunked: it ends with the last chunk.
      if (!got.endsWith('\r\n0\r\n\r\n')) return;
      socket.off('data', read);
      resolve(got.slice(9, 12));
    };
    socket.on('data', read);
  });
}

describe('trouble at the target is upstream errors, never a verdict, and the proxy goes on', () => {
  it('a target refusing connections, then restarting, is upstream errors; forwarding resumes', async () => {
    let target = await startToyTarget();
    const { judge, stats, proxy, verdicts } = await proxyTo(target.url);
    try {
      expect(await status(`${proxy.urls.management}${ZONE}`)).toBe(200);
      await target.close();
      for (let i = 0; i < 3; i++) expect(await status(`${proxy.urls.management}${ZONE}`)).toBe(502);
      expect(await status(`${proxy.urls.s3}/b/k`)).toBe(502);
      expect(stats.upstreamErrors).toEqual({ management: { refused: 3 }, s3: { refused: 1 } });
      target = await startToyTarget(target.port);
      expect(await status(`${proxy.urls.management}${ZONE}`)).toBe(200);
      expect(await status(`${proxy.urls.s3}/b/k`)).toBe(404);
      expect(stats.forwarded).toEqual({ management: { '2xx': 2 }, s3: { '4xx': 1 } });
      expect(stats.latest).toEqual({ management: { ok: true }, s3: { ok: true } });
      noClauseContradicted(judge);
      expect(verdicts().clauses.filter((c) => c.verdict === 'fail')).toEqual([]);
      expect(judge.observed).toBe(3);
    } finally {
      await proxy.close();
      await target.close();
    }
  });

  it('a target that resets the connection, or stops mid-answer, is an upstream error, not an answer', async () => {
    const target = http.createServer((req, res) => {
      if (req.url === '/b/reset') return req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': '1000' });
      res.write('<ListBucketResult>');
      setImmediate(() => req.socket.destroy());
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const { judge, stats, proxy } = await proxyTo(
      `http://127.0.0.1:${(target.address() as AddressInfo).port}`,
    );
    try {
      expect(await status(`${proxy.urls.s3}/b/reset`)).toBe(502);
      await expect(fetch(`${proxy.urls.s3}/b?list-type=2`).then((r) => r.text())).rejects.toThrow();
      expect(stats.upstreamErrors.s3).toEqual({ reset: 1, cut: 1 });
      expect(judge.observed).toBe(0);
      noClauseContradicted(judge);
    } finally {
      await proxy.close();
      await new Promise((r) => target.close(r));
    }
  });
});

describe('trouble from clients is cut or counted, and the proxy goes on', () => {
  it('a client sending garbage, or trickling its headers, is cut; the proxy goes on serving', async () => {
    const target = await startToyTarget();
    const { judge, stats, proxy } = await proxyTo(target.url);
    try {
      const garbage = await socketTo(proxy);
      const garbageClosed = closed(garbage);
      garbage.write('\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not HTTP at all\r\n\r\n');
      await garbageClosed;

      const slow = await socketTo(proxy);
      const slowClosed = closed(slow);
      const header = `GET ${ZONE} HTTP/1.1\r\nHost: x\r\nX-Slow: ${'y'.repeat(200)}\r\n\r\n`;
      let sent = 0;
      // One byte every 20 ms: the headers would take 5 s; the proxy allows 400 ms.
      const trickle = setInterval(() => {
        if (!slow.destroyed && sent < header.length) slow.write(header[sent++]);
      }, 20);
      const got = await slowClosed;
      clearInterval(trickle);
      // Closed before the headers were whole, however slowly a loaded machine runs the trickle.
      expect(sent).toBeLessThan(header.length);
      expect(got).not.toContain('200 OK');

      expect(await status(`${proxy.urls.management}${ZONE}`)).toBe(200);
      expect(judge.observed).toBe(1);
      expect(stats.upstreamErrors).toEqual({ management: {}, s3: {} });
    } finally {
      await proxy.close();
      await target.close();
    }
  });
});

describe('the proxy bounds its sockets', () => {
  it('1,000 idle keep-alive clients are served on bounded upstream sockets, and another besides', async () => {
    const target = await startToyTarget();
    const upstreamSockets = new Set<net.Socket>();
    let upstreamPeak = 0;
    const counter = net.createServer((client) => {
      // Counts the proxy's connections to the target, passing bytes through.
      const to = net.connect(target.port, '127.0.0.1');
      upstreamSockets.add(client);
      upstreamPeak = Math.max(upstreamPeak, upstreamSockets.size);
      client.pipe(to).pipe(client);
      const gone = () => {
        upstreamSockets.delete(client);
        client.destroy();
        to.destroy();
      };
      client.on('close', gone).on('error', gone);
      to.on('close', gone).on('error', gone);
    });
    await new Promise<void>((r) => counter.listen(0, '127.0.0.1', r));
    // Idle connections stay for 5 minutes here, however long 1,000 clients take on a busy machine.
    const { judge, proxy } = await proxyTo(`http://127.0.0.1:${(counter.address() as AddressInfo).port}`, {
      keepAliveTimeoutMs: 300_000,
    });
    const clients: net.Socket[] = [];
    let closedByProxy = 0;
    try {
      const url = new URL(`${proxy.urls.management}${ZONE}`);
      const one = () =>
        idleClient(proxy, clients, () => {
          closedByProxy += 1;
        });
      const statuses = await Promise.all(Array.from({ length: 1000 }, one));
      expect(statuses.filter((s) => s !== '200')).toEqual([]);
      // Every client holds its idle connection, and the target saw at most 64 of the proxy's.
      expect(closedByProxy).toBe(0);
      expect(await proxy.connections()).toBe(1000);
      expect(upstreamPeak).toBeLessThanOrEqual(64);
      // Another client is served while they idle.
      expect(await status(url.href)).toBe(200);
      expect(judge.observed).toBe(1001);
    } finally {
      for (const c of clients) c.destroy();
      await proxy.close();
      await new Promise((r) => counter.close(r));
      for (const s of upstreamSockets) s.destroy();
      await target.close();
    }
  }, 120_000);

  it('idle keep-alive connections are closed at the keep-alive deadline', async () => {
    const target = await startToyTarget();
    const { proxy } = await proxyTo(target.url, { keepAliveTimeoutMs: 300 });
    const clients: net.Socket[] = [];
    let closedByProxy = 0;
    try {
      const count = () => {
        closedByProxy += 1;
      };
      const statuses = await Promise.all(Array.from({ length: 20 }, () => idleClient(proxy, clients, count)));
      expect(statuses.filter((s) => s !== '200')).toEqual([]);
      // The proxy's count reaches 0 before each client has read its close: on a loaded machine half
      // the clients' close events were still to come when the count was read, so both are awaited.
      const deadline = Date.now() + 15_000;
      while (((await proxy.connections()) > 0 || closedByProxy < 20) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(await proxy.connections()).toBe(0);
      expect(closedByProxy).toBe(20);
    } finally {
      for (const c of clients) c.destroy();
      await proxy.close();
      await target.close();
    }
  });

  it('past its connection bound a door closes new connections, and serves again once some leave', async () => {
    const target = await startToyTarget();
    const { proxy } = await proxyTo(target.url, { maxConnections: 5 });
    const sockets: net.Socket[] = [];
    try {
      for (let i = 0; i < 5; i++) sockets.push(await socketTo(proxy));
      const extra = await socketTo(proxy);
      await closed(extra);
      for (const s of sockets) s.destroy();
      const deadline = Date.now() + 5000;
      while ((await proxy.connections()) > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(await status(`${proxy.urls.management}${ZONE}`)).toBe(200);
    } finally {
      for (const s of sockets) s.destroy();
      await proxy.close();
      await target.close();
    }
  });
});

describe('a client that leaves', () => {
  it('a client leaving mid-upload is counted as a client gone, not an upstream error, and judged on nothing', async () => {
    const target = await startToyTarget();
    const { judge, stats, proxy } = await proxyTo(target.url);
    try {
      await new Promise<void>((resolve) => {
        const req = http.request(`${proxy.urls.s3}/b/upload`, {
          method: 'PUT',
          headers: { 'content-length': String(64 * 1024 * 1024) },
        });
        req.on('error', () => resolve());
        req.write(Buffer.alloc(1024 * 1024), () => {
          req.destroy();
          resolve();
        });
      });
      const deadline = Date.now() + 5000;
      while (stats.clientsLeft === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(stats.clientsLeft).toBe(1);
      expect(stats.upstreamErrors).toEqual({ management: {}, s3: {} });
      expect(judge.observed).toBe(0);
      expect(await status(`${proxy.urls.s3}/b/k`)).toBe(404);
      expect(judge.observed).toBe(1);
    } finally {
      await proxy.close();
      await target.close();
    }
  });
});
