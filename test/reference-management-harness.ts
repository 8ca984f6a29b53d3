import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { REFERENCE_CREDENTIALS, REFERENCE_IDS, type ReferenceContext } from '../reference/context.ts';
import { FaultSet } from '../reference/faults.ts';
import { createManagementHandler } from '../reference/management/index.ts';

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
