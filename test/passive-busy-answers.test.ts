import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleReporter } from '../reporters/console.ts';
import { eventsOf, listAreas, loadSuites, today } from '../runner/api.ts';
import type { LoadedSuites } from '../runner/load/suite.ts';
import type { Clause } from '../runner/model/clause.ts';
import type { RunResults } from '../runner/model/results.ts';
import { PassiveJudge, passiveResults, startProxy } from '../runner/passive/index.ts';

const asOf = today();
let clauses: Clause[];
let properties: LoadedSuites['properties'];
let target: http.Server;
let targetUrl: string;

/**
 * A target behind a load balancer: every answer is the balancer's text/plain page with the status
 * the request's x-test-status names, as a busy or restarting service gets.
 */
async function startBalancer(): Promise<void> {
  target = http.createServer((req, res) => {
    req.resume();
    const status = Number(req.headers['x-test-status'] ?? 503);
    res.writeHead(status, { 'content-type': 'text/plain', 'retry-after': '0' });
    res.end(`${status} ${http.STATUS_CODES[status]}: no server is available to handle this request\n`);
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
}

/** Sends, through the proxy, a management request and an S3 GET answered `status`; returns the verdicts. */
async function through(statuses: number[]): Promise<RunResults> {
  const judge = new PassiveJudge({ clauses, properties }, asOf);
  const proxy = await startProxy({
    upstream: { management: targetUrl, s3: targetUrl },
    onExchange: (ex) => judge.observe(ex),
  });
  try {
    for (const status of statuses) {
      const headers = { 'x-test-status': String(status) };
      for (const url of [
        `${proxy.urls.management}/client/v4/zones/${'a'.repeat(32)}/rate_limits`,
        `${proxy.urls.s3}/bucket/key`,
      ]) {
        const res = await fetch(url, { headers });
        expect(res.status).toBe(status);
        await res.text();
      }
    }
  } finally {
    await proxy.close();
  }
  return passiveResults({
    judge,
    clauses,
    mode: 'proxy',
    target: { name: 'balancer', embedded: false },
    asOf,
    startedAt: new Date(),
  });
}

const verdictOf = (r: RunResults, id: string) => r.clauses.find((c) => c.id === id)?.verdict;

describe('an answer saying the service is busy or down is counted, not judged', () => {
  beforeAll(async () => {
    const areas = listAreas();
    const suites = await loadSuites(areas, areas);
    clauses = [...suites.clauses.values()];
    properties = suites.properties;
    await startBalancer();
  });
  afterAll(async () => {
    await new Promise((resolve) => target.close(resolve));
  });

  it('429, 502, 503 and 504 pages judge no clause, and the report counts them by status', async () => {
    const r = await through([503, 429, 502, 504, 503]);
    expect(r.clauses.filter((c) => c.verdict !== 'untested').map((c) => c.id)).toEqual([]);
    expect(r.observed).toBe(10);
    expect(r.busy).toEqual({ '429': 2, '502': 2, '503': 4, '504': 2 });
    expect(r.exitCode).toBe(0);
    const text = await rendered(r);
    expect(text).toContain('10 answers said the service was busy or down (429: 2, 502: 2, 503: 4, 504: 2)');
  });

  it('the same page answered 500 is an answer, and fails the clauses the 503 did not', async () => {
    const r = await through([500]);
    expect(verdictOf(r, 'dep.rate-limits.retired')).toBe('fail');
    expect(verdictOf(r, 's3.xml.content-type')).toBe('fail');
    expect(r.busy).toEqual({});
  });
});

/** What the console reporter prints for a document. */
async function rendered(r: RunResults): Promise<string> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => {
    text += c.toString();
  });
  const reporter = new ConsoleReporter({ stream: out, color: false });
  for (const e of eventsOf(r)) reporter.onEvent(e);
  await reporter.close();
  return text;
}
