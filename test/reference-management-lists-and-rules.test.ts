import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ManagementServer, startManagement } from './reference-management-harness.ts';

let srv: ManagementServer;
let Z: string;
beforeAll(async () => {
  srv = await startManagement('2025-06-01');
  Z = `/zones/${srv.ids.zoneId}`;
  for (const name of ['delta', 'alpha', 'echo', 'charlie', 'bravo']) {
    await srv.api('POST', `${Z}/dns_records`, { type: 'TXT', name: `list-${name}`, content: name });
  }
});
afterAll(async () => {
  await srv.close();
});

type Rec = { id: string; name: string };

describe('pagination of list endpoints', () => {
  it('splits a list into consecutive pages whose union is the whole list, with result_info', async () => {
    const all = await srv.api('GET', `${Z}/dns_records?per_page=1000`);
    const total = all.body.result_info.total_count;
    expect(total).toBe(all.body.result.length);
    const seen: string[] = [];
    for (let page = 1; page <= Math.ceil(total / 3); page++) {
      const res = await srv.api('GET', `${Z}/dns_records?per_page=3&page=${page}`);
      expect(res.body.result_info).toEqual({
        page,
        per_page: 3,
        count: res.body.result.length,
        total_count: total,
        total_pages: Math.ceil(total / 3),
      });
      seen.push(...res.body.result.map((r: Rec) => r.id));
    }
    expect(seen.sort()).toEqual(all.body.result.map((r: Rec) => r.id).sort());
  });

  it('orders by name ASC and DESC', async () => {
    const names = async (direction: string) =>
      (await srv.api('GET', `${Z}/dns_records?type=TXT&order=name&direction=${direction}`)).body.result
        .map((r: Rec) => r.name)
        .filter((n: string) => n.startsWith('list-'));
    const asc = await names('ASC');
    expect(asc).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((n) => `list-${n}.example.com`));
    expect(await names('desc')).toEqual([...asc].reverse());
  });

  it('answers a page past the last one with an empty result, not an error', async () => {
    const res = await srv.api('GET', `${Z}/dns_records?page=999`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, result: [], result_info: { page: 999, count: 0 } });
  });

  for (const query of [
    'per_page=0',
    'per_page=5001',
    'per_page=-3',
    'per_page=ten',
    'page=0',
    'direction=up',
    'order=colour',
  ]) {
    it(`refuses ${query} with a one-line 400 error envelope`, async () => {
      const res = await srv.api('GET', `${Z}/dns_records?${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, result: null });
      expect(res.body.errors[0].message).not.toContain('\n');
    });
  }
});

describe('custom log field rules', () => {
  const lcf = (params: unknown, expression = 'true') => ({
    rules: [{ action: 'log_custom_field', expression, action_parameters: params }],
  });
  let rulesetId: string;
  beforeAll(async () => {
    const rs = await srv.api('POST', `${Z}/rulesets`, {
      name: 'lcf',
      kind: 'zone',
      phase: 'http_log_custom_fields',
    });
    rulesetId = rs.body.result.id;
  });
  const put = (body: unknown) => srv.api('PUT', `${Z}/rulesets/${rulesetId}`, body);

  it('keeps lower-case header names and cookie names exactly as sent', async () => {
    const res = await put(
      lcf({
        request_fields: [{ name: 'x-trace' }],
        response_fields: [{ name: 'server' }],
        cookie_fields: [{ name: 'SessId' }],
      }),
    );
    expect(res.body.result.rules[0].action_parameters).toEqual({
      request_fields: [{ name: 'x-trace' }],
      response_fields: [{ name: 'server' }],
      cookie_fields: [{ name: 'SessId' }],
    });
  });

  const refused: [string, unknown][] = [
    ['an expression other than true', lcf({ request_fields: [{ name: 'a' }] }, 'http.host eq "x"')],
    ['none of the three arrays', lcf({})],
    ['an upper-case header name', lcf({ request_fields: [{ name: 'X-Trace' }] })],
    ['a field without a name', lcf({ cookie_fields: [{}] })],
    ['41 fields', lcf({ request_fields: Array.from({ length: 41 }, (_, i) => ({ name: `h${i}` })) })],
  ];
  for (const [what, body] of refused) {
    it(`refuses a rule with ${what}`, async () => {
      const res = await put(body);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
    });
  }

  it('accepts exactly 40 fields of all kinds together', async () => {
    const names = (p: string, n: number) => Array.from({ length: n }, (_, i) => ({ name: `${p}${i}` }));
    const res = await put(
      lcf({ request_fields: names('q', 20), response_fields: names('r', 10), cookie_fields: names('C', 10) }),
    );
    expect(res.body.success).toBe(true);
  });

  it('replaces all rules on PUT and moves to a new version and last_updated', async () => {
    const before = (await srv.api('GET', `${Z}/rulesets/${rulesetId}`)).body.result;
    await new Promise((r) => setTimeout(r, 5));
    const res = await put(lcf({ cookie_fields: [{ name: 'only' }] }));
    expect(res.body.result.rules).toHaveLength(1);
    expect(Number(res.body.result.version)).toBe(Number(before.version) + 1);
    expect(Date.parse(res.body.result.last_updated)).toBeGreaterThan(Date.parse(before.last_updated));
  });
});
