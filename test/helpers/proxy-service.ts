import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { proxyCommand } from '../../cli/proxy.ts';

// A whole zone: the tests read zones, and a zone read is held to zone.json in passing.
const ENVELOPE = readFileSync(new URL('../../fixtures/management/zone.json', import.meta.url), 'utf8');
const ERROR_XML =
  '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>m</Message></Error>';

/**
 * A target with answers known in advance, for a proxy's counts to be checked against:
 * management paths answer a success envelope (a retired rate_limits path too, which contradicts
 * dep.rate-limits.retired); S3 `/b/busy` answers a load balancer's 503 page, `/b/slow` waits for
 * the whole request body before answering, any other S3 GET a NoSuchKey 404 in application/xml.
 */
export async function startToyTarget(
  port = 0,
): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = req.url ?? '/';
      if (url.startsWith('/client/v4/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        // The zone asked for: its id is the path's.
        const zone = /^\/client\/v4\/zones\/([^/?]+)$/.exec(url);
        res.end(zone ? ENVELOPE.replace('"id": "z"', `"id": ${JSON.stringify(zone[1])}`) : ENVELOPE);
      } else if (url === '/b/busy') {
        res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '0' });
        res.end('503 Service Unavailable\n');
      } else {
        res.writeHead(404, { 'content-type': 'application/xml' });
        res.end(ERROR_XML);
      }
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface RunningProxy {
  management?: string;
  s3?: string;
  status?: string;
  /** Everything the command printed so far. */
  output(): string;
  /** Stops it as Ctrl-C does; resolves with its exit code and output. */
  stop(): Promise<{ code: number; output: string }>;
}

/** `edgecheck proxy ARGS` in this process, running until stop(). */
export async function runProxy(args: string[]): Promise<RunningProxy> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => {
    text += c.toString();
  });
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const done = proxyCommand(args, out, stopped);
  await Promise.race([
    new Promise<void>((resolve) => {
      const look = () => {
        if (!/Ctrl-C stops it/.test(text)) return;
        out.off('data', look);
        resolve();
      };
      out.on('data', look);
    }),
    done.then((code) => {
      throw new Error(`the proxy exited ${code} before listening: ${text}`);
    }),
  ]);
  const url = (label: RegExp) => label.exec(text)?.[1];
  return {
    management: url(/management API\s+(http:\/\/\S+)/),
    s3: url(/S3 endpoint\s+(http:\/\/\S+)/),
    status: url(/status\s+(http:\/\/[^/\s]+)/),
    output: () => text,
    stop: async () => {
      stop();
      const code = await done;
      return { code, output: text };
    },
  };
}
