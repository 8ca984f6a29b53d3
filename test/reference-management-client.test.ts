import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceHandle, startReference } from '../reference/server.ts';

// The official client, pointed at the reference, is the best witness that the shapes match the real service.
let ref: ReferenceHandle;
let cf: Cloudflare;
let zone_id: string;

beforeAll(async () => {
  ref = await startReference({ asOf: '2025-06-01' });
  cf = new Cloudflare({
    apiToken: ref.context.credentials.token,
    baseURL: `${ref.urls.management}/client/v4`,
    maxRetries: 0,
  });
  zone_id = ref.context.ids.zoneId;
});

afterAll(async () => {
  await ref.close();
});

describe('DNS records through the official client', () => {
  it('creates, auto-paginates, gets, patches and puts records', async () => {
    const names = Array.from({ length: 7 }, (_, i) => `client-${i}`);
    const created = [];
    for (const [i, name] of names.entries()) {
      created.push(
        await cf.dns.records.create({ zone_id, type: 'A', name, content: `198.51.100.${i + 1}`, ttl: 300 }),
      );
    }
    expect(created[0].name).toBe('client-0.example.com');
    expect(created[0].id).toMatch(/^[0-9a-f]{32}$/);

    const listed = [];
    for await (const rec of cf.dns.records.list({ zone_id, per_page: 3 })) listed.push(rec);
    const ids = listed.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rec of created) expect(ids).toContain(rec.id);

    const id = created[0].id;
    const got = await cf.dns.records.get(id, { zone_id });
    expect(got.content).toBe('198.51.100.1');

    const patched = await cf.dns.records.edit(id, {
      zone_id,
      type: 'A',
      name: 'client-0',
      comment: 'patched',
    } as any);
    expect(patched.comment).toBe('patched');
    expect(patched.content).toBe('198.51.100.1');
    expect(patched.ttl).toBe(300);

    const put = await cf.dns.records.update(id, {
      zone_id,
      type: 'A',
      name: 'client-0',
      content: '203.0.113.9',
      ttl: 1,
    });
    expect(put.content).toBe('203.0.113.9');
    // PUT replaces the record: the comment it did not send is gone.
    expect(put.comment).toBeNull();
  });

  it('keeps SRV data priority, weight, port and target', async () => {
    const rec: any = await cf.dns.records.create({
      zone_id,
      type: 'SRV',
      name: '_xmpp._tcp.example.com',
      data: { priority: 10, weight: 20, port: 5222, target: 'xmpp.example.com' },
    } as any);
    expect(rec.data).toEqual({ priority: 10, weight: 20, port: 5222, target: 'xmpp.example.com' });
    expect(rec.name).toBe('_xmpp._tcp.example.com');
  });

  it('reports invalid content as an API error with the root cause', async () => {
    const err = await cf.dns.records
      .create({ zone_id, type: 'A', name: 'bad', content: 'not-an-ip', ttl: 1 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(Cloudflare.BadRequestError);
    expect(err.errors[0].code).toBe(9005);
  });
});

describe('rulesets through the official client', () => {
  it('creates, replaces, lists, adds and patches rules, and sets an entry point', async () => {
    const rs: any = await cf.rulesets.create({
      zone_id,
      name: 'custom log fields',
      kind: 'zone',
      phase: 'http_log_custom_fields',
      description: '',
    });
    expect(rs.id).toBeTruthy();
    expect(rs.version).toBe('1');

    const updated: any = await cf.rulesets.update(rs.id, {
      zone_id,
      rules: [
        {
          action: 'log_custom_field',
          expression: 'true',
          action_parameters: {
            request_fields: [{ name: 'x-request-id' }],
            cookie_fields: [{ name: 'SessionId' }],
          },
        },
      ],
    } as any);
    expect(updated.version).toBe('2');
    expect(updated.rules).toHaveLength(1);
    expect((updated.rules[0] as any).action_parameters.cookie_fields).toEqual([{ name: 'SessionId' }]);

    const listed = [];
    for await (const r of cf.rulesets.list({ zone_id })) listed.push(r);
    expect(listed.find((r) => r.id === rs.id)).toMatchObject({
      kind: 'zone',
      phase: 'http_log_custom_fields',
    });

    const second = await cf.rulesets
      .create({ zone_id, name: 'again', kind: 'zone', phase: 'http_log_custom_fields' })
      .catch((e) => e);
    expect(second).toBeInstanceOf(Cloudflare.BadRequestError);

    const custom: any = await cf.rulesets.create({
      zone_id,
      name: 'waf',
      kind: 'zone',
      phase: 'http_request_firewall_custom',
    });
    const withRule: any = await cf.rulesets.rules.create(custom.id, {
      zone_id,
      action: 'block',
      expression: 'ip.src eq 192.0.2.1',
    });
    const ruleId = withRule.rules[0].id!;
    const edited: any = await cf.rulesets.rules.edit(ruleId, {
      zone_id,
      ruleset_id: custom.id,
      action: 'block',
      enabled: false,
    } as any);
    expect(edited.rules[0].enabled).toBe(false);
    expect(edited.rules[0].expression).toBe('ip.src eq 192.0.2.1');

    const entry: any = await cf.rulesets.phases.update('http_request_dynamic_redirect', {
      zone_id,
      rules: [
        {
          action: 'redirect',
          expression: 'true',
          action_parameters: { from_value: { target_url: { value: 'https://example.com/' } } },
        },
      ],
    } as any);
    expect(entry.phase).toBe('http_request_dynamic_redirect');
    expect(entry.rules).toHaveLength(1);
  });
});

describe('other resources through the official client', () => {
  it('creates a log-push job for http_requests with custom field carriers', async () => {
    const job = await cf.logpush.jobs.create({
      zone_id,
      name: 'requests',
      destination_conf: 'r2://logs/http?account-id=1',
      dataset: 'http_requests',
      logpull_options:
        'fields=RayID,EdgeStartTimestamp,Cookies,RequestHeaders,ResponseHeaders&timestamps=rfc3339',
      ownership_challenge: 'challenge-token',
    });
    expect(job?.dataset).toBe('http_requests');
    expect(job?.id).toBeTypeOf('number');
  });

  it('lists certificate packs of every status with result_info', async () => {
    const page = await cf.ssl.certificatePacks.list({ zone_id, status: 'all' });
    const packs = page.getPaginatedItems() as any[];
    expect(packs.map((p) => p.id)).toContain(ref.context.ids.certificatePackId);
    expect(packs.some((p) => p.status !== 'active')).toBe(true);
    expect(page.result_info).toMatchObject({ page: 1, count: packs.length, total_count: packs.length });
    expect(packs[0].certificates[0]).toHaveProperty('signature');
  });

  it('accepts an invitation, twice', async () => {
    const id = ref.context.ids.inviteId;
    const first: any = await cf.user.invites.edit(id, { status: 'accepted' });
    expect(first.status).toBe('accepted');
    const again: any = await cf.user.invites.edit(id, { status: 'accepted' });
    expect(again.status).toBe('accepted');
    const got: any = await cf.user.invites.get(id);
    expect(got.status).toBe('accepted');
  });

  it('sets security_level and reads it back', async () => {
    const set: any = await cf.zones.settings.edit('security_level', {
      zone_id,
      value: 'under_attack',
    } as any);
    expect(set.value).toBe('under_attack');
    const got: any = await cf.zones.settings.get('security_level', { zone_id });
    expect(got.value).toBe('under_attack');
  });

  it('shows and updates dns_settings multi_provider and secondary_overrides', async () => {
    const before = await cf.dns.settings.zone.get({ zone_id });
    expect(before?.multi_provider).toBe(false);
    const after = await cf.dns.settings.zone.edit({
      zone_id,
      multi_provider: true,
      secondary_overrides: true,
    });
    expect(after?.multi_provider).toBe(true);
    const again = await cf.dns.settings.zone.get({ zone_id });
    expect(again?.secondary_overrides).toBe(true);
  });

  it('reads the zone', async () => {
    const zone = await cf.zones.get({ zone_id });
    expect(zone.id).toBe(zone_id);
    expect(zone.name).toBe('example.com');
  });
});
