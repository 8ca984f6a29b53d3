import { afterAll, describe, expect, it } from 'vitest';
import { REFERENCE_IDS } from '../reference/context.ts';
import { DNS_SETTINGS_RETIREMENT } from '../reference/management/dns-settings.ts';
import { RETIRED_ENDPOINTS } from '../reference/management/retired-endpoints.ts';
import { RETIRED_SETTINGS } from '../reference/management/zone-settings.ts';
import {
  dayBefore,
  type ManagementServer,
  rawTeCl,
  retirementProbe,
  startManagement,
} from './reference-management-harness.ts';

const started: ManagementServer[] = [];
const servers = new Map<string, Promise<ManagementServer>>();
/** One server per as-of date, shared by the tests of this file. */
function at(asOf: string): Promise<ManagementServer> {
  let s = servers.get(asOf);
  if (!s) {
    s = startManagement(asOf).then((srv) => {
      started.push(srv);
      return srv;
    });
    servers.set(asOf, s);
  }
  return s;
}
afterAll(async () => {
  await Promise.all(started.map((s) => s.close()));
});

const Z = `/zones/${REFERENCE_IDS.zoneId}`;

describe('retired endpoints work before their end of life and answer an error envelope from it', () => {
  const all = [...RETIRED_ENDPOINTS.map((e) => e.retirement), ...RETIRED_SETTINGS, DNS_SETTINGS_RETIREMENT];
  for (const r of all) {
    it(`${r.subject}: ${dayBefore(r.eol)} works, ${r.eol} is retired`, async () => {
      const [method, path] = retirementProbe(r);
      const body = method === 'POST' ? {} : undefined;
      const before = await (await at(dayBefore(r.eol))).api(method, path, body);
      expect(before.status, JSON.stringify(before.body)).toBe(200);
      expect(before.body.success).toBe(true);
      const after = await (await at(r.eol)).api(method, path, body);
      expect(after.status).toBeGreaterThanOrEqual(400);
      expect(after.body).toMatchObject({ success: false, result: null });
    });
  }

  it('firewall rules can be created, read and deleted before 2025-01-15', async () => {
    const srv = await at('2025-01-14');
    const created = await srv.api('POST', `${Z}/firewall/rules`, [
      { action: 'block', filter: { expression: 'true' } },
    ]);
    expect(created.body.success).toBe(true);
    const id = created.body.result[0].id;
    expect((await srv.api('GET', `${Z}/firewall/rules/${id}`)).body.result.action).toBe('block');
    expect((await srv.api('DELETE', `${Z}/firewall/rules/${id}`)).body.success).toBe(true);
    expect((await srv.api('GET', `${Z}/firewall/rules/${id}`)).status).toBe(404);
  });

  it('the page_shield and images v2 replacements keep working after the old routes retire', async () => {
    const srv = await at('2025-06-01');
    expect((await srv.api('GET', `${Z}/page_shield/scripts`)).body.success).toBe(true);
    const v2 = await srv.api('POST', `/accounts/${REFERENCE_IDS.accountId}/images/v2/direct_upload`, {});
    expect(v2.body.success).toBe(true);
  });
});

describe('DNS validation errors around 2024-10-01', () => {
  const bad = { type: 'A', name: 'bad', content: 'not-an-ip' };
  it('wraps the root cause in code 1004 with error_chain on 2024-09-30', async () => {
    const res = await (await at('2024-09-30')).api('POST', `${Z}/dns_records`, bad);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        code: 1004,
        message: 'DNS Validation Error',
        error_chain: [{ code: 9005, message: expect.any(String) }],
      },
    ]);
  });
  it('answers the root cause directly from 2024-10-01', async () => {
    const res = await (await at('2024-10-01')).api('POST', `${Z}/dns_records`, bad);
    expect(res.body.errors).toEqual([{ code: 9005, message: expect.any(String) }]);
  });
});

describe('security level and threat score around 2024-09-30', () => {
  it('accepts any security level on 2024-09-29, only off and under_attack from 2024-09-30', async () => {
    const before = await at('2024-09-29');
    expect((await before.api('PATCH', `${Z}/settings/security_level`, { value: 'high' })).body.success).toBe(
      true,
    );
    const after = await at('2024-09-30');
    const high = await after.api('PATCH', `${Z}/settings/security_level`, { value: 'medium' });
    expect(high.status).toBe(400);
    expect(high.body.success).toBe(false);
    for (const value of ['off', 'under_attack']) {
      expect((await after.api('PATCH', `${Z}/settings/security_level`, { value })).body.result.value).toBe(
        value,
      );
    }
  });

  const threat = { action: 'block', expression: 'cf.threat_score gt 10' };
  const level = { action: 'set_config', expression: 'true', action_parameters: { security_level: 'medium' } };
  for (const [what, rule] of [
    ['a threat score expression', threat],
    ['a security level other than off', level],
  ] as const) {
    it(`accepts a rule with ${what} on 2024-09-29 and refuses it in every ruleset call from 2024-09-30`, async () => {
      const phase = rule === threat ? 'http_request_firewall_custom' : 'http_config_settings';
      const before = await at('2024-09-29');
      const ok = await before.api('PUT', `${Z}/rulesets/phases/${phase}/entrypoint`, { rules: [rule] });
      expect(ok.body.success).toBe(true);
      const after = await at('2024-09-30');
      const entry = await after.api('PUT', `${Z}/rulesets/phases/${phase}/entrypoint`, { rules: [rule] });
      expect(entry.status).toBe(400);
      const acct = `/accounts/${REFERENCE_IDS.accountId}/rulesets`;
      const created = await after.api('POST', acct, { name: 'x', kind: 'custom', phase, rules: [rule] });
      expect(created.body.success).toBe(false);
      const rs = await after.api('POST', acct, { name: 'y', kind: 'custom', phase });
      const added = await after.api('POST', `${acct}/${rs.body.result.id}/rules`, rule);
      expect(added.body.success).toBe(false);
    });
  }
});

describe('DNS record locked field around 2024-07-14', () => {
  it('answers locked false on 2024-07-13, even when a client sends true', async () => {
    const srv = await at('2024-07-13');
    const res = await srv.api('POST', `${Z}/dns_records`, {
      type: 'A',
      name: 'lock1',
      content: '192.0.2.7',
      locked: true,
    });
    expect(res.body.result.locked).toBe(false);
    const list = await srv.api('GET', `${Z}/dns_records`);
    expect(list.body.result.every((r: { locked: boolean }) => r.locked === false)).toBe(true);
  });
  it('omits locked from 2024-07-14', async () => {
    const srv = await at('2024-07-14');
    const res = await srv.api('POST', `${Z}/dns_records`, {
      type: 'A',
      name: 'lock2',
      content: '192.0.2.8',
      locked: true,
    });
    expect(res.body.result).not.toHaveProperty('locked');
    const got = await srv.api('GET', `${Z}/dns_records/${res.body.result.id}`);
    expect(got.body.result).not.toHaveProperty('locked');
  });
});

describe('SRV service, proto and name data fields around 2024-05-31', () => {
  const srv = {
    type: 'SRV',
    name: '_sip._tls.example.com',
    data: {
      service: '_sip',
      proto: '_tls',
      name: 'example.com',
      priority: 1,
      weight: 2,
      port: 5061,
      target: 'sip.example.com',
    },
  };
  it('accepts and produces them on 2024-05-30', async () => {
    const res = await (await at('2024-05-30')).api('POST', `${Z}/dns_records`, srv);
    expect(res.body.success).toBe(true);
    expect(res.body.result.data).toMatchObject({
      service: '_sip',
      proto: '_tls',
      name: 'example.com',
      port: 5061,
    });
  });
  it('refuses them and no longer produces them from 2024-05-31', async () => {
    const server = await at('2024-05-31');
    const refused = await server.api('POST', `${Z}/dns_records`, srv);
    expect(refused.body.success).toBe(false);
    const { service: _s, proto: _p, name: _n, ...data } = srv.data;
    const ok = await server.api('POST', `${Z}/dns_records`, { ...srv, data });
    expect(ok.body.result.data).toEqual({ priority: 1, weight: 2, port: 5061, target: 'sip.example.com' });
  });
});

describe('Transfer-Encoding together with Content-Length around 2023-07-01', () => {
  it('processes such a request on 2023-06-30', async () => {
    const answer = await rawTeCl((await at('2023-06-30')).base);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('"success":true');
  });
  it('declines it with a 400 error envelope from 2023-07-01', async () => {
    const answer = await rawTeCl((await at('2023-07-01')).base);
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('"success":false');
    expect(answer).toContain('Transfer-Encoding');
  });
});

describe('bucket migration configuration shape around 2024-02-06', () => {
  const path = `/accounts/${REFERENCE_IDS.accountId}/r2/buckets/migrating/migration`;
  it('uses {enabled, source.vendor} before and {status, source.provider} from 2024-02-06', async () => {
    const old = await (await at('2024-02-05')).api('PUT', path, { source: { vendor: 's3', bucket: 'src' } });
    expect(old.body.result).toMatchObject({ enabled: true, source: { vendor: 's3', bucket: 'src' } });
    const cur = await (await at('2024-02-06')).api('PUT', path, {
      source: { provider: 'aws', bucket: 'src' },
      status: 'enabled',
    });
    expect(cur.body.result).toMatchObject({ status: 'enabled', source: { provider: 'aws', bucket: 'src' } });
  });
  it('accepts a Google-style source from 2024-01-11 only', async () => {
    const before = await (await at('2024-01-10')).api('PUT', path, {
      source: { vendor: 'gcs', bucket: 'src' },
    });
    expect(before.body.success).toBe(false);
    const after = await (await at('2024-01-11')).api('PUT', path, {
      source: { vendor: 'gcs', bucket: 'src' },
    });
    expect(after.body.success).toBe(true);
  });
  it('never answers the credentials it was sent', async () => {
    const res = await (await at('2025-01-01')).api('PUT', path, {
      source: { provider: 'aws', bucket: 'src', secretAccessKey: 'do-not-echo' },
    });
    expect(JSON.stringify(res.body)).not.toContain('do-not-echo');
  });
});
