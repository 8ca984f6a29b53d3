import { beforeAll, describe, expect, it } from 'vitest';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { LoadedSuites } from '../runner/load/suite.ts';
import { type ObservedExchange, PassiveJudge } from '../runner/passive/index.ts';
import { bufferBody, partBody } from '../runner/transports/response.ts';

// Live traffic holds answers no run of ours provokes. An observer that cannot tell what an answer
// means leaves it unjudged rather than failing a clause on it: these are such answers, each beside
// the twin the same observer does judge, so that "unjudged" is not "never judges".

let suites: LoadedSuites;

function exchange(
  door: ObservedExchange['door'],
  method: string,
  target: string,
  status: number,
  body: string | Buffer,
  headers: Record<string, string> = {},
  requestHeaders: Record<string, string> = {},
): ObservedExchange {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return {
    door,
    request: { method, target, headers: requestHeaders },
    response: { status, headers, body: bufferBody(bytes) },
  };
}

/** The verdict each observed clause gets from these exchanges alone. */
function verdicts(...exchanges: ObservedExchange[]): Record<string, string> {
  const judge = new PassiveJudge(
    { clauses: suites.clauses.values(), properties: suites.properties },
    today(),
  );
  for (const ex of exchanges) judge.observe(ex);
  const out: Record<string, string> = {};
  for (const c of judge.cases()) for (const id of c.checks[0].clauses) out[id] = c.verdict;
  return out;
}

const page = (result: unknown[], resultInfo: Record<string, unknown>) =>
  JSON.stringify({ success: true, errors: [], messages: [], result, result_info: resultInfo });

beforeAll(async () => {
  const areas = listAreas();
  suites = await loadSuites(areas, areas);
});

describe('observers leave unjudged what they cannot read, and judge its twin', () => {
  it('result_info without count (a cursor-paginated list) is not judged for count; a wrong count is', () => {
    const cursor = exchange(
      'management',
      'GET',
      '/client/v4/accounts/a/things',
      200,
      page([{}, {}], { cursor: 'x' }),
    );
    expect(verdicts(cursor)['mgmt.result-info.count']).toBeUndefined();
    const wrong = exchange(
      'management',
      'GET',
      '/client/v4/accounts/a/things',
      200,
      page([{}, {}], { count: 3 }),
    );
    expect(verdicts(wrong)['mgmt.result-info.count']).toBe('fail');
  });

  it('addresses ordered by value pass order=content; a page in the other direction fails', () => {
    const items = ['9.0.0.1', '10.0.0.2', '192.0.2.1'].map((content) => ({ content }));
    const target = '/client/v4/zones/z/dns_records?order=content&direction=asc';
    expect(
      verdicts(exchange('management', 'GET', target, 200, page(items, {})))['mgmt.pagination.order'],
    ).toBe('pass');
    const desc = target.replace('asc', 'desc');
    expect(verdicts(exchange('management', 'GET', desc, 200, page(items, {})))['mgmt.pagination.order']).toBe(
      'fail',
    );
  });

  it('a 206 whose recording was cut is judged by its size, not its kept bytes; a short one fails', () => {
    const cut: ObservedExchange = {
      ...exchange(
        's3',
        'GET',
        '/b/k',
        206,
        '',
        { 'content-range': 'bytes 0-99999/200000' },
        { range: 'bytes=0-99999' },
      ),
    };
    cut.response.body = partBody(Buffer.alloc(65536), 100000);
    expect(verdicts(cut)['s3.get.range-inclusive']).toBe('pass');
    const short = exchange(
      's3',
      'GET',
      '/b/k',
      206,
      Buffer.alloc(10),
      { 'content-range': 'bytes 0-9/20' },
      { range: 'bytes=0-10' },
    );
    expect(verdicts(short)['s3.get.range-inclusive']).toBe('fail');
  });

  it('an ETag list not in quotes is not judged; the same list quoted is', () => {
    const etag = `"${'a'.repeat(32)}"`;
    const other = 'b'.repeat(32);
    const bare = exchange(
      's3',
      'HEAD',
      '/b/k',
      200,
      '',
      { etag },
      { 'if-none-match': `${other}, ${'a'.repeat(32)}` },
    );
    expect(verdicts(bare)['s3.cond.etag-list']).toBeUndefined();
    const quoted = exchange(
      's3',
      'HEAD',
      '/b/k',
      200,
      '',
      { etag },
      { 'if-none-match': `"${other}", ${etag}` },
    );
    expect(verdicts(quoted)['s3.cond.etag-list']).toBe('fail');
  });

  it('a listing asked for with max-keys over 1000 is not judged for max-keys; one at 2 holding 3 keys fails', () => {
    const xml = (max: number) =>
      `<ListBucketResult><Name>b</Name><KeyCount>3</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${['a', 'b', 'c'].map((k) => `<Contents><Key>${k}</Key></Contents>`).join('')}</ListBucketResult>`.replace(
        '<MaxKeys>1000',
        `<MaxKeys>${max}`,
      );
    const over = exchange('s3', 'GET', '/b?list-type=2&max-keys=5000', 200, xml(1000));
    expect(verdicts(over)['s3.list.max-keys']).toBeUndefined();
    const two = exchange('s3', 'GET', '/b?list-type=2&max-keys=2', 200, xml(2));
    expect(verdicts(two)['s3.list.max-keys']).toBe('fail');
  });
});

describe('declared checks leave unjudged what they cannot read', () => {
  it('a JSON answer a recording cut is not judged by the envelope checks; the same answer whole is', () => {
    const whole = exchange('management', 'GET', '/client/v4/zones', 200, '{"success": true}');
    expect(verdicts(whole)['mgmt.envelope.fields']).toBe('fail');
    const cut = exchange('management', 'GET', '/client/v4/zones', 200, '');
    cut.response.body = partBody(Buffer.from('{"success": tr'), 5_000_000);
    expect(verdicts(cut)['mgmt.envelope.fields']).toBeUndefined();
  });
});
