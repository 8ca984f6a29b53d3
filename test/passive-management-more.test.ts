import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { LoadedSuites } from '../runner/load/suite.ts';
import type { RunResults } from '../runner/model/results.ts';
import {
  clauseVerdicts,
  expectFailsInPassing,
  failingClauses,
  judgedInPassing,
} from './helpers/passive-recording.ts';

// The deprecation rows and management clauses judged in passing from what a request sent and what
// its answer holds, or from what earlier writes answered: DNS records' locked and SRV name fields,
// requests without credentials, ruleset versions and timestamps, custom log field rules, invitations,
// and the security level. Plain fetch makes the traffic through the proxy in front of the reference.

const TODAY = today();
/** Before the SRV name fields (2024-05-31), locked (2024-07-14) and security level (2024-09-30) rows. */
const EARLY = '2024-05-01';
let suites: LoadedSuites;

type Api = (method: string, path: string, body?: unknown, auth?: boolean) => Promise<any>;

/** DNS records: an A record written with locked true, an SRV record read alone and in the list, one with the name fields. */
async function dnsTraffic(api: Api, zoneId: string, zone: string): Promise<void> {
  const records = `/zones/${zoneId}/dns_records`;
  const a = { type: 'A', name: `locked.${zone}`, content: '192.0.2.20', ttl: 300 };
  const made = await api('POST', records, { ...a, comment: 'observed', locked: true });
  const id = made.result?.id;
  await api('GET', `${records}/${id}`);
  await api('PATCH', `${records}/${id}`, { locked: true, content: '192.0.2.21' });
  await api('PUT', `${records}/${id}`, { ...a, name: `put.${zone}`, content: '192.0.2.22', locked: true });
  await api('GET', records, undefined);
  const data = { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' };
  const srv = await api('POST', records, { type: 'SRV', name: `_sip._udp.srv.${zone}`, ttl: 300, data });
  await api('GET', `${records}/${srv.result?.id}`);
  await api('GET', `${records}?type=SRV`);
  await api('PATCH', `${records}/${srv.result?.id}`, { data: { ...data, port: 5061 } });
  const legacy = { service: '_sip', proto: '_tcp', name: `legacy.${zone}` };
  await api('POST', records, {
    type: 'SRV',
    name: `_sip._tcp.legacy.${zone}`,
    ttl: 300,
    data: { ...data, ...legacy },
  });
}

/**
 * Rulesets: one put twice, the second over a second after its creation where `aSecondLater` (the
 * only exchange that waits: last_updated has one-second resolution); rules the 2024-09-30 row refuses.
 */
async function rulesetTraffic(api: Api, zoneId: string, aSecondLater: boolean): Promise<void> {
  const rulesets = `/zones/${zoneId}/rulesets`;
  const made = await api('POST', rulesets, {
    name: 'observed',
    kind: 'zone',
    description: 'observed',
    phase: 'http_request_late_transform',
  });
  const rule = (n: number) => ({
    action: 'rewrite',
    expression: `http.request.uri.path eq "/${n}"`,
    action_parameters: { headers: { 'x-observed': { operation: 'set', value: String(n) } } },
  });
  if (aSecondLater) await sleep(1100);
  await api('PUT', `${rulesets}/${made.result?.id}`, { rules: [rule(1), rule(3)] });
  await api('PUT', `${rulesets}/${made.result?.id}`, { rules: [rule(2)] });
  const config = await api('POST', rulesets, {
    name: 'observed-config',
    kind: 'zone',
    phase: 'http_config_settings',
    rules: [{ action: 'set_config', expression: 'true', action_parameters: { ssl: 'full' } }],
  });
  const medium = {
    action: 'set_config',
    expression: 'true',
    action_parameters: { security_level: 'medium' },
  };
  await api('PUT', `${rulesets}/${config.result?.id}`, { rules: [medium] });
  await api('POST', `${rulesets}/${made.result?.id}/rules`, {
    action: 'rewrite',
    expression: '(cf.threat_score gt 10) and http.host eq "observed.invalid"',
    action_parameters: { headers: { 'x-observed': { operation: 'set', value: 't' } } },
  });
}

/** Custom log fields: a rule with header and cookie names in mixed case, and three the clauses refuse. */
async function logFieldTraffic(api: Api, zoneId: string): Promise<void> {
  const made = await api('POST', `/zones/${zoneId}/rulesets`, {
    name: 'observed-log-fields',
    kind: 'zone',
    phase: 'http_log_custom_fields',
  });
  const put = (rule: object) =>
    api('PUT', `/zones/${zoneId}/rulesets/${made.result?.id}`, {
      rules: [{ action: 'log_custom_field', expression: 'true', ...rule }],
    });
  const fields = (...names: string[]) => names.map((name) => ({ name }));
  await put({
    action_parameters: {
      request_fields: fields('x-request-id', 'x-forwarded-host'),
      response_fields: fields('cf-cache-status'),
      cookie_fields: fields('SessionId', 'theme'),
    },
  });
  // Refused, or stored in lower case.
  await put({ action_parameters: { request_fields: fields('X-Forwarded-Host') } });
  await put({ action_parameters: {} });
  await put({
    expression: 'http.host eq "observed.invalid"',
    action_parameters: { request_fields: fields('x-a') },
  });
  const many = Array.from({ length: 41 }, (_, i) => `x-field-${i}`);
  await put({ action_parameters: { request_fields: fields(...many) } });
}

/** Reads of the lists and settings, a CAA record, and an account ruleset created and replaced. */
async function readTraffic(api: Api, zoneId: string, accountId: string): Promise<void> {
  await api('GET', `/zones/${zoneId}/dns_records?per_page=5`);
  await api('GET', `/zones/${zoneId}/rulesets`);
  await api('GET', `/zones/${zoneId}/ssl/certificate_packs?ssl_status=all`);
  await api('GET', `/zones/${zoneId}/dns_settings`);
  await api('GET', `/zones/${zoneId}/dns_records/0000000000000000000000000000ffff`);
  await api('POST', `/zones/${zoneId}/dns_records`, {
    type: 'CAA',
    name: 'caa-observed',
    ttl: 300,
    data: { flags: 0, tag: 'issue', value: 'ca.example.net' },
  });
  const rulesets = `/accounts/${accountId}/rulesets`;
  const made = await api('POST', rulesets, {
    name: 'observed-account',
    kind: 'root',
    description: 'observed',
    phase: 'http_request_firewall_custom',
  });
  const rule = (n: number) => ({
    action: 'log',
    expression: `http.host eq "${n}.observed.invalid"`,
    description: `r${n}`,
  });
  await api('PUT', `${rulesets}/${made.result?.id}`, { rules: [rule(1), rule(2)] });
  await api('PUT', `${rulesets}/${made.result?.id}`, { rules: [rule(3)] });
}

/** The invitation accepted then read; the security level set to two values no longer accepted, then off; a request without credentials. */
async function otherTraffic(api: Api, zoneId: string, invite: string): Promise<void> {
  await api('PATCH', `/user/invites/${invite}`, { status: 'accepted' });
  await api('GET', `/user/invites/${invite}`);
  for (const value of ['medium', 'high', 'off'])
    await api('PATCH', `/zones/${zoneId}/settings/security_level`, { value });
  await api('GET', `/zones/${zoneId}`, undefined, false);
}

/** The reference at `asOf` with `faults`, behind the proxy, sent the traffic above. */
function observe(faults: string[] = [], asOf = TODAY, aSecondLater = true): Promise<RunResults> {
  return judgedInPassing({
    suites,
    asOf,
    faults,
    drive: async (proxy, ref) => {
      const { token } = ref.context.credentials;
      const api: Api = async (method, path, body, auth = true) => {
        const res = await fetch(`${proxy.urls.management}/client/v4${path}`, {
          method,
          headers: {
            ...(auth ? { authorization: `Bearer ${token}` } : {}),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return res.json().catch(() => ({}));
      };
      const zoneId = ref.context.ids.zoneId;
      const zone = (await api('GET', `/zones/${zoneId}`)).result?.name;
      await dnsTraffic(api, zoneId, zone);
      await rulesetTraffic(api, zoneId, aSecondLater);
      await logFieldTraffic(api, zoneId);
      await otherTraffic(api, zoneId, ref.context.ids.inviteId);
      await readTraffic(api, zoneId, ref.context.ids.accountId);
    },
  });
}

const verdicts = clauseVerdicts;
const failing = failingClauses;

/** Judged both ways: fault-free, the traffic above passes them. */
const PASSING: Record<string, string[]> = {
  [TODAY]: [
    'dep.dns-locked.omitted',
    'dep.dns-locked.ignored',
    'dep.srv-name-fields.not-produced',
    'mgmt.auth.missing',
    'mgmt.rulesets.put-version',
    'mgmt.rulesets.put-last-updated',
    'mgmt.lcf.header-names-lower',
    'mgmt.lcf.cookie-case',
    'mgmt.invites.accepted-state',
    'mgmt.envelope.result-info',
    'mgmt.envelope.json-media-type',
    'mgmt.zones.id',
    'mgmt.dns.list',
    'mgmt.dns.create',
    'mgmt.dns.get',
    'mgmt.dns.patch',
    'mgmt.dns.put',
    'mgmt.dns.data',
    'mgmt.dns.srv-data-fields',
    'mgmt.rulesets.list',
    'mgmt.rulesets.create',
    'mgmt.rulesets.put-replaces',
    'mgmt.rulesets.account',
    'mgmt.rules.schema',
    'mgmt.lcf.params-schema',
    'mgmt.certpacks.list',
    'mgmt.certpacks.certificate-schema',
    'mgmt.dns-settings.show',
  ],
  [EARLY]: ['dep.dns-locked.false', 'dep.dns-locked.ignored', 'dep.srv-name-fields.produced'],
};

/** Refusal clauses: a refusal is no pass without its valid twin, so fault-free they stay untested. */
const REFUSALS = [
  'dep.security-level.restricted',
  'dep.ruleset-security-level.rejected',
  'dep.threat-score.rejected',
  'dep.srv-name-fields.rejected',
  'mgmt.lcf.one-array-required',
  'mgmt.lcf.expression-true',
  'mgmt.lcf.limit-40',
];

/**
 * What a fault breaks in passing beside its clauses: an answer 200 to a request without credentials,
 * success false, is also a 2xx answer whose envelope says it failed, which the passive check of
 * mgmt.envelope.success judges on every 2xx answer, and a zone read answered 200 without a zone,
 * which zone.json judges in passing (a run sends no such request to those checks). A list of
 * certificate packs answered without result_info has none of its fields either, which
 * mgmt.result-info.fields judges on every list in passing. A fault in the ruleset writes both
 * scopes share shows on the account ruleset the traffic writes too, which mgmt.rulesets.account
 * holds to the zone variants' checks (the run's account case checks other fields).
 */
const SHARED_RULESET_WRITES = ['mgmt.rulesets.account'];
const ALSO: Record<string, string[]> = {
  'auth-error-status-200': ['mgmt.envelope.success', 'mgmt.zones.get'],
  'certpacks-one-page-without-info': ['mgmt.result-info.fields'],
  'ruleset-name-ignored': SHARED_RULESET_WRITES,
  'ruleset-description-dropped': SHARED_RULESET_WRITES,
  'put-appends-rules': SHARED_RULESET_WRITES,
  'put-merges-by-position': SHARED_RULESET_WRITES,
};

describe('management and deprecation clauses judged from what requests sent and earlier answers said', () => {
  beforeAll(async () => {
    const areas = listAreas();
    suites = await loadSuites(areas, areas);
  });

  for (const asOf of [TODAY, EARLY]) {
    it(`fault-free as of ${asOf}: each clause judged both ways passes, the refusal clauses stay untested, none fails`, async () => {
      const results = await observe([], asOf);
      expect(failing(results)).toEqual([]);
      const v = verdicts(results);
      for (const id of PASSING[asOf]) expect(v[id], id).toBe('pass');
      if (asOf === TODAY) for (const id of REFUSALS) expect(v[id], id).toBe('untested');
    }, 60_000);
  }

  for (const [fault, clause, asOf = TODAY] of [
    ['keep-locked-field', 'dep.dns-locked.omitted'],
    ['honor-locked-input', 'dep.dns-locked.ignored'],
    ['drop-locked-field-early', 'dep.dns-locked.false', EARLY],
    ['locked-as-string', 'dep.dns-locked.false', EARLY],
    ['produce-srv-name-fields', 'dep.srv-name-fields.not-produced'],
    ['produce-srv-name-fields-on-get', 'dep.srv-name-fields.not-produced'],
    ['hide-srv-name-fields-early', 'dep.srv-name-fields.produced', EARLY],
    ['srv-data-name-full-early', 'dep.srv-name-fields.produced', EARLY],
    ['accept-srv-name-fields', 'dep.srv-name-fields.rejected'],
    ['accept-missing-auth', 'mgmt.auth.missing'],
    ['auth-error-status-200', 'mgmt.auth.missing'],
    ['static-ruleset-version', 'mgmt.rulesets.put-version'],
    ['put-keeps-version', 'mgmt.rulesets.put-version'],
    ['static-ruleset-last-updated', 'mgmt.rulesets.put-last-updated'],
    ['rewrite-header-field-names', 'mgmt.lcf.header-names-lower'],
    ['lowercase-cookie-fields', 'mgmt.lcf.cookie-case'],
    ['accept-empty-custom-fields', 'mgmt.lcf.one-array-required'],
    ['accept-custom-field-expression', 'mgmt.lcf.expression-true'],
    ['no-custom-field-limit', 'mgmt.lcf.limit-40'],
    ['invite-status-not-saved', 'mgmt.invites.accepted-state'],
    ['invite-answer-echoes-status', 'mgmt.invites.accepted-state'],
    ['invite-status-verb', 'mgmt.invites.accepted-state'],
    ['accept-security-level-high', 'dep.security-level.restricted'],
    ['restrict-medium-only', 'dep.security-level.restricted'],
    ['accept-rule-security-level', 'dep.ruleset-security-level.rejected'],
    ['accept-threat-score-expression', 'dep.threat-score.rejected'],
    ['drop-result-info', 'mgmt.envelope.result-info'],
    ['certpacks-one-page-without-info', 'mgmt.envelope.result-info'],
    ['json-labelled-text-plain', 'mgmt.envelope.json-media-type'],
    ['error-json-labelled-html', 'mgmt.envelope.json-media-type'],
    ['zone-id-mismatch', 'mgmt.zones.id'],
    ['zone-id-uppercase', 'mgmt.zones.id'],
    ['drop-result-info', 'mgmt.dns.list'],
    ['dns-create-comment-null', 'mgmt.dns.create'],
    ['dns-get-id-is-zone-id', 'mgmt.dns.get'],
    ['patch-ignores-data', 'mgmt.dns.patch'],
    ['put-merges-record', 'mgmt.dns.put'],
    ['put-keeps-name', 'mgmt.dns.put'],
    ['caa-content-only', 'mgmt.dns.data'],
    ['srv-data-drops-port', 'mgmt.dns.srv-data-fields'],
    ['srv-data-port-string', 'mgmt.dns.srv-data-fields'],
    ['rulesets-list-without-phase', 'mgmt.rulesets.list'],
    ['rulesets-list-without-kind', 'mgmt.rulesets.list'],
    ['ruleset-name-ignored', 'mgmt.rulesets.create'],
    ['ruleset-description-dropped', 'mgmt.rulesets.create'],
    ['put-appends-rules', 'mgmt.rulesets.put-replaces'],
    ['put-merges-by-position', 'mgmt.rulesets.put-replaces'],
    ['ruleset-name-ignored', 'mgmt.rulesets.account'],
    ['put-merges-by-position', 'mgmt.rulesets.account'],
    ['rule-version-number', 'mgmt.rules.schema'],
    ['rule-last-updated-epoch', 'mgmt.rules.schema'],
    ['custom-fields-as-strings', 'mgmt.lcf.params-schema'],
    ['empty-custom-field-arrays', 'mgmt.lcf.params-schema'],
    ['certpacks-keyed-by-id', 'mgmt.certpacks.list'],
    ['certpacks-one-page-without-info', 'mgmt.certpacks.list'],
    ['drop-certificate-fields', 'mgmt.certpacks.certificate-schema'],
    ['certificate-priority-string', 'mgmt.certpacks.certificate-schema'],
    ['dns-settings-use-apex-ns', 'mgmt.dns-settings.show'],
    ['dns-settings-omit-false', 'mgmt.dns-settings.show'],
  ] as const) {
    it(`with the fault ${fault}${asOf === TODAY ? '' : ` as of ${asOf}`}, ${clause} fails in passing, and nothing outside the fault's clauses`, async () => {
      // Only the last_updated clause needs a PUT a second after a write; the others need no wait.
      const later = clause === 'mgmt.rulesets.put-last-updated';
      expectFailsInPassing(await observe([fault], asOf, later), fault, clause, ALSO[fault]);
    }, 60_000);
  }
});
