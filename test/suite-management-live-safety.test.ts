import { afterAll, describe, expect, it } from 'vitest';
import { REFERENCE_CREDENTIALS } from '../reference/context.ts';
import { type ReferenceHandle, startReference } from '../reference/server.ts';
import { runEdgecheck, today } from '../runner/api.ts';

/*
 * What the management suites promise a live account: cases needing objects the config does not name
 * are skipped with the reason, and the shared zone state they change is put back afterwards.
 */

const AREAS = ['management', 'deprecations'];
const started: ReferenceHandle[] = [];

afterAll(async () => {
  await Promise.all(started.map((r) => r.close()));
});

async function reference(asOf: string): Promise<ReferenceHandle> {
  const r = await startReference({ asOf });
  started.push(r);
  return r;
}

async function api(r: ReferenceHandle, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${r.urls.management}/client/v4/zones/${r.context.ids.zoneId}${path}`, {
    method,
    headers: { authorization: `Bearer ${REFERENCE_CREDENTIALS.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { success: boolean; result: any; errors: unknown[] };
  if (!json.success) throw new Error(`${method} ${path}: ${JSON.stringify(json.errors)}`);
  return json.result;
}

async function logFieldsRules(r: ReferenceHandle): Promise<unknown[]> {
  const list = (await api(r, 'GET', '/rulesets')) as { id: string; kind: string; phase: string }[];
  const rs = list.find((x) => x.kind === 'zone' && x.phase === 'http_log_custom_fields');
  if (!rs) return [];
  const full = await api(r, 'GET', `/rulesets/${rs.id}`);
  return (full.rules as { action_parameters: unknown; expression: string }[]).map((x) => ({
    expression: x.expression,
    action_parameters: x.action_parameters,
  }));
}

describe('management suites on a live account', () => {
  it('cases needing a certificate pack or an invitation the config lacks are skipped with the reason', async () => {
    const r = await reference(today());
    const target = r.target();
    target.management = { ...target.management!, ids: {} };
    const results = await runEdgecheck({
      suites: AREAS,
      target,
      cases: ['mgmt.certpacks.listing', 'mgmt.invites.accept'],
    });
    expect(results.cases.map((c) => [c.id, c.verdict]).sort()).toEqual([
      ['mgmt.certpacks.listing', 'skipped'],
      ['mgmt.invites.accept', 'skipped'],
    ]);
    for (const c of results.cases) expect(c.reason).toMatch(/target\.ids\.(certificatePack|invite)/);
  }, 60_000);

  it.each([
    ['2024-06-01', 'medium'],
    [today(), 'under_attack'],
  ])(
    'as of %s, security_level (%s), multi_provider and the custom log fields rule are put back',
    async (asOf, level) => {
      const r = await reference(asOf);
      await api(r, 'PATCH', '/settings/security_level', { value: level });
      await api(r, 'PATCH', '/dns_settings', { multi_provider: true });
      const rule = {
        action: 'log_custom_field',
        expression: 'true',
        action_parameters: { request_fields: [{ name: 'x-kept' }], cookie_fields: [{ name: 'Kept' }] },
      };
      await api(r, 'PUT', '/rulesets/phases/http_log_custom_fields/entrypoint', { rules: [rule] });
      const before = await logFieldsRules(r);

      const results = await runEdgecheck({ suites: AREAS, asOf, target: r.target() });
      expect(results.clauses.filter((c) => ['fail', 'error', 'blocked'].includes(c.verdict))).toEqual([]);

      expect((await api(r, 'GET', '/settings/security_level')).value).toBe(level);
      expect((await api(r, 'GET', '/dns_settings')).multi_provider).toBe(true);
      expect(await logFieldsRules(r)).toEqual(before);
      const teardownProblems = results.cases.flatMap((c) => (c as { teardown?: string[] }).teardown ?? []);
      expect(teardownProblems).toEqual([]);
    },
    60_000,
  );
});
