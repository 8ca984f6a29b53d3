import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendWire } from '../runner/transports/wire.ts';
import { TargetError } from '../runner/util/errors.ts';

/** A raw TCP server: each request line picks a canned answer; the bytes received are kept. */
let server: net.Server;
let base: string;
const received: string[] = [];

const ANSWERS: Record<string, string | null> = {
  '/plain': 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Dup: a\r\nX-Dup: b\r\n\r\nhello',
  '/chunked': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n',
  '/close': 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\nbad framing',
  '/garbage': 'SSH-2.0-OpenSSH_9.6\r\n',
  '/empty': 'HTTP/1.1 204 No Content\r\nX-Done: yes\r\n\r\n',
  '/silent': null,
};

beforeAll(async () => {
  server = net.createServer((socket) => {
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      if (!data.includes('\r\n\r\n')) return;
      received.push(data);
      const path = data.split(' ')[1];
      const answer = ANSWERS[path];
      if (answer === null) return; // never answers
      // As HTTP/1.1 asks, `Connection: close` closes after the answer; otherwise the connection stays open.
      if (/\r\nconnection: close\r\n/i.test(data) || path === '/close' || path === '/garbage')
        socket.end(answer);
      else socket.write(answer);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const send = (path: string, headers: [string, string][] = [], body?: string, timeoutMs = 2000) =>
  sendWire(base, 'POST', path, headers, body, timeoutMs, new AbortController().signal);

describe('wire requests', () => {
  it('send the headers exactly as given and in order, even Transfer-Encoding with Content-Length', async () => {
    const res = await send(
      '/plain',
      [
        ['Transfer-Encoding', 'chunked'],
        ['Content-Length', '3'],
        ['x-lower', 'v'],
      ],
      '0\r\n\r\n',
    );
    expect(res.status).toBe(200);
    const raw = received[received.length - 1];
    expect(raw).toMatch(
      /^POST \/plain HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\nx-lower: v\r\nConnection: close\r\n\r\n/,
    );
  });

  it('read a Content-Length answer, joining repeated headers', async () => {
    const res = await send('/plain');
    expect(res.text()).toBe('hello');
    expect(res.headers['x-dup']).toBe('a, b');
  });

  it('de-chunk a chunked answer', async () => {
    const res = await send('/chunked');
    expect(res.status).toBe(200);
    expect(res.text()).toBe('hello world');
  });

  it('finish at the end of the answer when the server keeps the connection open', async () => {
    const keepAlive: [string, string][] = [['Connection', 'keep-alive']];
    const started = performance.now();
    const chunked = await send('/chunked', keepAlive, undefined, 3000);
    expect(chunked.text()).toBe('hello world');
    const sized = await send('/plain', keepAlive, undefined, 3000);
    expect(sized.text()).toBe('hello');
    const empty = await send('/empty', keepAlive, undefined, 3000);
    expect(empty.status).toBe(204);
    expect(empty.headers['x-done']).toBe('yes');
    // Waiting for the server to close, each would run to its 3 s timeout: 9 s for the three.
    expect(performance.now() - started).toBeLessThan(8000);
  });

  it('read an answer that ends when the server closes', async () => {
    const res = await send('/close');
    expect(res.status).toBe(400);
    expect(res.text()).toBe('bad framing');
  });

  it('an answer that is not HTTP is a TargetError quoting it', async () => {
    await expect(send('/garbage')).rejects.toThrow(TargetError);
    await expect(send('/garbage')).rejects.toThrow('answer is not HTTP: "SSH-2.0-OpenSSH_9.6\\r\\n"');
  });

  it('no answer within the timeout is a TargetError saying so', async () => {
    await expect(send('/silent', [], undefined, 200)).rejects.toThrow(
      'wire POST /silent: no complete answer within 200 ms',
    );
  });

  it('a refused connection is a TargetError', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      sendWire(`http://127.0.0.1:${port}`, 'GET', '/', [], undefined, 1000, new AbortController().signal),
    ).rejects.toThrow(/^wire GET \/: .*ECONNREFUSED/);
  });

  it('an aborted run stops a wire request', async () => {
    const controller = new AbortController();
    const pending = sendWire(base, 'GET', '/silent', [], undefined, 5000, controller.signal);
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow('wire GET /silent: aborted');
  });
});
