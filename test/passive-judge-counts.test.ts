import { beforeAll, describe, expect, it } from 'vitest';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { LoadedSuites } from '../runner/load/suite.ts';
import type { Clause } from '../runner/model/clause.ts';
import { type ObservedExchange, PassiveJudge, passiveResults } from '../runner/passive/index.ts';
import { BodyCollector } from '../runner/transports/response.ts';

const asOf = today();
let clauses: Clause[];
let properties: LoadedSuites['properties'];

const ERROR_XML =
  '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>m</Message></Error>';

function body(text: string) {
  const c = new BodyCollector();
  c.push(Buffer.from(text));
  return c.done();
}

/** The results document of what `judge` saw, as `edgecheck judge` writes it. */
function judged(judge: PassiveJudge) {
  return passiveResults({
    judge,
    clauses,
    mode: 'judge',
    target: { name: 'counts', embedded: false },
    asOf,
    startedAt: new Date(),
  });
}

/** An S3 GET of a missing key answered 404 with an Error document of `contentType`. */
function missingKey(key: string, contentType: string, startedAt: string): ObservedExchange {
  return {
    door: 's3',
    request: { method: 'GET', target: `/bucket/${key}`, headers: { host: 'proxy' } },
    response: { status: 404, headers: { 'content-type': contentType }, body: body(ERROR_XML) },
    startedAt,
  };
}

describe('a contradicted clause keeps its first and latest contradicting exchange, and counts per door', () => {
  beforeAll(async () => {
    const areas = listAreas();
    const suites = await loadSuites(areas, areas);
    clauses = [...suites.clauses.values()];
    properties = suites.properties;
  });

  it('judging goes on after a contradiction: the count, the first and the latest are kept', () => {
    const judge = new PassiveJudge({ clauses, properties }, asOf);
    judge.observe(missingKey('ok-1', 'application/xml', '2026-01-01T00:00:00.000Z'));
    judge.observe(missingKey('bad-first', 'text/plain', '2026-01-01T00:00:01.000Z'));
    judge.observe(missingKey('ok-2', 'application/xml', '2026-01-01T00:00:02.000Z'));
    judge.observe(missingKey('bad-second', 'text/html', '2026-01-01T00:00:03.000Z'));
    judge.observe(missingKey('bad-latest', 'text/plain', '2026-01-01T00:00:04.000Z'));
    const management: ObservedExchange = {
      door: 'management',
      request: { method: 'GET', target: '/client/v4/zones/z', headers: {} },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: body(JSON.stringify({ success: true, errors: [], messages: [], result: { id: 'z' } })),
      },
    };
    judge.observe(management);

    const counts = judge.counts.get('s3.xml.content-type');
    expect(counts?.judged).toEqual({ management: 0, s3: 5 });
    expect(counts?.contradicting).toEqual({ management: 0, s3: 3 });
    // A clause two checks judge counts one exchange once.
    expect(judge.counts.get('mgmt.envelope.fields')?.judged).toEqual({ management: 1, s3: 0 });
    expect(judge.counts.get('mgmt.envelope.fields')?.contradicting).toEqual({ management: 0, s3: 0 });
    expect(judge.counts.get('s3.xml.error-no-xmlns')?.contradicting.s3).toBe(0);

    const results = judged(judge);
    expect(results.clauses.find((c) => c.id === 's3.xml.content-type')?.verdict).toBe('fail');
    const check = results.cases.find((c) => c.id === 'passive s3.xml.content-type')?.checks[0];
    expect(check?.verdict).toBe('fail');
    expect(check?.contradictions).toBe(3);
    expect(check?.exchange?.request?.url).toBe('/bucket/bad-first');
    expect(check?.latestExchange?.request?.url).toBe('/bucket/bad-latest');
    expect(check?.message).toContain('contradicted by 3 exchanges');
    expect(check?.message).toContain('the latest at 2026-01-01T00:00:04.000Z');
  });

  it('one contradiction has no separate latest exchange', () => {
    const judge = new PassiveJudge({ clauses, properties }, asOf);
    judge.observe(missingKey('bad', 'text/plain', '2026-01-01T00:00:00.000Z'));
    const results = judged(judge);
    const check = results.cases.find((c) => c.id === 'passive s3.xml.content-type')?.checks[0];
    expect(check?.contradictions).toBe(1);
    expect(check?.latestExchange).toBeUndefined();
  });
});
