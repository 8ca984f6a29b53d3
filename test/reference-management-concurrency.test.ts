import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ManagementServer, startManagement } from './reference-management-harness.ts';

let srv: ManagementServer;
beforeAll(async () => {
  srv = await startManagement('2025-06-01');
});
afterAll(async () => {
  await srv.close();
});

describe('in-memory state under concurrency', () => {
  it('loses no rule when 50 writers add rules to one ruleset at once', async () => {
    const z = srv.ids.zoneId;
    const rs = await srv.api('POST', `/zones/${z}/rulesets`, {
      name: 'busy',
      kind: 'zone',
      phase: 'http_request_firewall_custom',
    });
    const id = rs.body.result.id;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        srv.api('POST', `/zones/${z}/rulesets/${id}/rules`, {
          action: 'block',
          expression: `ip.src eq 192.0.2.${i}`,
        }),
      ),
    );
    expect(answers.every((a) => a.body.success)).toBe(true);
    const final = await srv.api('GET', `/zones/${z}/rulesets/${id}`);
    expect(final.body.result.rules).toHaveLength(50);
    expect(final.body.result.version).toBe('51');
    const expressions = new Set(final.body.result.rules.map((r: { expression: string }) => r.expression));
    expect(expressions.size).toBe(50);
  });

  it('loses no record when 50 writers create and patch records at once', async () => {
    const z = srv.ids.zoneId;
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        srv.api('POST', `/zones/${z}/dns_records`, { type: 'TXT', name: `par-${i}`, content: `v${i}` }),
      ),
    );
    const ids = created.map((c) => c.body.result.id as string);
    await Promise.all(
      ids.map((id, i) => srv.api('PATCH', `/zones/${z}/dns_records/${id}`, { comment: `c${i}` })),
    );
    const list = await srv.api('GET', `/zones/${z}/dns_records?type=TXT&per_page=1000`);
    const mine = list.body.result.filter((r: { name: string }) => r.name.startsWith('par-'));
    expect(mine).toHaveLength(50);
    for (const r of mine) expect(r.comment).toBe(`c${r.content.slice(1)}`);
  });
});
