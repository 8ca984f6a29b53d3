import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { Agent } from 'undici';
import { undiciAgent, undiciConnector } from '../util/packages.ts';
import { keepReading, type Writing } from './early-answer.ts';

/**
 * RFC 6761: every name under .localhost is loopback. Resolvers differ on this, so the runner
 * answers it itself; virtual-hosted addressing (<bucket>.localhost) then works against a local target.
 */
export function lookupLocalhost(
  hostname: string,
  options: { all?: boolean; family?: number } | number,
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  const opts = typeof options === 'number' ? { family: options } : (options ?? {});
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    if (opts.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
    return;
  }
  dnsLookup(hostname, opts as any, callback as any);
}

/** One keep-alive pool per run: connections are reused across cases. */
export function createAgent(connections: number, timeoutMs: number): Agent {
  const connector = undiciConnector()({ lookup: lookupLocalhost as any, timeout: timeoutMs });
  const UndiciAgent = undiciAgent();
  return new UndiciAgent({
    connections: Math.max(connections, 4),
    keepAliveTimeout: 4000,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // An answer sent before the request body was is kept (early-answer.ts).
    connect: (options, done) =>
      connector(options, (err, socket) => {
        if (socket) keepReading(socket as unknown as Writing);
        (done as (e: Error | null, s: typeof socket) => void)(err, socket);
      }),
  });
}
