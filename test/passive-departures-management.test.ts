import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { startReference } from '../reference/server.ts';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { LoadedSuites } from '../runner/load/suite.ts';
import type { RunResults } from '../runner/model/results.ts';
import { startProxy } from '../runner/passive/index.ts';
import { ROOT } from '../runner/util/paths.ts';
import { haveTool } from './helpers/not-run.ts';
import { clauseVerdicts, expectFailsInPassing, RecordingJudge } from './helpers/passive-recording.ts';

/*
 * The management departures everyday traffic carries, judged in passing: a plain Python script
 * (test/passive/traffic_mgmt.py, urllib only) lists, reads, creates, changes and deletes through
 * the proxy in front of the reference. Fault-free, no clause fails, and the clauses its answers
 * reach pass; with each fault on, the clause that fault breaks fails, and nothing outside the
 * clauses it breaks. Answers that differ from the reference's only in what SPEC leaves free (header
 * case and parameters, Connection: close, a notice in messages) change no verdict.
 */

const SCRIPT = path.join(ROOT, 'test', 'passive', 'traffic_mgmt.py');
const run = promisify(execFile);
const HAVE_PYTHON = haveTool(
  'python3',
  'management traffic of a plain Python script judged in passing (test/passive-departures-management.test.ts)',
  'apt-get install python3',
);

const asOf = today();
let suites: LoadedSuites;

/** The clauses this traffic reaches, which pass fault-free. */
const REACHED = [
  'mgmt.envelope.fields',
  'mgmt.envelope.success',
  'mgmt.errors.envelope',
  'mgmt.errors.object',
  'mgmt.result-info.fields',
  'mgmt.zones.get',
  'mgmt.dns.record-fields',
  'mgmt.dns.name',
  'mgmt.dns-settings.types',
  'mgmt.pagination.order',
  'mgmt.pagination.echo',
  'mgmt.envelope.result-info',
  'mgmt.envelope.json-media-type',
  'mgmt.zones.id',
  'mgmt.dns.list',
  'mgmt.dns.create',
  'mgmt.dns.get',
  'mgmt.dns.patch',
  'mgmt.dns.put',
  'mgmt.dns-settings.show',
];

/**
 * Between the proxy and the reference: answers rewritten as SPEC allows, with the header names
 * capitalised, the content type's parameter in capitals, the connection closed after each answer,
 * and a notice in the messages of every JSON envelope.
 */
async function startVariants(upstream: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const headers = { ...req.headers } as Record<string, string>;
    for (const name of ['host', 'content-length', 'connection', 'transfer-encoding']) delete headers[name];
    const answer = await fetch(`${upstream}${req.url}`, { method: req.method, headers, body });
    let text = await answer.text();
    try {
      const env = JSON.parse(text);
      env.messages = [
        ...(env.messages ?? []),
        { code: 10000, message: 'This zone is on a plan that ends soon.' },
      ];
      text = JSON.stringify(env);
    } catch {
      // Not JSON: passed on as it is.
    }
    const out: [string, string][] = [['Connection', 'close']];
    for (const [name, value] of answer.headers) {
      if (['content-length', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)) continue;
      const capitalised = name.replace(
        /(^|-)([a-z])/g,
        (_m, dash: string, c: string) => dash + c.toUpperCase(),
      );
      out.push([
        capitalised,
        name === 'content-type' ? value.replace(/charset=utf-8/i, 'Charset=UTF-8') : value,
      ]);
    }
    res.writeHead(answer.status, out.flat());
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The script's traffic through the proxy to the reference with `faults` (through the variants, where asked). */
async function observe(faults: string[] = [], variants = false): Promise<RunResults> {
  const ref = await startReference({ asOf, faults });
  const front = variants ? await startVariants(ref.urls.management) : undefined;
  const upstream = { management: front?.url ?? ref.urls.management };
  const judged = new RecordingJudge(suites, asOf, upstream);
  const proxy = await startProxy({ upstream, onExchange: judged.onExchange });
  const startedAt = new Date();
  try {
    const base = `${proxy.urls.management}/client/v4`;
    const { token } = ref.context.credentials;
    await run('python3', [SCRIPT, '--base', base, '--token', token, '--zone', ref.context.ids.zoneId], {
      timeout: 60_000,
    });
  } finally {
    await proxy.close();
    await front?.close();
    await ref.close();
  }
  const results = judged.results(startedAt);
  // edgecheck judge on the proxy's recording of the same traffic gives the same verdicts.
  expect(clauseVerdicts(await judged.judgedAgain())).toEqual(clauseVerdicts(results));
  return results;
}

const verdicts = (r: RunResults) => Object.fromEntries(r.clauses.map((c) => [c.id, c.verdict]));
const failing = (r: RunResults) =>
  r.clauses.filter((c) => c.verdict === 'fail' || c.verdict === 'error').map((c) => c.id);

describe.skipIf(!HAVE_PYTHON)('management departures in everyday traffic are judged in passing', () => {
  beforeAll(async () => {
    const areas = listAreas();
    suites = await loadSuites(areas, areas);
  });

  it('fault-free: no clause fails, and every clause the traffic reaches passes', async () => {
    const results = await observe();
    expect(failing(results)).toEqual([]);
    const v = verdicts(results);
    for (const id of REACHED) expect(v[id], id).toBe('pass');
  }, 60_000);

  it('answers that differ only where SPEC leaves them free change no verdict', async () => {
    const results = await observe([], true);
    expect(failing(results)).toEqual([]);
    const v = verdicts(results);
    for (const id of REACHED) expect(v[id], id).toBe('pass');
  }, 60_000);

  for (const [fault, clause] of [
    ['dns-ttl-as-string', 'mgmt.dns.record-fields'],
    ['zone-status-enabled', 'mgmt.zones.get'],
    ['relative-record-name', 'mgmt.dns.name'],
    ['name-trailing-dot', 'mgmt.dns.name'],
    ['missing-record-200-null', 'mgmt.errors.envelope'],
    ['no-route-html', 'mgmt.envelope.fields'],
    ['ignore-direction', 'mgmt.pagination.order'],
    ['echo-default-per-page', 'mgmt.pagination.echo'],
    ['per-page-over-10-ignored', 'mgmt.pagination.echo'],
    ['json-labelled-text-plain', 'mgmt.envelope.json-media-type'],
    ['error-json-labelled-html', 'mgmt.envelope.json-media-type'],
    ['zone-id-mismatch', 'mgmt.zones.id'],
    ['dns-get-id-is-zone-id', 'mgmt.dns.get'],
    ['put-merges-record', 'mgmt.dns.put'],
    ['dns-settings-omit-false', 'mgmt.dns-settings.show'],
  ] as const) {
    it(`with the fault ${fault}, ${clause} fails, and nothing outside the fault's clauses`, async () => {
      expectFailsInPassing(await observe([fault]), fault, clause);
    }, 60_000);
  }
});
