import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a mutation sees of one answer, and may change in place. */
export interface Exchange {
  method: string;
  /** Path under /client/v4, without the query. */
  path: string;
  query: URLSearchParams;
  /** Request headers (lower-case names). */
  headers: IncomingHttpHeaders;
  status: number;
  /** The parsed JSON body, or undefined when the answer is not JSON. */
  json: any;
}

export interface Mutation {
  /** Rewrites the query before forwarding (e.g. drops a parameter); return true when it changed something. */
  request?: (method: string, path: string, query: URLSearchParams) => boolean;
  /** Changes the answer; return true when it changed something. */
  response?: (ex: Exchange) => boolean;
}

export interface MutatingProxy {
  /** http://127.0.0.1:PORT: use as the management base URL. */
  url: string;
  /** How many requests and answers the mutation changed. */
  changed(): number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

function forwardHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || HOP_BY_HOP.has(k)) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/**
 * A loopback HTTP proxy in front of a management API that changes chosen answers: a stand-in for an
 * implementation that gets one thing wrong, where the reference has no fault for it.
 */
export async function startMutatingProxy(upstream: string, mutation: Mutation): Promise<MutatingProxy> {
  let changed = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const url = new URL(req.url ?? '/', upstream);
        const method = req.method ?? 'GET';
        const path = url.pathname.replace(/^\/client\/v4/, '');
        if (mutation.request?.(method, path, url.searchParams)) changed++;
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(url, { method, headers: forwardHeaders(req.headers), body });
        let bytes = Buffer.from(await answer.arrayBuffer());
        let status = answer.status;
        const type = answer.headers.get('content-type') ?? '';
        if (mutation.response && type.includes('json') && bytes.length > 0) {
          const json = JSON.parse(bytes.toString('utf8'));
          const ex: Exchange = { method, path, query: url.searchParams, headers: req.headers, status, json };
          if (mutation.response(ex)) {
            changed++;
            status = ex.status;
            bytes = Buffer.from(JSON.stringify(ex.json));
          }
        }
        res.writeHead(status, {
          'content-type': type || 'application/octet-stream',
          'content-length': bytes.length,
        });
        res.end(bytes);
      } catch {
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    changed: () => changed,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
