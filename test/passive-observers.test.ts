import Cloudflare from 'cloudflare';
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
import { s3Traffic, sdkClient, settle } from './helpers/passive-traffic.ts';

// Property observers (PropertyDef.observe) judge what a matcher cannot state: counts against items,
// cursors against the page that gave them, ranges against sizes, multipart ETags against the parts
// Complete sent, conditionals against the ETag answered; and the deprecation schedule is judged at
// today's date by the checks its cases make (sameAs). Real clients (the AWS SDK, the official
// cloudflare client) make the traffic; the proxy judges it on its way to the reference.

const asOf = today();
let suites: LoadedSuites;

/** The clauses this traffic lets observers judge, fault-free. */
const OBSERVED = [
  'mgmt.result-info.count',
  'mgmt.result-info.totals',
  'mgmt.pagination.order',
  'mgmt.pagination.past-end',
  's3.list.prefix',
  's3.list.delimiter',
  's3.list.start-after',
  's3.list.max-keys',
  's3.list.pagination',
  's3.list.key-count',
  's3.list.next-marker',
  's3.list.continuation-echo',
  's3.list.encoding-type',
  's3.get.range-206',
  's3.get.range-inclusive',
  's3.get.content-range-partial-only',
  's3.get.range-forms',
  's3.cond.etag-list',
  's3.cond.weak-etag',
  's3.cond.wildcard',
  's3.mpu.etag-format',
  'dep.waf-packages.retired',
  'dep.rate-limits.retired',
  'dep.brotli.retired',
  'dep.organizations.retired',
  'dep.dns-error-chain.direct',
  'mgmt.errors.error-chain',
];

/** The reference with `faults`, behind the proxy, driven by the AWS SDK and the cloudflare client. */
function observe(faults: string[] = []): Promise<RunResults> {
  return judgedInPassing({
    suites,
    asOf,
    faults,
    drive: async (proxy, ref) => {
      const c = ref.context.credentials;
      const s3 = sdkClient(proxy.urls.s3!, c);
      try {
        const Bucket = 'observed';
        await s3Traffic(s3, Bucket);

        // Management lists: DNS records by name in both directions over pages, a page past the end,
        // certificate packs one per page.
        const cf = new Cloudflare({
          apiToken: c.token,
          baseURL: `${proxy.urls.management}/client/v4`,
          maxRetries: 0,
        });
        const zone_id = ref.context.ids.zoneId;
        const zone = await cf.zones.get({ zone_id });
        for (let i = 0; i < 7; i++) {
          await cf.dns.records.create({
            zone_id,
            type: 'A',
            name: `obs-${i}.${zone.name}`,
            content: `192.0.2.${i + 10}`,
            ttl: 1,
          });
        }
        for (const direction of ['asc', 'desc'] as const) {
          for (const page of [1, 2])
            await cf.dns.records.list({ zone_id, per_page: 5, page, order: 'name', direction });
        }
        await settle(cf.dns.records.list({ zone_id, per_page: 5, page: 1 }));
        await settle(cf.dns.records.list({ zone_id, per_page: 5, page: 40 }));
        await settle(
          cf.get(`/zones/${zone_id}/ssl/certificate_packs`, { query: { status: 'all', per_page: 1 } }),
        );

        // The deprecation schedule: endpoints retired before today, and a DNS record SPEC finds invalid
        // (SRV data as a string, where data is an object).
        for (const retired of [
          `/zones/${zone_id}/firewall/waf/packages`,
          `/zones/${zone_id}/rate_limits`,
          `/zones/${zone_id}/settings/brotli`,
          `/organizations/${ref.context.ids.accountId}`,
        ]) {
          await settle(cf.get(retired));
        }
        const srv = {
          zone_id,
          type: 'SRV',
          name: `_sip._tcp.obs.${zone.name}`,
          ttl: 300,
          data: '10 5 5060 sip.example.com',
        };
        await settle(cf.dns.records.create(srv as unknown as Parameters<typeof cf.dns.records.create>[0]));
        // A body that is not JSON, on the same route: a refusal that is no DNS validation error, whose
        // error_chain (the reference wraps the parse failure) is the error object's, not the 2024-10-01 row's.
        await fetch(`${proxy.urls.management}/client/v4/zones/${zone_id}/dns_records`, {
          method: 'POST',
          headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
          body: '{"type":',
        }).then((res) => res.arrayBuffer());
      } finally {
        s3.destroy();
      }
    },
  });
}

const verdicts = clauseVerdicts;
const failing = failingClauses;

describe('property observers judge relations in traffic that no single matcher states', () => {
  beforeAll(async () => {
    const areas = listAreas();
    suites = await loadSuites(areas, areas);
  });

  it('fault-free: every clause the traffic lets observers judge passes, and none fails', async () => {
    const results = await observe();
    expect(failing(results)).toEqual([]);
    const v = verdicts(results);
    for (const id of OBSERVED) expect(v[id], id).toBe('pass');
  }, 60_000);

  for (const [fault, clause] of [
    ['certpacks-count-is-total', 'mgmt.result-info.count'],
    ['total-pages-floor', 'mgmt.result-info.totals'],
    ['ignore-direction', 'mgmt.pagination.order'],
    ['past-end-last-page', 'mgmt.pagination.past-end'],
    ['error-past-last-page', 'mgmt.pagination.past-end'],
    ['s3-list-prefix-ignored', 's3.list.prefix'],
    ['s3-list-v1-prefix-ignored', 's3.list.prefix'],
    ['s3-list-delimiter-ignored', 's3.list.delimiter'],
    ['s3-list-start-after-inclusive', 's3.list.start-after'],
    ['s3-list-max-keys-ignored', 's3.list.max-keys'],
    ['s3-list-pagination-repeats-last', 's3.list.pagination'],
    ['s3-list-utf16-order', 's3.list.pagination'],
    ['s3-list-cursor-prefix-repeated', 's3.list.pagination'],
    ['s3-list-keycount-without-prefixes', 's3.list.key-count'],
    ['s3-list-next-marker-always', 's3.list.next-marker'],
    ['s3-list-continuation-not-echoed', 's3.list.continuation-echo'],
    ['s3-list-encoding-ignored', 's3.list.encoding-type'],
    ['s3-list-next-marker-unencoded', 's3.list.encoding-type'],
    ['s3-list-start-after-echo-unencoded', 's3.list.encoding-type'],
    ['s3-list-prefix-echo-unencoded', 's3.list.encoding-type'],
    ['s3-list-delimiter-echo-unencoded', 's3.list.encoding-type'],
    ['s3-list-marker-echo-unencoded', 's3.list.encoding-type'],
    ['s3-range-status-200', 's3.get.range-206'],
    ['s3-range-off-by-one', 's3.get.range-inclusive'],
    ['s3-range-unsatisfiable-200', 's3.get.range-unsatisfiable'],
    ['s3-content-range-on-ignored-range', 's3.get.content-range-partial-only'],
    ['s3-cond-etag-list-first-only', 's3.cond.etag-list'],
    ['s3-cond-weak-etag-unmatched', 's3.cond.weak-etag'],
    ['s3-cond-wildcard-ignored', 's3.cond.wildcard'],
    ['s3-multipart-etag-parts-unsorted', 's3.mpu.etag-format'],
    ['serve-retired-waf-packages', 'dep.waf-packages.retired'],
    ['retired-server-error', 'dep.brotli.retired'],
    ['keep-error-chain', 'dep.dns-error-chain.direct'],
    ['root-cause-wrapper-code', 'dep.dns-error-chain.direct'],
    ['error-chain-code-string', 'mgmt.errors.error-chain'],
  ] as const) {
    it(`with the fault ${fault}, ${clause} fails, and nothing outside the fault's clauses`, async () => {
      expectFailsInPassing(await observe([fault]), fault, clause);
    }, 60_000);
  }
});
