import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REFERENCE_CREDENTIALS, REFERENCE_IDS } from '../reference/context.ts';
import { FAULTS } from '../reference/faults.ts';
import { DNS_SETTINGS_RETIREMENT } from '../reference/management/dns-settings.ts';
import { managementFaults } from '../reference/management/faults.ts';
import { RETIRED_ENDPOINTS } from '../reference/management/retired-endpoints.ts';
import { serveFaultName, unservedFaultName } from '../reference/management/retirement.ts';
import { ZONE_NAME } from '../reference/management/store.ts';
import { RETIRED_SETTINGS } from '../reference/management/zone-settings.ts';
import { type Api, rawTeCl, retirementProbe, startManagement } from './reference-management-harness.ts';

const Z = `/zones/${REFERENCE_IDS.zoneId}`;
const ACC = `/accounts/${REFERENCE_IDS.accountId}`;
const NOW = '2025-06-01';
const EARLY = '2023-01-01';

/** What a probe saw, with what differs between any two servers anyway (ids, clocks) left out. */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !['id', 'ref', 'created_on', 'modified_on', 'last_updated'].includes(k))
        .map(([k, v]) => [k, normalise(v)]),
    );
  }
  return value;
}

type Probe = { asOf: string; run: (api: Api, base: string) => Promise<unknown> };
const get =
  (path: string, headers?: Record<string, string>): Probe['run'] =>
  (api) =>
    api('GET', path, undefined, headers);
const send =
  (method: string, path: string, body: unknown): Probe['run'] =>
  (api) =>
    api(method, path, body);
const at = (asOf: string, run: Probe['run']): Probe => ({ asOf, run });
const now = (run: Probe['run']): Probe => at(NOW, run);
/** A record created, then read back by its id. */
type Answer = Awaited<ReturnType<Api>>;
/** Creates a record and reads it back: what `pick` takes of both answers, or the read itself. */
const createThenGet =
  (pick: (created: Answer, got: Answer) => unknown = (_, got) => got): Probe['run'] =>
  async (api) => {
    const created = await api('POST', `${Z}/dns_records`, { type: 'A', name: 'g', content: '192.0.2.4' });
    return pick(created, await api('GET', `${Z}/dns_records/${created.body.result.id}`));
  };

const badA = { type: 'A', name: 'bad', content: 'not-an-ip' };
const srvText = { type: 'SRV', name: '_sip._tcp.bad', data: '1 2 3 t.example.com' };
const srvRecord = {
  type: 'SRV',
  name: '_sip._tcp',
  data: { priority: 1, weight: 2, port: 3, target: 't.example.com' },
};
const lcf = (params: unknown, expression = 'true') => ({
  name: 'lcf',
  kind: 'zone',
  phase: 'http_log_custom_fields',
  rules: [{ action: 'log_custom_field', expression, action_parameters: params }],
});
const job = (extra: object) => ({ destination_conf: 'r2://logs/x', dataset: 'http_requests', ...extra });
const entrypoint = (phase: string, rule: object) =>
  send('PUT', `${Z}/rulesets/phases/${phase}/entrypoint`, { rules: [rule] });

async function rulesetThen(api: Api, rules: object[], then: (id: string, rs: any) => Promise<unknown>) {
  const rs = await api('POST', `${Z}/rulesets`, {
    name: 'p',
    kind: 'zone',
    phase: 'http_request_firewall_custom',
    rules,
  });
  return then(rs.body.result.id, rs.body.result);
}
const rule = (n: number) => ({ action: 'block', expression: `ip.src eq 192.0.2.${n}` });

/** The status and media type of a GET: what the faults of a JSON answer's label change. */
const mediaType =
  (path: string): Probe['run'] =>
  async (_api, base) => {
    const res = await fetch(`${base}${path}`, {
      headers: { authorization: `Bearer ${REFERENCE_CREDENTIALS.token}` },
    });
    await res.arrayBuffer();
    return [res.status, res.headers.get('content-type')];
  };

/** For every fault, a short request sequence whose answers it must change. */
const PROBES: Record<string, Probe> = {
  'drop-result-info': now(get(`${Z}/dns_records`)),
  'ignore-direction': now(get(`${Z}/dns_records?order=name&direction=desc`)),
  'error-past-last-page': now(get(`${Z}/dns_records?page=50`)),
  'failure-result-not-null': now(get('/zones/0000')),
  'not-found-in-messages': now(get(`${Z}/dns_records/0000000000000000000000000000ffff`)),
  'small-error-code': now(get(`${Z}/dns_records/0000000000000000000000000000ffff`)),
  'settings-read-stale': now(async (api) => {
    await api('PATCH', `${Z}/settings/security_level`, { value: 'under_attack' });
    return api('GET', `${Z}/settings/security_level`);
  }),
  'settings-patch-not-stored': now(async (api) => {
    await api('PATCH', `${Z}/settings/security_level`, { value: 'under_attack' });
    return api('GET', `${Z}/settings/security_level`);
  }),
  'json-labelled-text-plain': now(mediaType(Z)),
  'error-json-labelled-html': now(mediaType(`${Z}/dns_records/0000000000000000000000000000ffff`)),
  'no-route-html': now(get('/no/such/route')),
  'accept-missing-auth': now(get(Z, {})),
  'empty-auth-error': now(get(Z, {})),
  'bare-string-messages': now(send('POST', `${Z}/logpush/jobs`, job({}))),
  'accept-wrong-credentials': now(get(Z, { authorization: 'Bearer wrong' })),
  'reject-legacy-auth': now(
    get(Z, { 'x-auth-email': 'admin@example.com', 'x-auth-key': 'edgecheck-reference-key' }),
  ),
  'auth-error-status-200': now(get(Z, {})),
  'zone-drop-name': now(get(Z)),
  'zone-status-enabled': now(get(Z)),
  'zone-id-mismatch': now(async (api) => (await api('GET', Z)).body.result.id),
  'relative-record-name': now(
    send('POST', `${Z}/dns_records`, { type: 'A', name: 'www2', content: '192.0.2.2' }),
  ),
  'patch-replaces-record': now(async (api) => {
    const r = await api('POST', `${Z}/dns_records`, { type: 'A', name: 'p', content: '192.0.2.3', ttl: 300 });
    return api('PATCH', `${Z}/dns_records/${r.body.result.id}`, { comment: 'x' });
  }),
  'srv-data-drops-port': now(send('POST', `${Z}/dns_records`, srvRecord)),
  'dns-record-drop-proxiable': now(get(`${Z}/dns_records`)),
  'dns-ttl-as-string': now(get(`${Z}/dns_records`)),
  'accept-srv-data-text': now(send('POST', `${Z}/dns_records`, srvText)),
  'allow-second-zone-ruleset': now(async (api) => {
    await api('POST', `${Z}/rulesets`, { name: 'a', kind: 'zone', phase: 'http_request_firewall_custom' });
    return api('POST', `${Z}/rulesets`, { name: 'b', kind: 'zone', phase: 'http_request_firewall_custom' });
  }),
  'ruleset-version-number': now(async (api) =>
    rulesetThen(api, [], (id) => api('GET', `${Z}/rulesets/${id}`)),
  ),
  'rulesets-list-without-phase': now(async (api) => rulesetThen(api, [], () => api('GET', `${Z}/rulesets`))),
  'put-appends-rules': now(async (api) =>
    rulesetThen(api, [rule(1)], (id) => api('PUT', `${Z}/rulesets/${id}`, { rules: [rule(2)] })),
  ),
  'static-ruleset-version': now(async (api) =>
    rulesetThen(api, [], (id) => api('PUT', `${Z}/rulesets/${id}`, { rules: [rule(1)] })),
  ),
  'static-ruleset-last-updated': now(async (api) =>
    rulesetThen(api, [], async (id, rs) => {
      await new Promise((r) => setTimeout(r, 5));
      const put = await api('PUT', `${Z}/rulesets/${id}`, { rules: [rule(1)] });
      return put.body.result.last_updated === rs.last_updated;
    }),
  ),
  'rule-patch-ignored': now(async (api) =>
    rulesetThen(api, [rule(1)], (id, rs) =>
      api('PATCH', `${Z}/rulesets/${id}/rules/${rs.rules[0].id}`, { expression: 'ip.src eq 192.0.2.9' }),
    ),
  ),
  'ignore-rule-enabled': now(async (api) =>
    rulesetThen(api, [], (id) =>
      api('PUT', `${Z}/rulesets/${id}`, { rules: [{ ...rule(1), enabled: false }] }),
    ),
  ),
  'no-entrypoint': now(entrypoint('http_request_firewall_custom', rule(1))),
  'no-account-rulesets': now(get(`${ACC}/rulesets`)),
  'accept-custom-field-expression': now(
    send('POST', `${Z}/rulesets`, lcf({ request_fields: [{ name: 'a' }] }, 'false')),
  ),
  'accept-empty-custom-fields': now(send('POST', `${Z}/rulesets`, lcf({}))),
  'rewrite-header-field-names': now(
    send('POST', `${Z}/rulesets`, lcf({ request_fields: [{ name: 'x-request-id' }] })),
  ),
  'empty-custom-field-arrays': now(send('POST', `${Z}/rulesets`, lcf({ request_fields: [{ name: 'x-a' }] }))),
  'lowercase-cookie-fields': now(send('POST', `${Z}/rulesets`, lcf({ cookie_fields: [{ name: 'SessId' }] }))),
  'no-custom-field-limit': now(
    send(
      'POST',
      `${Z}/rulesets`,
      lcf({ request_fields: Array.from({ length: 41 }, (_, i) => ({ name: `h${i}` })) }),
    ),
  ),
  'reject-custom-field-carriers': now(
    send('POST', `${Z}/logpush/jobs`, job({ logpull_options: 'fields=RayID,Cookies&timestamps=rfc3339' })),
  ),
  'logpush-requires-custom-carriers': now(
    send('POST', `${Z}/logpush/jobs`, job({ logpull_options: 'fields=RayID&timestamps=rfc3339' })),
  ),
  'reject-ownership-challenge': now(send('POST', `${Z}/logpush/jobs`, job({ ownership_challenge: 'token' }))),
  'certpacks-count-is-total': now(get(`${Z}/ssl/certificate_packs?ssl_status=all&per_page=1`)),
  'certpacks-info-without-total-count': now(get(`${Z}/ssl/certificate_packs?ssl_status=all`)),
  'certpacks-one-page-without-info': now(get(`${Z}/ssl/certificate_packs?ssl_status=all`)),
  'pack-validity-days-string': now(get(`${Z}/ssl/certificate_packs?ssl_status=all`)),
  'drop-certificate-fields': now(get(`${Z}/ssl/certificate_packs?ssl_status=all`)),
  'reject-invite-accept': now(
    send('PATCH', `/user/invites/${REFERENCE_IDS.inviteId}`, { status: 'accepted' }),
  ),
  'invite-status-not-saved': now(async (api) => {
    await api('PATCH', `/user/invites/${REFERENCE_IDS.inviteId}`, { status: 'accepted' });
    return api('GET', `/user/invites/${REFERENCE_IDS.inviteId}`);
  }),
  'invite-answer-echoes-status': now(async (api) => {
    await api('PATCH', `/user/invites/${REFERENCE_IDS.inviteId}`, { status: 'accepted' });
    return api('GET', `/user/invites/${REFERENCE_IDS.inviteId}`);
  }),
  'invite-status-verb': now(send('PATCH', `/user/invites/${REFERENCE_IDS.inviteId}`, { status: 'accepted' })),
  'reject-security-level-off': now(send('PATCH', `${Z}/settings/security_level`, { value: 'off' })),
  'ignore-dns-settings-fields': now(send('PATCH', `${Z}/dns_settings`, { multi_provider: true })),
  'ignore-secondary-overrides': now(send('PATCH', `${Z}/dns_settings`, { secondary_overrides: true })),
  'dns-settings-string-booleans': now(get(`${Z}/dns_settings`)),
  'no-migration-routes': now(get(`${ACC}/r2/buckets/bkt/migration`)),
  'keep-error-chain': now(send('POST', `${Z}/dns_records`, badA)),
  'root-cause-wrapper-code': now(send('POST', `${Z}/dns_records`, badA)),
  'drop-error-chain-early': at(EARLY, send('POST', `${Z}/dns_records`, badA)),
  'error-chain-code-string': at(EARLY, send('POST', `${Z}/dns_records`, badA)),
  'root-cause-code-string': now(send('POST', `${Z}/dns_records`, badA)),
  'accept-security-level-high': now(send('PATCH', `${Z}/settings/security_level`, { value: 'high' })),
  'restrict-medium-only': now(send('PATCH', `${Z}/settings/security_level`, { value: 'low' })),
  'reject-under-attack': now(send('PATCH', `${Z}/settings/security_level`, { value: 'under_attack' })),
  'restrict-security-level-early': at(
    EARLY,
    send('PATCH', `${Z}/settings/security_level`, { value: 'high' }),
  ),
  'accept-rule-security-level': now(
    entrypoint('http_config_settings', {
      action: 'set_config',
      expression: 'true',
      action_parameters: { security_level: 'high' },
    }),
  ),
  'accept-threat-score-expression': now(
    entrypoint('http_request_firewall_custom', { action: 'block', expression: 'cf.threat_score gt 5' }),
  ),
  'keep-locked-field': now(get(`${Z}/dns_records`)),
  'drop-locked-field-early': at(EARLY, get(`${Z}/dns_records`)),
  'locked-as-string': at(EARLY, get(`${Z}/dns_records`)),
  'refuse-locked-input': now(
    send('POST', `${Z}/dns_records`, { type: 'A', name: 'l', content: '192.0.2.5', locked: true }),
  ),
  'honor-locked-input': at(
    EARLY,
    send('POST', `${Z}/dns_records`, { type: 'A', name: 'l', content: '192.0.2.5', locked: true }),
  ),
  'accept-srv-name-fields': now(
    send('POST', `${Z}/dns_records`, { ...srvRecord, data: { ...srvRecord.data, service: '_sip' } }),
  ),
  'produce-srv-name-fields': now(get(`${Z}/dns_records?type=SRV`)),
  'reject-srv-name-fields-early': at(
    EARLY,
    send('POST', `${Z}/dns_records`, { ...srvRecord, data: { ...srvRecord.data, service: '_sip' } }),
  ),
  'hide-srv-name-fields-early': at(EARLY, get(`${Z}/dns_records?type=SRV`)),
  'accept-te-with-cl': now((_api, base) => rawTeCl(base).then((a) => a.split('\r\n')[0])),
  'decline-te-with-cl-early': at('2023-06-01', (_api, base) => rawTeCl(base).then((a) => a.split('\r\n')[0])),
  'no-page-shield-route': now(get(`${Z}/page_shield/scripts`)),
  'no-direct-upload-v2': now(send('POST', `${ACC}/images/v2/direct_upload`, {})),
  'direct-upload-v2-rejects-metadata': now(
    send('POST', `${ACC}/images/v2/direct_upload`, { metadata: { k: 'v' } }),
  ),
  'zone-notice-in-errors': now(get(Z)),
  'zone-errors-null': now(get(Z)),
  'page-offset-default-per-page': now(get(`${Z}/dns_records?page=2&per_page=1`)),
  'page-offset-overlap': now(get(`${Z}/dns_records?page=2&per_page=1`)),
  'dns-get-drops-type': now(createThenGet()),
  'dns-get-id-is-zone-id': now(
    createThenGet((created, got) => got.body.result.id === created.body.result.id),
  ),
  'dns-get-result-null': now(createThenGet()),
  'dns-create-comment-null': now(
    send('POST', `${Z}/dns_records`, { type: 'A', name: 'c', content: '192.0.2.5', comment: 'kept' }),
  ),
  'dns-get-created-on-epoch': now(createThenGet((_, got) => typeof got.body.result.created_on)),
  'put-merges-record': now(async (api) => {
    const r = await api('POST', `${Z}/dns_records`, {
      type: 'A',
      name: 'p',
      content: '192.0.2.3',
      comment: 'c',
    });
    return api('PUT', `${Z}/dns_records/${r.body.result.id}`, { type: 'A', name: 'p', content: '192.0.2.4' });
  }),
  'put-keeps-name': now(async (api) => {
    const r = await api('POST', `${Z}/dns_records`, { type: 'A', name: 'p', content: '192.0.2.3' });
    return api('PUT', `${Z}/dns_records/${r.body.result.id}`, { type: 'A', name: 'q', content: '192.0.2.3' });
  }),
  'caa-flags-string': now(
    send('POST', `${Z}/dns_records`, {
      type: 'CAA',
      name: 'c',
      data: { flags: 0, tag: 'issue', value: 'ca.example.net' },
    }),
  ),
  'caa-content-only': now(
    send('POST', `${Z}/dns_records`, {
      type: 'CAA',
      name: 'c',
      data: { flags: 0, tag: 'issue', value: 'ca.example.net' },
    }),
  ),
  'ruleset-name-ignored': now(async (api) => rulesetThen(api, [], (_id, rs) => Promise.resolve(rs.name))),
  'ruleset-description-dropped': now(
    send('POST', `${Z}/rulesets`, {
      name: 'd',
      kind: 'zone',
      description: 'words',
      phase: 'http_request_firewall_custom',
    }),
  ),
  'rule-create-prepends': now(async (api) =>
    rulesetThen(api, [rule(1)], (id) => api('POST', `${Z}/rulesets/${id}/rules`, rule(2))),
  ),
  'rule-create-twice': now(async (api) =>
    rulesetThen(api, [rule(1)], (id) => api('POST', `${Z}/rulesets/${id}/rules`, rule(2))),
  ),
  'rule-version-number': now(async (api) =>
    rulesetThen(api, [rule(1)], (_id, rs) => Promise.resolve(rs.rules)),
  ),
  'rule-last-updated-epoch': now(async (api) =>
    rulesetThen(api, [rule(1)], (_id, rs) => Promise.resolve(typeof rs.rules[0].last_updated)),
  ),
  'logpush-strips-custom-carriers': now(
    send('POST', `${Z}/logpush/jobs`, job({ logpull_options: 'fields=RayID,Cookies&timestamps=rfc3339' })),
  ),
  'dns-settings-use-apex-ns': now(get(`${Z}/dns_settings`)),
  'dns-settings-omit-false': now(get(`${Z}/dns_settings`)),
  'page-shield-scripts-without-seen-times': now(get(`${Z}/page_shield/scripts`)),
  'past-end-last-page': now(get(`${Z}/dns_records?page=50`)),
  'total-pages-floor': now(get(`${Z}/dns_records?per_page=2`)),
  'echo-default-per-page': now(get(`${Z}/dns_records?per_page=2`)),
  'per-page-over-10-ignored': now(get(`${Z}/dns_records?per_page=20`)),
  'legacy-key-not-compared': now(get(Z, { 'x-auth-email': 'admin@example.com', 'x-auth-key': 'wrong' })),
  'zone-id-uppercase': now(async (api) => (await api('GET', Z)).body.result.id),
  'dns-list-drops-proxiable': now(get(`${Z}/dns_records`)),
  'patch-ignores-data': now(async (api) => {
    const r = await api('POST', `${Z}/dns_records`, srvRecord);
    return api('PATCH', `${Z}/dns_records/${r.body.result.id}`, { data: { ...srvRecord.data, port: 4 } });
  }),
  'name-trailing-dot': now(
    send('POST', `${Z}/dns_records`, { type: 'A', name: 'www2', content: '192.0.2.2' }),
  ),
  'srv-data-port-string': now(send('POST', `${Z}/dns_records`, srvRecord)),
  'put-keeps-version': now(async (api) =>
    rulesetThen(api, [], (id) => api('PUT', `${Z}/rulesets/${id}`, { rules: [rule(1)] })),
  ),
  'ruleset-last-updated-date-only': now(async (api) =>
    rulesetThen(
      api,
      [],
      async (id) =>
        (await api('PUT', `${Z}/rulesets/${id}`, { rules: [rule(1)] })).body.result.last_updated.length,
    ),
  ),
  'one-per-phase-by-name': now(async (api) => {
    await api('POST', `${Z}/rulesets`, { name: 'a', kind: 'zone', phase: 'http_request_firewall_custom' });
    return api('POST', `${Z}/rulesets`, { name: 'b', kind: 'zone', phase: 'http_request_firewall_custom' });
  }),
  'put-merges-by-position': now(async (api) =>
    rulesetThen(api, [rule(1), rule(2)], (id) => api('PUT', `${Z}/rulesets/${id}`, { rules: [rule(3)] })),
  ),
  'entrypoint-appends': now(async (api) => {
    await entrypoint('http_request_firewall_custom', rule(1)).call(null, api, '');
    return entrypoint('http_request_firewall_custom', rule(2)).call(null, api, '');
  }),
  'rule-patch-keeps-description': now(async (api) =>
    rulesetThen(api, [rule(1)], (id, rs) =>
      api('PATCH', `${Z}/rulesets/${id}/rules/${rs.rules[0].id}`, { ...rule(1), description: 'new' }),
    ),
  ),
  'patch-ignores-enabled': now(async (api) =>
    rulesetThen(api, [rule(1)], (id, rs) =>
      api('PATCH', `${Z}/rulesets/${id}/rules/${rs.rules[0].id}`, { ...rule(1), enabled: false }),
    ),
  ),
  'ignore-enabled-in-bulk': now(async (api) =>
    rulesetThen(api, [], (id) =>
      api('PUT', `${Z}/rulesets/${id}`, { rules: [{ ...rule(1), enabled: false }] }),
    ),
  ),
  'rulesets-list-without-kind': now(async (api) => rulesetThen(api, [], () => api('GET', `${Z}/rulesets`))),
  'custom-fields-as-strings': now(send('POST', `${Z}/rulesets`, lcf({ request_fields: [{ name: 'x-a' }] }))),
  'certificate-priority-string': now(get(`${Z}/ssl/certificate_packs?ssl_status=all`)),
  'certpacks-keyed-by-id': now(get(`${Z}/ssl/certificate_packs?ssl_status=all`)),
  'dns-settings-numeric-booleans': now(get(`${Z}/dns_settings`)),
  'migration-no-put': now(send('PUT', `/buckets/bkt/migration`, {})),
  'migration-no-patch': now(send('PATCH', `/buckets/bkt/migration`, {})),
  'migration-unset-not-found': now(get(`/buckets/bkt/migration`)),
  'accept-srv-name-fields-matching-name': now(
    send('POST', `${Z}/dns_records`, {
      ...srvRecord,
      data: { ...srvRecord.data, service: '_sip', proto: '_tcp', name: ZONE_NAME },
    }),
  ),
  'reject-srv-data-name-early': at(
    EARLY,
    send('POST', `${Z}/dns_records`, { ...srvRecord, data: { ...srvRecord.data, name: 'x' } }),
  ),
  'srv-data-name-full-early': at(EARLY, send('POST', `${Z}/dns_records`, srvRecord)),
  'produce-srv-name-fields-on-get': now(async (api) => {
    const r = await api('POST', `${Z}/dns_records`, srvRecord);
    return api('GET', `${Z}/dns_records/${r.body.result.id}`);
  }),
  'accept-threat-score-on-patch': now(async (api) =>
    rulesetThen(api, [rule(1)], (id, rs) =>
      api('PATCH', `${Z}/rulesets/${id}/rules/${rs.rules[0].id}`, {
        action: 'block',
        expression: 'cf.threat_score gt 5',
      }),
    ),
  ),
  'accept-rule-security-level-on-patch': now(async (api) =>
    rulesetThen(api, [rule(1)], (id, rs) =>
      api('PATCH', `${Z}/rulesets/${id}/rules/${rs.rules[0].id}`, {
        action: 'set_config',
        expression: 'true',
        action_parameters: { security_level: 'high' },
      }),
    ),
  ),
  'strip-threat-score-early': at(
    EARLY,
    entrypoint('http_request_firewall_custom', {
      action: 'block',
      expression: '(cf.threat_score gt 5) and true',
    }),
  ),
  'drop-rule-security-level-early': at(
    EARLY,
    entrypoint('http_config_settings', {
      action: 'set_config',
      expression: 'true',
      action_parameters: { security_level: 'high' },
    }),
  ),
  'no-essentially-off': at(
    EARLY,
    send('PATCH', `${Z}/settings/security_level`, { value: 'essentially_off' }),
  ),
  'decline-te-with-cl-500': now((_api, base) => rawTeCl(base).then((a) => a.split('\r\n')[0])),
  'accept-empty-action-parameters': now(send('POST', `${Z}/rulesets`, lcf({}))),
  'lcf-expression-checked-on-create-only': now(async (api) => {
    const rs = await api('POST', `${Z}/rulesets`, lcf({ request_fields: [{ name: 'x-a' }] }));
    return api(
      'PUT',
      `${Z}/rulesets/${rs.body.result.id}`,
      lcf({ request_fields: [{ name: 'x-a' }] }, 'false'),
    );
  }),
  'not-found-without-message': now(get(`${Z}/dns_records/0000000000000000000000000000ffff`)),
  'missing-record-200-null': now(get(`${Z}/dns_records/0000000000000000000000000000ffff`)),
  'retire-early': at('2019-01-01', get('/organizations/0f0f/roles')),
  'retired-server-error': now(get(`${Z}/rate_limits`)),
  'retired-error-code-string': now(get(`${Z}/rate_limits`)),
};
for (const r of [
  ...RETIRED_ENDPOINTS.map((e) => e.retirement),
  ...RETIRED_SETTINGS,
  DNS_SETTINGS_RETIREMENT,
]) {
  const [method, path] = retirementProbe(r);
  PROBES[serveFaultName(r.subject)] = at(r.eol, send(method, path, method === 'GET' ? undefined : {}));
  PROBES[unservedFaultName(r.subject)] = at(
    '2019-01-01',
    send(method, path, method === 'GET' ? undefined : {}),
  );
}

async function observe(fault: string | undefined, probe: Probe): Promise<string> {
  const srv = await startManagement(probe.asOf, fault ? [fault] : []);
  try {
    return JSON.stringify(normalise(await probe.run(srv.api, srv.base)));
  } finally {
    await srv.close();
  }
}

describe('management fault catalogue', () => {
  it('names every fault once, in the management area, with a description and the clauses it breaks', () => {
    const names = managementFaults.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(FAULTS.filter((f) => names.includes(f.name))).toHaveLength(names.length);
    for (const f of managementFaults) {
      expect(f.area).toBe('management');
      expect(f.description.length).toBeGreaterThan(10);
      expect(f.breaks.length).toBeGreaterThan(0);
      for (const id of f.breaks) expect(id).toMatch(/^(mgmt|dep)\.[a-z0-9-]+\.[a-z0-9-]+$/);
    }
  });

  it('cites only clauses the management and deprecation suites define, and none marked untestable', () => {
    const known = new Map<string, { untestable?: string }>();
    for (const area of ['management', 'deprecations']) {
      const doc = parse(readFileSync(new URL(`../suites/${area}/clauses.yaml`, import.meta.url), 'utf8'));
      for (const c of doc.clauses) known.set(c.id, c);
    }
    for (const f of managementFaults) {
      for (const id of f.breaks) {
        expect(known.has(id), `${f.name} breaks unknown clause ${id}`).toBe(true);
        expect(known.get(id)?.untestable, `${f.name} breaks untestable clause ${id}`).toBeUndefined();
      }
    }
  });

  for (const fault of managementFaults) {
    it(`${fault.name} changes an answer`, async () => {
      const probe = PROBES[fault.name];
      expect(probe, `no probe for fault ${fault.name}`).toBeDefined();
      const clean = await observe(undefined, probe);
      // The probe must be repeatable, or any difference would prove nothing.
      expect(await observe(undefined, probe)).toBe(clean);
      const broken = await observe(fault.name, probe);
      expect(broken).not.toBe(clean);
    });
  }
});
