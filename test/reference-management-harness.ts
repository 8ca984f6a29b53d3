import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { REFERENCE_CREDENTIALS, REFERENCE_IDS, type ReferenceContext } from '../reference/context.ts';
import { FaultSet } from '../reference/faults.ts';
import { DNS_SETTINGS_RETIREMENT } from '../reference/management/dns-settings.ts';
import { createManagementHandler } from '../reference/management/index.ts';
import { RETIRED_ENDPOINTS } from '../reference/management/retired-endpoints.ts';
import type { Retirement } from '../reference/management/retirement.ts';

export interface Answer {
  status: number;
  body: any;
}

export type Api = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<Answer>;

export interface ManagementServer {
  /** {base_url}/client/v4 */
  base: string;
  api: Api;
  ids: typeof REFERENCE_IDS;
  close(): Promise<void>;
}

export const BEARER = { authorization: `Bearer ${REFERENCE_CREDENTIALS.token}` };

/** Only the management API of the reference, on loopback: lighter than the whole reference for many dates. */
export async function startManagement(asOf: string, faults: string[] = []): Promise<ManagementServer> {
  const ctx: ReferenceContext = {
    asOf,
    faults: new FaultSet(faults),
    credentials: REFERENCE_CREDENTIALS,
    ids: REFERENCE_IDS,
    urls: { management: '', s3: '', public: '' },
  };
  const server = http.createServer({ insecureHTTPParser: true }, createManagementHandler(ctx));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/client/v4`;
  const api: Api = async (method, path, body, headers = BEARER) => {
    const res = await fetch(base + path, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: the text itself is the answer.
    }
    return { status: res.status, body: parsed };
  };
  return {
    base,
    api,
    ids: REFERENCE_IDS,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The day before a YYYY-MM-DD date. */
export function dayBefore(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

function fill(pattern: string): string {
  return pattern
    .replace(':zone_id', REFERENCE_IDS.zoneId)
    .replace(':account_id', REFERENCE_IDS.accountId)
    .replace(/:[a-z_]+/g, 'c0ffee00c0ffee00c0ffee00c0ffee00');
}

/** A request that exercises the retired subject: its first readable route, or its only action. */
export function retirementProbe(r: Retirement): [string, string] {
  const row = RETIRED_ENDPOINTS.find((e) => e.retirement === r);
  if (row) {
    const route = row.routes.find((x) => x.methods.includes('GET') && x.shape !== 'item') ?? row.routes[0];
    return [route.methods.includes('GET') ? 'GET' : route.methods[0], fill(route.pattern)];
  }
  if (r === DNS_SETTINGS_RETIREMENT)
    return ['GET', `/zones/${REFERENCE_IDS.zoneId}/dns_settings/use_apex_ns`];
  const setting = r.subject.replaceAll('-', '_');
  return ['GET', `/zones/${REFERENCE_IDS.zoneId}/settings/${setting}`];
}

/** Sends a raw request with both Transfer-Encoding and Content-Length; fetch would never send one. */
export function rawTeCl(base: string): Promise<string> {
  const url = new URL(base);
  const body = JSON.stringify({ value: 'off' });
  const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  const request =
    `PATCH ${url.pathname}/zones/${REFERENCE_IDS.zoneId}/settings/security_level HTTP/1.1\r\nHost: ${url.host}\r\n` +
    `Authorization: Bearer ${REFERENCE_CREDENTIALS.token}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunked}`;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(request));
    let answer = '';
    socket.on('data', (d) => {
      answer += d;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}
