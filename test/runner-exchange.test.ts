import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Deadline } from '../runner/transports/deadline.ts';
import { exchange, splitUrl } from '../runner/transports/exchange.ts';
import { sendHttp } from '../runner/transports/http.ts';
import { KEEP_BYTES } from '../runner/transports/response.ts';
import { TargetError } from '../runner/util/errors.ts';

const MIB = 1024 * 1024;
const chunk = Buffer.alloc(64 * 1024, 0x61);
/** Bytes of the 9 MiB answer: a pattern, so that a digest of the wrong bytes differs. */
const nineMib = Buffer.alloc(9 * MIB);
for (let i = 0; i < nineMib.length; i++) nineMib[i] = i % 251;

let server: http.Server;
let base: string;
/** Bytes the endless route had written when its connection closed. */
let endlessSent = 0;
let endlessClosed: Promise<void>;

beforeAll(async () => {
  let closed!: () => void;
  endlessClosed = new Promise((resolve) => {
    closed = resolve;
  });
  server = http.createServer((req, res) => {
    req.resume();
    if (req.url === '/hints') {
      res.writeEarlyHints({ link: '</a.css>; rel=preload' });
      res.setHeader('content-type', 'application/json');
      res.end('{"success":true}');
    } else if (req.url === '/repeated') {
      res.setHeader('X-Twice', ['one', 'two']);
      res.end('ok');
    } else if (req.url === '/endless') {
      // A target that never stops sending: nothing past the cap may be read or kept.
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (res.write(chunk)) endlessSent += chunk.length;
      };
      res.on('drain', pump);
      res.on('close', closed);
      pump();
    } else if (req.url === '/nine') {
      res.writeHead(200, { 'content-length': nineMib.length });
      res.end(nineMib);
    } else if (req.url === '/stall') {
      // Answers nothing: the request holds its connection.
    } else res.end('fine');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const never = new AbortController().signal;

/** Runs `use` with an agent of its own, closed whatever happens. */
async function withAgent(use: (agent: Agent) => Promise<void>, options?: Agent.Options): Promise<void> {
  const agent = new Agent(options);
  try {
    await use(agent);
  } finally {
    await agent.close();
  }
}

const get = (agent: Agent, path: string, door: 'management' | 's3', timeoutMs = 5000) =>
  sendHttp(agent, { method: 'GET', url: `${base}${path}`, headers: {} }, { signal: never, timeoutMs, door });

describe("the engine's undici exchange", () => {
  it('skips an informational answer (103 Early Hints) and keeps the final one', async () => {
    await withAgent(async (agent) => {
      const res = await get(agent, '/hints', 'management');
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ success: true });
      expect(res.headers.link).toBeUndefined();
    });
  });

  it('gives header names in lower case and joins a repeated header with ", "', async () => {
    await withAgent(async (agent) => {
      const res = await get(agent, '/repeated', 'management');
      expect(res.headers['x-twice']).toBe('one, two');
      expect(res.text()).toBe('ok');
    });
  });

  it('stops reading a management answer at the cap: the connection closes and the body says it was cut', async () => {
    await withAgent(async (agent) => {
      const started = Date.now();
      const res = await get(agent, '/endless', 'management', 20_000);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(res.body.cut).toBe(true);
      expect(res.body.size).toBeGreaterThan(KEEP_BYTES);
      expect(res.body.bytes.length).toBeLessThanOrEqual(64 * 1024);
      expect(() => res.json()).toThrow(/reading stopped/);
      await endlessClosed;
      // The target stopped being read: it got no further than its socket buffers past the cap.
      expect(endlessSent).toBeLessThan(KEEP_BYTES + 16 * MIB);
    });
  });

  it('reads an S3 answer past the cap whole: its size and digest are of every byte, and a prefix is kept', async () => {
    await withAgent(async (agent) => {
      const res = await get(agent, '/nine', 's3');
      expect(res.body.size).toBe(nineMib.length);
      expect(res.body.truncated).toBe(true);
      expect(res.body.sha256).toBe(createHash('sha256').update(nineMib).digest('hex'));
      expect(res.body.md5).toBe(createHash('md5').update(nineMib).digest('hex'));
      expect(res.body.bytes).toEqual(nineMib.subarray(0, res.body.bytes.length));
    });
  });

  it('ends a request queued behind a stalled one when its own deadline passes, not when a connection frees', async () => {
    await withAgent(
      async (agent) => {
        const stalled = get(agent, '/stall', 'management', 4000).catch((err: unknown) => err);
        const started = Date.now();
        const queued = await get(agent, '/fine', 'management', 500).catch((err: unknown) => err);
        const waited = Date.now() - started;
        expect(queued).toBeInstanceOf(TargetError);
        expect((queued as Error).message).toBe('no complete answer to GET /fine within 500 ms (--timeout)');
        expect(waited).toBeGreaterThanOrEqual(490);
        expect(waited).toBeLessThan(2500);
        expect(await stalled).toBeInstanceOf(TargetError);
      },
      { connections: 1, headersTimeout: 60_000, bodyTimeout: 60_000 },
    );
  });

  it('sends a URL as a URL object gives it: percent-encoded, dot segments resolved, default port dropped', () => {
    expect(splitUrl('http://127.0.0.1:80/a b/../café?q="x"#frag')).toEqual({
      origin: 'http://127.0.0.1',
      path: '/caf%C3%A9?q=%22x%22',
    });
    expect(splitUrl('HTTP://u:p@Example.com/p?')).toEqual({ origin: 'http://example.com', path: '/p' });
    expect(splitUrl('http://[::1]:9000')).toEqual({ origin: 'http://[::1]:9000', path: '/' });
  });

  it('ends a request body that undici never took, when the connection is refused', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const body = Readable.from(['never', 'sent']);
    const deadline = new Deadline(5000);
    await withAgent(async (agent) => {
      const err = await exchange(
        agent,
        { method: 'PUT', url: `http://127.0.0.1:${port}/k`, headers: {}, body },
        deadline,
      ).catch((e: unknown) => e);
      deadline.clear();
      expect((err as { code?: string }).code).toBe('ECONNREFUSED');
      expect(body.destroyed).toBe(true);
    });
  });
});
