import http from 'node:http';
import type { AddressInfo } from 'node:net';

const BODY = JSON.stringify({ success: true, errors: [], messages: [], result: { id: 'x' } });

/** A loopback server answering a small envelope, after `latencyMs`. */
export async function startEchoServer(latencyMs = 0): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const answer = () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) });
      res.end(BODY);
    };
    req.resume();
    req.on('end', () => (latencyMs ? setTimeout(answer, latencyMs) : answer()));
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
