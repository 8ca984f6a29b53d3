import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runEdgecheck } from '../runner/api.ts';
import type { RunResults } from '../runner/model/results.ts';
import { PROJECT_ROOT } from './helpers/cli.ts';

/*
 * A server that answers every request the same way implements nothing, so a clause it passes is
 * either one whose statement is true of such a server (listed in baselines/constant-servers.yaml
 * with why) or a check that does not look at what its clause promises. Every suite runs against
 * six such servers, each standing for both the management API and the S3 endpoint.
 */

const SERVERS: Record<string, (res: ServerResponse) => void> = {
  'ok-empty': (res) => res.writeHead(200).end(),
  'ok-random': (res) => res.writeHead(200).end(randomBytes(64)),
  'envelope-400': (res) =>
    res.writeHead(400, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        success: false,
        errors: [{ code: 1001, message: 'refused' }],
        messages: [],
        result: null,
      }),
    ),
  'not-found': (res) => res.writeHead(404).end(),
  throttled: (res) => res.writeHead(429).end(),
  'error-500': (res) => res.writeHead(500).end(),
};

interface Expected {
  servers: Record<string, string>;
  passes: Record<string, { servers: string[]; why: string }>;
}

const expected = parse(
  readFileSync(path.join(PROJECT_ROOT, 'baselines', 'constant-servers.yaml'), 'utf8'),
) as Expected;

const closers: (() => Promise<void>)[] = [];
const passing = new Map<string, string[]>();

async function constantServer(answer: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// The runs at once, each against a server of its own: a run here spends more than half its time
// waiting, not computing, and the others fill those waits.
beforeAll(async () => {
  await Promise.all(Object.entries(SERVERS).map(([name, answer]) => runAgainst(name, answer)));
}, 120_000);

async function runAgainst(name: string, answer: (res: ServerResponse) => void): Promise<void> {
  const url = await constantServer(answer);
  const results: RunResults = await runEdgecheck({
    target: {
      name,
      features: ['legacy-auth', 'public-buckets', 'migration', 'raw-wire'],
      management: {
        baseUrl: url,
        token: 'constant-server-token',
        legacy: { email: 'someone@example.com', key: 'constant-server-key' },
        accountId: 'a'.repeat(32),
        zoneId: 'b'.repeat(32),
        ids: { invite: 'c'.repeat(32), certificatePack: 'd'.repeat(32) },
      },
      s3: {
        endpoint: url,
        publicUrl: url,
        region: 'auto',
        addressing: 'path',
        accessKeyId: 'AKIDCONSTANTSERVER01',
        secretAccessKey: 'constant/server/secret/0123456789abcdefgh',
      },
    },
    asOf: '2026-11-23',
    // A 429 or 5xx is judged at once: retrying what never changes only takes time.
    retries: 0,
    concurrency: 16,
  });
  passing.set(
    name,
    results.clauses.filter((c) => c.verdict === 'pass').map((c) => c.id),
  );
}

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

describe('every suite against servers that answer every request the same way', () => {
  for (const name of Object.keys(SERVERS)) {
    it(`${name} (${expected.servers[name]}): passes only the clauses whose statement holds for it`, () => {
      const allowed = Object.entries(expected.passes)
        .filter(([, p]) => p.servers.includes(name))
        .map(([id]) => id)
        .sort();
      expect([...(passing.get(name) ?? [])].sort()).toEqual(allowed);
    });
  }

  it('the list names only these servers, and says why for each clause', () => {
    expect(Object.keys(expected.servers).sort()).toEqual(Object.keys(SERVERS).sort());
    for (const [id, p] of Object.entries(expected.passes)) {
      expect(p.why.length, id).toBeGreaterThan(20);
      for (const s of p.servers) expect(Object.keys(SERVERS), id).toContain(s);
    }
  });
});
