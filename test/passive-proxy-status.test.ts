import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import parsePrometheus from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readResultsDocument } from '../reporters/results-document.ts';
import type { RunResults } from '../runner/model/results.ts';
import { VERSION } from '../runner/version.ts';
import { type RunningProxy, runProxy, startToyTarget } from './helpers/proxy-service.ts';

type Families = ReturnType<typeof parsePrometheus>;

/** The value of one series: the family `name`, the sample whose labels include `labels`. */
function value(families: Families, name: string, labels: Record<string, string> = {}): number | undefined {
  const family = families.find((f) => f.name === name);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample?.value === undefined ? undefined : Number(sample.value);
}

async function get(url: string): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

let target: Awaited<ReturnType<typeof startToyTarget>>;
let proxy: RunningProxy;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-status-'));
  target = await startToyTarget();
  proxy = await runProxy([
    '--management-url',
    target.url,
    '--s3-endpoint',
    target.url,
    '--status-port',
    '0',
    '--reporter',
    `json=${path.join(dir, 'exit.json')}`,
  ]);
});
afterAll(async () => {
  await proxy?.stop();
  await target?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the status port shows what the proxy has seen, as it runs', () => {
  it('listens on loopback unless told otherwise', () => {
    expect(proxy.status).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('/metrics counts known traffic per clause and door, by status class, busy answers and upstream errors', async () => {
    expect((await get(`${proxy.status}/healthz`)).status).toBe(200);
    const zone = `${proxy.management}/client/v4/zones/${'a'.repeat(32)}`;
    for (let i = 0; i < 3; i++) await (await fetch(zone)).text();
    for (let i = 0; i < 2; i++) await (await fetch(`${zone}/rate_limits`)).text();
    for (let i = 0; i < 4; i++) await (await fetch(`${proxy.s3}/b/missing-${i}`)).text();
    expect((await fetch(`${proxy.s3}/b/busy`)).status).toBe(503);

    const metrics = await get(`${proxy.status}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = parsePrometheus(metrics.text);
    const judged = 'edgecheck_clause_exchanges_judged_total';
    const contradicting = 'edgecheck_clause_exchanges_contradicting_total';
    const retired = { clause: 'dep.rate-limits.retired' };
    expect(value(m, judged, { ...retired, door: 'management' })).toBe(2);
    expect(value(m, contradicting, { ...retired, door: 'management' })).toBe(2);
    expect(value(m, judged, { ...retired, door: 's3' })).toBe(0);
    expect(value(m, 'edgecheck_clause_verdict', { ...retired, verdict: 'fail' })).toBe(1);
    expect(value(m, 'edgecheck_clause_verdict', { ...retired, verdict: 'pass' })).toBeUndefined();
    const xml = { clause: 's3.xml.content-type' };
    expect(value(m, judged, { ...xml, door: 's3' })).toBe(4);
    expect(value(m, contradicting, { ...xml, door: 's3' })).toBe(0);
    expect(value(m, 'edgecheck_clause_verdict', { ...xml, verdict: 'pass' })).toBe(1);
    expect(value(m, judged, { clause: 'mgmt.envelope.fields', door: 'management' })).toBe(5);
    expect(value(m, 'edgecheck_clause_verdict', { clause: 's3.list.prefix', verdict: 'untested' })).toBe(1);

    const forwarded = 'edgecheck_proxy_exchanges_total';
    expect(value(m, forwarded, { door: 'management', status_class: '2xx' })).toBe(5);
    expect(value(m, forwarded, { door: 's3', status_class: '4xx' })).toBe(4);
    expect(value(m, forwarded, { door: 's3', status_class: '5xx' })).toBe(1);
    expect(value(m, 'edgecheck_proxy_busy_answers_total', { door: 's3', status: '503' })).toBe(1);
    const latency = m.find((f) => f.name === 'edgecheck_proxy_added_latency_seconds');
    expect(latency?.type).toBe('HISTOGRAM');
    expect(Number(latency?.metrics[0].count)).toBe(10);
    expect(value(m, 'process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
    expect(value(m, 'edgecheck_build_info', { version: VERSION })).toBe(1);
  });
});

describe('the status port serves the reports and the health', () => {
  it('/report.json and /report.html are the documents as they stand, busy answers counted', async () => {
    const json = await get(`${proxy.status}/report.json`);
    expect(json.type).toBe('application/json');
    const file = path.join(dir, 'now.json');
    writeFileSync(file, json.text);
    const doc: RunResults = readResultsDocument(file);
    expect(doc.mode).toBe('proxy');
    expect(doc.observed).toBe(10);
    expect(doc.busy).toEqual({ '503': 1 });
    expect(doc.clauses.find((c) => c.id === 'dep.rate-limits.retired')?.verdict).toBe('fail');
    const contradicted = doc.cases.find((c) => c.id === 'passive dep.rate-limits.retired')?.checks[0];
    expect(contradicted?.contradictions).toBe(2);
    const html = await get(`${proxy.status}/report.html`);
    expect(html.type).toMatch(/^text\/html/);
    expect(html.text).toContain('dep.rate-limits.retired');
    expect(html.text).toContain('1 answer said the service was busy or down (503: 1)');
  });

  it('/healthz turns 503 when the target stops answering, and the refusal is an upstream error', async () => {
    const port = target.port;
    await target.close();
    expect((await fetch(`${proxy.management}/client/v4/zones/${'b'.repeat(32)}`)).status).toBe(502);
    const health = await get(`${proxy.status}/healthz`);
    expect(health.status).toBe(503);
    expect(health.text).toContain('management: the target did not answer (refused');
    const m = parsePrometheus((await get(`${proxy.status}/metrics`)).text);
    expect(value(m, 'edgecheck_proxy_upstream_errors_total', { door: 'management', kind: 'refused' })).toBe(
      1,
    );
    expect(
      value(m, 'edgecheck_clause_exchanges_judged_total', {
        clause: 'mgmt.envelope.fields',
        door: 'management',
      }),
    ).toBe(5);
    target = await startToyTarget(port);
    expect((await fetch(`${proxy.management}/client/v4/zones/${'b'.repeat(32)}`)).status).toBe(200);
    expect((await get(`${proxy.status}/healthz`)).status).toBe(200);
    const { code } = await proxy.stop();
    expect(code).toBe(1);
    const exit = readResultsDocument(path.join(dir, 'exit.json'));
    expect(exit.upstreamErrors).toEqual({ refused: 1 });
  });
});
