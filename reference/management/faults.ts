import type { FaultDef } from '../fault-def.ts';
import { DNS_SETTINGS_RETIREMENT } from './dns-settings.ts';
import { RETIRED_ENDPOINTS } from './retired-endpoints.ts';
import { serveFaultName, unservedFaultName } from './retirement.ts';
import { RETIRED_SETTINGS } from './zone-settings.ts';

type Entry = [name: string, description: string, breaks: string[]];

/** Each fault breaks one documented behaviour at the place it lives; `breaks` names the clauses that notice. */
const ENTRIES: Entry[] = [
  // envelope, errors, result_info, pagination
  [
    'drop-result-info',
    'list answers carry no result_info',
    [
      'mgmt.envelope.result-info',
      'mgmt.result-info.fields',
      'mgmt.result-info.count',
      'mgmt.result-info.totals',
      'mgmt.pagination.echo',
      'mgmt.dns.list',
      'mgmt.certpacks.list',
    ],
  ],
  ['ignore-direction', 'lists ignore direction=ASC/DESC', ['mgmt.pagination.order']],
  [
    'error-past-last-page',
    'a page past the last one answers an error instead of an empty result',
    ['mgmt.pagination.past-end'],
  ],
  [
    'missing-record-200-null',
    'a DNS record that does not exist answers 200 with success true and result null instead of an error',
    ['mgmt.errors.envelope'],
  ],
  [
    'per-page-over-10-ignored',
    'a per_page over 10 is ignored: lists answer pages of the default size, and result_info.per_page says so',
    ['mgmt.pagination.echo'],
  ],
  ['failure-result-not-null', 'failure envelopes carry result {} instead of null', ['mgmt.errors.envelope']],
  [
    'not-found-in-messages',
    'a resource that does not exist answers errors: [] with the error object in messages',
    ['mgmt.errors.envelope'],
  ],
  ['small-error-code', 'a resource that does not exist answers error code 5', ['mgmt.errors.object']],
  [
    'bare-string-messages',
    'creations answer messages: ["created"] (a string, not a message object)',
    ['mgmt.envelope.fields'],
  ],
  [
    'zone-notice-in-errors',
    'a zone read that succeeds carries a notice as an error object in errors',
    ['mgmt.envelope.success'],
  ],
  [
    'zone-errors-null',
    'a zone read that succeeds answers errors: null instead of an empty array',
    ['mgmt.envelope.success', 'mgmt.envelope.fields'],
  ],
  [
    'page-offset-default-per-page',
    'the offset of a page after the first is computed with the default per_page, not the one requested',
    ['mgmt.pagination.pages', 'mgmt.pagination.order'],
  ],
  [
    'page-offset-overlap',
    'each page after the first starts one item early, repeating the last item of the page before',
    ['mgmt.pagination.pages', 'mgmt.pagination.order'],
  ],
  ['empty-auth-error', 'requests without credentials are refused with errors: [{}]', ['mgmt.errors.object']],
  [
    'settings-read-stale',
    'a GET of a zone setting right after a PATCH changed it answers the value the PATCH replaced',
    ['mgmt.settings.read-after-patch'],
  ],
  [
    'settings-patch-not-stored',
    'a PATCH of a zone setting that changes its value answers the new value but keeps the old one',
    ['mgmt.settings.read-after-patch'],
  ],
  [
    'json-labelled-text-plain',
    'JSON answers, success and error, are labelled Content-Type text/plain',
    ['mgmt.envelope.json-media-type'],
  ],
  [
    'error-json-labelled-html',
    'error answers are labelled Content-Type text/html though their body is a JSON envelope',
    ['mgmt.envelope.json-media-type'],
  ],
  [
    'no-route-html',
    'unknown routes and methods answer an HTML page instead of an error envelope',
    ['mgmt.envelope.fields'],
  ],
  // authentication
  ['accept-missing-auth', 'requests without credentials are served', ['mgmt.auth.missing']],
  ['accept-wrong-credentials', 'requests with a wrong token or key pair are served', ['mgmt.auth.wrong']],
  ['reject-legacy-auth', 'X-Auth-Email + X-Auth-Key is refused', ['mgmt.auth.legacy']],
  [
    'auth-error-status-200',
    'requests without any credentials answer HTTP 200 (with success false)',
    ['mgmt.auth.missing'],
  ],
  // zones
  ['zone-drop-name', 'the zone object has no name', ['mgmt.zones.get']],
  ['zone-status-enabled', "the zone answers status 'enabled', outside the zone states", ['mgmt.zones.get']],
  ['zone-id-mismatch', 'the zone answered carries another id than the one requested', ['mgmt.zones.id']],
  // DNS records
  [
    'relative-record-name',
    'record names are kept relative to the zone: answered so (www instead of www.example.com), and lists ordered by name sort them so',
    ['mgmt.dns.name'],
  ],
  ['dns-get-drops-type', 'GET of one DNS record answers it without type', ['mgmt.dns.record-fields']],
  ['dns-get-id-is-zone-id', "GET of one DNS record answers the zone's id as the record's", ['mgmt.dns.get']],
  ['dns-get-result-null', 'GET of one DNS record answers success with result null', ['mgmt.dns.get']],
  [
    'dns-create-comment-null',
    'POST dns_records stores the comment sent but answers the record with comment null',
    ['mgmt.dns.create'],
  ],
  [
    'dns-get-created-on-epoch',
    'GET of one DNS record answers created_on as Unix seconds',
    ['mgmt.dns.record-fields'],
  ],
  [
    'put-merges-record',
    'PUT merges the body into the record as PATCH does, keeping fields not sent',
    ['mgmt.dns.put'],
  ],
  ['put-keeps-name', 'PUT keeps the record name it had, as if name could not change', ['mgmt.dns.put']],
  ['caa-flags-string', 'CAA data answers flags as a string ("0")', ['mgmt.dns.data']],
  ['caa-content-only', 'CAA records are answered in content only, without data', ['mgmt.dns.data']],
  ['dns-record-drop-proxiable', 'DNS records are answered without proxiable', ['mgmt.dns.record-fields']],
  ['dns-ttl-as-string', 'DNS records answer ttl as a string ("300")', ['mgmt.dns.record-fields']],
  ['patch-replaces-record', 'PATCH resets the fields it was not sent', ['mgmt.dns.patch']],

  ['srv-data-drops-port', 'SRV data is answered without port', ['mgmt.dns.srv-data-fields']],
  [
    'accept-srv-data-text',
    'SRV data sent as a string (the zone-file form) is read instead of refused, though data is an object',
    ['dep.dns-error-chain.wrapped', 'dep.dns-error-chain.direct'],
  ],
  // rulesets, rules, custom log fields
  [
    'allow-second-zone-ruleset',
    'a second zone ruleset for the same phase is accepted',
    ['mgmt.rulesets.one-per-phase'],
  ],
  [
    'ruleset-name-ignored',
    "created rulesets are named 'default' whatever name was sent",
    ['mgmt.rulesets.create'],
  ],
  [
    'ruleset-description-dropped',
    'created rulesets keep no description (the creation does not read it)',
    ['mgmt.rulesets.create'],
  ],
  [
    'rule-create-prepends',
    'POST rules puts the new rule before the existing ones',
    ['mgmt.rulesets.rule-create', 'mgmt.rulesets.account'],
  ],
  [
    'rule-create-twice',
    'POST rules adds the new rule twice',
    ['mgmt.rulesets.rule-create', 'mgmt.rulesets.account'],
  ],
  ['rule-version-number', 'rules answer version as a number instead of a string', ['mgmt.rules.schema']],
  ['rule-last-updated-epoch', 'rules answer last_updated as Unix seconds', ['mgmt.rules.schema']],
  ['rulesets-list-without-phase', 'the ruleset list omits phase', ['mgmt.rulesets.list']],
  [
    'put-appends-rules',
    'PUT appends the rules sent instead of replacing all rules',
    ['mgmt.rulesets.put-replaces'],
  ],
  [
    'ruleset-version-number',
    'rulesets answer version as a number (2) instead of a string',
    ['mgmt.rulesets.schema'],
  ],
  [
    'static-ruleset-version',
    'PUT and rule changes keep the old ruleset version',
    ['mgmt.rulesets.put-version'],
  ],
  [
    'static-ruleset-last-updated',
    'PUT and rule changes keep the old last_updated',
    ['mgmt.rulesets.put-last-updated'],
  ],
  [
    'rule-patch-ignored',
    'PATCH of a rule answers success without changing the rule',
    // Nor can the rule be switched off or on.
    ['mgmt.rulesets.rule-patch', 'mgmt.rulesets.account', 'mgmt.rules.enabled'],
  ],
  ['ignore-rule-enabled', 'rules stay enabled whatever enabled says', ['mgmt.rules.enabled']],
  ['no-entrypoint', 'PUT of a phase entry point answers not found', ['mgmt.rulesets.entrypoint']],
  ['no-account-rulesets', 'the account-level ruleset endpoints do not exist', ['mgmt.rulesets.account']],
  [
    'accept-custom-field-expression',
    'log_custom_field rules with an expression other than true are accepted',
    ['mgmt.lcf.expression-true'],
  ],
  [
    'accept-empty-custom-fields',
    'log_custom_field rules without any of the three arrays are accepted',
    ['mgmt.lcf.one-array-required'],
  ],
  [
    'empty-custom-field-arrays',
    'log_custom_field rules are answered with every field array empty',
    ['mgmt.lcf.params-schema', 'mgmt.lcf.header-names-lower', 'mgmt.lcf.cookie-case', 'mgmt.lcf.limit-40'],
  ],
  [
    'rewrite-header-field-names',
    'header field names are stored capitalised (X-Request-Id) instead of as sent',
    ['mgmt.lcf.header-names-lower'],
  ],
  ['lowercase-cookie-fields', 'cookie field names are folded to lower case', ['mgmt.lcf.cookie-case']],
  ['no-custom-field-limit', 'more than 40 custom log fields per zone are accepted', ['mgmt.lcf.limit-40']],
  // log-push jobs
  [
    'reject-custom-field-carriers',
    'jobs whose fields include Cookies, RequestHeaders or ResponseHeaders are refused',
    ['mgmt.logpush.custom-fields', 'mgmt.lcf.procedure'],
  ],
  [
    'reject-ownership-challenge',
    'job creation refuses the ownership_challenge field',
    ['mgmt.logpush.create', 'mgmt.lcf.procedure'],
  ],
  [
    'logpush-requires-custom-carriers',
    'jobs whose fields include none of Cookies, RequestHeaders and ResponseHeaders are refused',
    ['mgmt.logpush.create'],
  ],
  [
    'logpush-strips-custom-carriers',
    'jobs are accepted but stored with Cookies, RequestHeaders and ResponseHeaders left out of fields',
    ['mgmt.logpush.custom-fields', 'mgmt.lcf.procedure'],
  ],
  // certificate packs
  [
    'certpacks-count-is-total',
    'certificate pack lists answer result_info.count with the total over all pages',
    ['mgmt.result-info.count'],
  ],
  [
    'certpacks-info-without-total-count',
    'certificate pack lists answer result_info without total_count',
    ['mgmt.result-info.fields'],
  ],
  [
    'certpacks-one-page-without-info',
    'a certificate pack list that fits on one page is answered without result_info',
    ['mgmt.certpacks.list', 'mgmt.envelope.result-info'],
  ],
  [
    'pack-validity-days-string',
    'certificate packs answer validity_days as a string ("90")',
    ['mgmt.certpacks.schema'],
  ],
  [
    'drop-certificate-fields',
    'certificates are answered without status',
    ['mgmt.certpacks.certificate-schema', 'mgmt.certpacks.schema'],
  ],
  // invitations
  [
    'reject-invite-accept',
    'PATCH status accepted answers an error',
    ['mgmt.invites.accept', 'mgmt.invites.accepted-state'],
  ],
  [
    'invite-status-not-saved',
    'PATCH status accepted succeeds but the invitation stays pending',
    ['mgmt.invites.accepted-state'],
  ],
  [
    'invite-answer-echoes-status',
    'PATCH status accepted answers the invitation as accepted, but it stays pending',
    ['mgmt.invites.accepted-state'],
  ],
  [
    'invite-status-verb',
    "an accepted invitation answers status 'accept', outside the invitation states",
    ['mgmt.invites.accepted-state'],
  ],
  // settings and DNS settings
  ['reject-security-level-off', 'security_level off is refused', ['mgmt.settings.security-level']],
  [
    'dns-settings-use-apex-ns',
    'DNS settings answer multi_provider under the name of the endpoint it replaced, use_apex_ns',
    ['mgmt.dns-settings.show'],
  ],
  [
    'dns-settings-omit-false',
    'DNS settings leave out multi_provider and secondary_overrides when they are false',
    ['mgmt.dns-settings.show'],
  ],
  [
    'ignore-dns-settings-fields',
    'PATCH dns_settings ignores multi_provider and secondary_overrides',
    ['mgmt.dns-settings.update'],
  ],
  [
    'ignore-secondary-overrides',
    'PATCH dns_settings applies multi_provider but ignores secondary_overrides',
    ['mgmt.dns-settings.update'],
  ],
  [
    'dns-settings-string-booleans',
    'multi_provider and secondary_overrides are answered as strings',
    ['mgmt.dns-settings.types'],
  ],
  // object storage management
  [
    'no-migration-routes',
    'the bucket migration endpoints do not exist',
    ['mgmt.storage.migration-get', 'mgmt.storage.migration-put', 'mgmt.storage.migration-patch'],
  ],
  // deprecation schedule
  [
    'keep-error-chain',
    'DNS validation errors keep code 1004 with error_chain from 2024-10-01',
    ['dep.dns-error-chain.direct'],
  ],
  [
    'root-cause-wrapper-code',
    'from 2024-10-01 the root cause is answered directly but with the wrapper code 1004',
    ['dep.dns-error-chain.direct'],
  ],
  [
    'error-chain-code-string',
    'the entries of an error_chain carry their code as a string',
    ['mgmt.errors.error-chain'],
  ],
  [
    'root-cause-code-string',
    'from 2024-10-01 a DNS validation root cause, answered directly, carries its code as a string',
    ['mgmt.errors.object'],
  ],
  [
    'drop-error-chain-early',
    'DNS validation errors answer the root cause directly before 2024-10-01',
    ['dep.dns-error-chain.wrapped'],
  ],
  [
    'accept-security-level-high',
    'security_level values other than off and under_attack are accepted from 2024-09-30',
    ['dep.security-level.restricted'],
  ],
  [
    'restrict-medium-only',
    'from 2024-09-30 only security_level medium is refused; essentially_off, low and high are still accepted',
    ['dep.security-level.restricted'],
  ],
  [
    'reject-under-attack',
    'security_level under_attack is refused from 2024-09-30',
    ['dep.security-level.under-attack'],
  ],
  [
    'restrict-security-level-early',
    'the security level and threat score restrictions apply before 2024-09-30',
    [
      'dep.security-level.any-value',
      'dep.ruleset-security-level.accepted',
      'dep.threat-score.accepted',
      // The zone's own medium, set again before the date, is refused too.
      'mgmt.settings.security-level',
    ],
  ],
  [
    'accept-rule-security-level',
    'rules setting security_level to other values are accepted from 2024-09-30',
    ['dep.ruleset-security-level.rejected'],
  ],
  [
    'accept-threat-score-expression',
    'rule expressions using cf.threat_score are accepted from 2024-09-30',
    ['dep.threat-score.rejected'],
  ],
  ['keep-locked-field', 'DNS records carry locked from 2024-07-14', ['dep.dns-locked.omitted']],
  ['drop-locked-field-early', 'DNS records omit locked before 2024-07-14', ['dep.dns-locked.false']],
  ['locked-as-string', 'DNS records answer locked as the string "false"', ['dep.dns-locked.false']],
  [
    'refuse-locked-input',
    'from 2024-07-14 a DNS record body carrying locked is refused instead of ignored',
    ['dep.dns-locked.ignored'],
  ],
  [
    'honor-locked-input',
    'locked: true sent by a client is stored and answered, whatever the date',
    ['dep.dns-locked.ignored', 'dep.dns-locked.false', 'dep.dns-locked.omitted'],
  ],
  [
    'accept-srv-name-fields',
    'SRV data service, proto and name are accepted from 2024-05-31',
    ['dep.srv-name-fields.rejected'],
  ],
  [
    'produce-srv-name-fields',
    'SRV data in responses carries service, proto and name from 2024-05-31',
    ['dep.srv-name-fields.not-produced'],
  ],
  [
    'reject-srv-name-fields-early',
    'SRV data service, proto and name are refused before 2024-05-31',
    ['dep.srv-name-fields.accepted'],
  ],
  [
    'hide-srv-name-fields-early',
    'SRV data in responses lacks service, proto and name before 2024-05-31',
    ['dep.srv-name-fields.produced'],
  ],
  [
    'accept-te-with-cl',
    'requests with Transfer-Encoding and Content-Length are served from 2023-07-01',
    ['dep.te-cl.declined'],
  ],
  [
    'decline-te-with-cl-early',
    'requests with Transfer-Encoding and Content-Length are declined before 2023-07-01',
    ['dep.te-cl.accepted'],
  ],
  [
    'no-page-shield-route',
    'the page_shield routes that replace script_monitor do not exist',
    ['dep.script-monitor.page-shield-route'],
  ],
  [
    'page-shield-scripts-without-seen-times',
    'page_shield scripts are listed without first_seen_at and last_seen_at',
    ['dep.script-monitor.page-shield-route'],
  ],
  [
    'no-direct-upload-v2',
    'POST images/v2/direct_upload does not exist',
    ['dep.direct-upload-v1.v2-replacement'],
  ],
  [
    'direct-upload-v2-rejects-metadata',
    'POST images/v2/direct_upload refuses the metadata v2 adds, taking only what v1 took',
    ['dep.direct-upload-v1.v2-replacement'],
  ],
  // second ways to break clauses
  [
    'past-end-last-page',
    'a page past the last one answers the last page again',
    ['mgmt.pagination.past-end'],
  ],
  [
    'total-pages-floor',
    'result_info.total_pages is total_count / per_page rounded down',
    ['mgmt.result-info.totals'],
  ],
  [
    'echo-default-per-page',
    'result_info.per_page answers the default page size instead of the per_page requested',
    ['mgmt.pagination.echo'],
  ],
  [
    'legacy-key-not-compared',
    'the legacy key pair is checked by its email only: a wrong X-Auth-Key is served',
    ['mgmt.auth.wrong'],
  ],
  ['zone-id-uppercase', 'the zone answered carries its id in upper case', ['mgmt.zones.id']],
  [
    'dns-list-drops-proxiable',
    'DNS record lists answer records without proxiable',
    ['mgmt.dns.record-fields'],
  ],
  ['patch-ignores-data', 'PATCH changes top-level fields only and keeps the old data', ['mgmt.dns.patch']],
  [
    'name-trailing-dot',
    'record names are answered with a trailing dot (www.example.com.)',
    ['mgmt.dns.name'],
  ],
  ['srv-data-port-string', 'SRV data answers port as a string', ['mgmt.dns.srv-data-fields']],
  [
    'put-keeps-version',
    'PUT of a ruleset keeps its version; only rule changes move it',
    ['mgmt.rulesets.put-version'],
  ],
  [
    'ruleset-last-updated-date-only',
    'ruleset last_updated is written as a date without a time',
    ['mgmt.rulesets.schema'],
  ],
  [
    'one-per-phase-by-name',
    'a second zone ruleset of a phase is refused only when its name is taken too',
    ['mgmt.rulesets.one-per-phase'],
  ],
  [
    'put-merges-by-position',
    'PUT overwrites rules by position and keeps old rules past the ones sent',
    ['mgmt.rulesets.put-replaces'],
  ],
  [
    'entrypoint-appends',
    'PUT of a phase entry point adds the rules sent to those it has',
    ['mgmt.rulesets.entrypoint'],
  ],
  [
    'rule-patch-keeps-description',
    'PATCH of a rule applies enabled but keeps the old description',
    ['mgmt.rulesets.rule-patch', 'mgmt.rulesets.account'],
  ],
  [
    'patch-ignores-enabled',
    'PATCH of a rule applies the fields sent but enabled, which keeps its old value',
    ['mgmt.rules.enabled'],
  ],
  [
    'ignore-enabled-in-bulk',
    'rules created by PUT or POST are enabled whatever enabled says; only PATCH of a rule reads it',
    ['mgmt.rules.enabled'],
  ],
  ['rulesets-list-without-kind', 'the ruleset list omits kind', ['mgmt.rulesets.list']],
  [
    'custom-fields-as-strings',
    'log_custom_field arrays are answered as bare names instead of {name} objects',
    ['mgmt.lcf.params-schema', 'mgmt.lcf.header-names-lower', 'mgmt.lcf.cookie-case'],
  ],
  [
    'certificate-priority-string',
    'certificates answer priority as a string',
    ['mgmt.certpacks.certificate-schema', 'mgmt.certpacks.schema'],
  ],
  [
    'certpacks-keyed-by-id',
    'the certificate pack list answers an object keyed by pack id instead of an array',
    ['mgmt.certpacks.list', 'mgmt.certpacks.schema', 'mgmt.certpacks.certificate-schema'],
  ],
  [
    'dns-settings-numeric-booleans',
    'multi_provider and secondary_overrides are answered as 0 and 1',
    ['mgmt.dns-settings.types'],
  ],
  [
    'migration-no-put',
    'PUT of the migration configuration is not a method of the route',
    ['mgmt.storage.migration-put'],
  ],
  [
    'migration-no-patch',
    'PATCH of the migration configuration is not a method of the route',
    ['mgmt.storage.migration-patch'],
  ],
  [
    'migration-unset-not-found',
    'GET of a bucket without a migration configuration answers not found',
    ['mgmt.storage.migration-get'],
  ],
  [
    'accept-srv-name-fields-matching-name',
    'from 2024-05-31 SRV data service, proto and name are accepted when they spell the record name',
    ['dep.srv-name-fields.rejected'],
  ],
  [
    'reject-srv-data-name-early',
    'before 2024-05-31 SRV data name is refused as a duplicate of the record name',
    ['dep.srv-name-fields.accepted'],
  ],
  [
    'srv-data-name-full-early',
    'before 2024-05-31 SRV data name is answered as the full record name',
    ['dep.srv-name-fields.produced'],
  ],
  [
    'produce-srv-name-fields-on-get',
    'from 2024-05-31 GET of one SRV record still answers service, proto and name in data',
    ['dep.srv-name-fields.not-produced'],
  ],
  [
    'accept-threat-score-on-patch',
    'from 2024-09-30 PATCH of a rule accepts cf.threat_score (only creation checks it)',
    ['dep.threat-score.rejected'],
  ],
  [
    'accept-rule-security-level-on-patch',
    'from 2024-09-30 PATCH of a rule accepts any security level (only creation checks it)',
    ['dep.ruleset-security-level.rejected'],
  ],
  [
    'strip-threat-score-early',
    'before 2024-09-30 rules using cf.threat_score are accepted with that condition removed',
    ['dep.threat-score.accepted'],
  ],
  [
    'drop-rule-security-level-early',
    'before 2024-09-30 rules setting the security level are accepted with it dropped',
    ['dep.ruleset-security-level.accepted'],
  ],
  [
    'no-essentially-off',
    'security_level essentially_off is not a known value, whatever the date',
    ['dep.security-level.any-value'],
  ],
  [
    'decline-te-with-cl-500',
    'requests with Transfer-Encoding and Content-Length are declined with status 500',
    ['dep.te-cl.declined'],
  ],
  [
    'accept-empty-action-parameters',
    'a log_custom_field rule with action_parameters {} is accepted; only a missing action_parameters is refused',
    ['mgmt.lcf.one-array-required'],
  ],
  [
    'lcf-expression-checked-on-create-only',
    'the expression of a log_custom_field rule is checked on ruleset creation but not when PUT replaces the rules',
    ['mgmt.lcf.expression-true'],
  ],
  [
    'not-found-without-message',
    'a resource that does not exist answers an error object without message',
    ['mgmt.errors.object'],
  ],
];

const RETIREMENTS = [
  ...RETIRED_ENDPOINTS.map((r) => r.retirement),
  ...RETIRED_SETTINGS,
  DNS_SETTINGS_RETIREMENT,
];

export const managementFaults: FaultDef[] = [
  ...ENTRIES.map(
    ([name, description, breaks]): FaultDef => ({ name, area: 'management', description, breaks }),
  ),
  {
    name: 'retire-early',
    area: 'management',
    description: 'retired endpoints answer an error before their end-of-life date',
    breaks: RETIREMENTS.map((r) => `dep.${r.subject}.available`),
  },
  {
    name: 'retired-error-code-string',
    area: 'management',
    description: 'retired endpoints answer their error object with the code as a string',
    breaks: ['mgmt.errors.object'],
  },
  {
    name: 'retired-server-error',
    area: 'management',
    description: 'retired endpoints answer an error envelope with status 500 after their end-of-life date',
    breaks: RETIREMENTS.map((r) => `dep.${r.subject}.retired`),
  },
  ...RETIREMENTS.map(
    (r): FaultDef => ({
      name: unservedFaultName(r.subject),
      area: 'management',
      description: `the ${r.subject} endpoints were never implemented: they answer no route before ${r.eol} too`,
      breaks: [`dep.${r.subject}.available`],
    }),
  ),
  ...RETIREMENTS.map(
    (r): FaultDef => ({
      name: serveFaultName(r.subject),
      area: 'management',
      description: `the retired ${r.subject} endpoints are still served from ${r.eol}`,
      breaks: [`dep.${r.subject}.retired`],
    }),
  ),
];
