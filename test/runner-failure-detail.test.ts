import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleReporter } from '../reporters/console.ts';
import { renderJunit } from '../reporters/junit.ts';
import { runEdgecheck } from '../runner/api.ts';
import type { CheckResult, RunResults } from '../runner/model/results.ts';
import { ok, sendJson, startServer, type TestServer } from './helpers/engine-server.ts';
import { CANARY_TOKEN, fixtureDir, managementTarget } from './helpers/engine-target.ts';
import { feed, memoryStream } from './helpers/results-fixture.ts';

/** Bytes no text decoder would accept: NULs and invalid UTF-8 among them. */
const BLOB = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256));

let server: TestServer;
let results: RunResults;

function failing(caseId: string): CheckResult {
  const k = results.cases.find((c) => c.id === caseId)?.checks.find((x) => x.verdict === 'fail');
  if (!k) throw new Error(`no failing check in ${caseId}`);
  return k;
}

beforeAll(async () => {
  // The target echoes the run's token in a header and in the body: neither may reach a report.
  server = await startServer((req, res) => {
    const path = req.url.split('?')[0];
    if (path === '/client/v4/zones/z1') {
      res.setHeader('x-echo-token', CANARY_TOKEN);
      return sendJson(res, 200, ok({ id: 'z1', name: 'example.com', status: 'pending', note: CANARY_TOKEN }));
    }
    if (path === '/client/v4/blob') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return void res.end(BLOB);
    }
    sendJson(res, 404, {});
  });
  results = await runEdgecheck({
    suitesDir: fixtureDir('failure-detail'),
    target: managementTarget(server.url),
    asOf: '2024-06-01',
    timeoutMs: 2000,
  });
}, 20_000);

afterAll(async () => {
  await server?.close();
});

async function consoleText(): Promise<string> {
  const stream = memoryStream();
  await feed(new ConsoleReporter({ stream, color: false }), results);
  return stream.text();
}

describe('a failing check carries its case lines and exchange', () => {
  it('points at the line and column of the mismatching matcher value', () => {
    const k = failing('engine.detail.json');
    expect(k.source?.file).toMatch(/failure-detail\/mgmt\/detail\.case\.yaml$/);
    // `          /result/status: accepted` is line 11; the value starts at column 27.
    expect(k.source?.line).toBe(11);
    expect(k.source?.column).toBe(27);
    expect(k.source?.lines.map((l) => l.n)).toEqual([8, 9, 10, 11, 12]);
    expect(k.source?.lines.find((l) => l.n === 11)?.text).toBe('          /result/status: accepted');
  });

  it('renders the line with a caret under the value, in the console and in JUnit', async () => {
    const out = (await consoleText()).split('\n');
    const line = out.findIndex((l) => l.endsWith('11 |           /result/status: accepted'));
    expect(line).toBeGreaterThan(0);
    const caret = out[line + 1];
    expect(caret.indexOf('^^^^^^^^')).toBe(out[line].indexOf('accepted'));
    expect(caret.trimEnd().endsWith('^^^^^^^^')).toBe(true);
    expect(out.some((l) => /--> \S*detail\.case\.yaml:11:27$/.test(l))).toBe(true);

    const junit = renderJunit(results).split('\n');
    const j = junit.findIndex((l) => l.endsWith('11 |           /result/status: accepted'));
    expect(j).toBeGreaterThan(0);
    expect(junit[j + 1].indexOf('^^^^^^^^')).toBe(junit[j].indexOf('accepted'));
  });

  it('keeps the request and response, and no secret reaches the results, the console or JUnit', async () => {
    const k = failing('engine.detail.json');
    expect(k.exchange?.request?.method).toBe('GET');
    expect(k.exchange?.request?.url).toBe(`${server.url}/client/v4/zones/z1`);
    expect(k.exchange?.request?.headers.authorization).toBe('[REDACTED]');
    expect(k.exchange?.response.status).toBe(200);
    expect(k.exchange?.response.headers['x-echo-token']).toBe('[REDACTED]');
    expect(k.exchange?.response.body?.text).toContain('"status":"pending"');
    const console = await consoleText();
    expect(console).toContain('HTTP 200');
    expect(console).toContain('x-echo-token: [REDACTED]');
    for (const text of [JSON.stringify(results), console, renderJunit(results)]) {
      expect(text).not.toContain(CANARY_TOKEN);
    }
  });

  it('shows a binary body by its length and SHA-256, never its bytes', async () => {
    const k = failing('engine.detail.binary');
    const sha = createHash('sha256').update(BLOB).digest('hex');
    expect(k.exchange?.response.body).toEqual({ size: 5000, sha256: sha });
    const console = await consoleText();
    expect(console).toContain(`<5000 bytes of binary data, sha256 ${sha}>`);
    expect(renderJunit(results)).toContain(`&lt;5000 bytes of binary data, sha256 ${sha}&gt;`);
  });
});
