import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_IDS } from '../reference/context.ts';
import { type ManagementServer, startManagement } from './reference-management-harness.ts';

let srv: ManagementServer;
beforeAll(async () => {
  srv = await startManagement('2024-06-01');
});
afterAll(async () => {
  await srv.close();
});

const Z = `/zones/${REFERENCE_IDS.zoneId}`;
const A = `/accounts/${REFERENCE_IDS.accountId}`;

/** Real paths, near misses and nonsense, so that both routed and unrouted requests are exercised. */
const path = fc.oneof(
  fc.constantFrom(
    Z,
    `${Z}/dns_records`,
    `${Z}/dns_records/nope`,
    `${Z}/rulesets`,
    `${Z}/rulesets/phases/http_log_custom_fields/entrypoint`,
    `${A}/rulesets`,
    `${Z}/logpush/jobs`,
    `${Z}/ssl/certificate_packs`,
    `/user/invites/${REFERENCE_IDS.inviteId}`,
    `${Z}/settings/security_level`,
    `${Z}/settings/brotli`,
    `${Z}/dns_settings`,
    `${A}/r2/buckets/bucket-1/migration`,
    `${A}/r2/buckets/bucket-1/migration/validate`,
    `${Z}/firewall/rules`,
    '/organizations/x/railguns',
  ),
  fc
    .array(fc.constantFrom('zones', 'accounts', REFERENCE_IDS.zoneId, 'rulesets', 'rules', '%', '..', 'x'), {
      maxLength: 6,
    })
    .map((parts) => `/${parts.join('/')}`),
);

const body = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      type: fc.constantFrom('A', 'SRV', 'CAA', 'MX', 'bogus', 7),
      name: fc.oneof(fc.string(), fc.constant('_a._b')),
      content: fc.oneof(fc.string(), fc.constant('192.0.2.1')),
      data: fc.jsonValue({ maxDepth: 2 }),
      rules: fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
      ),
      kind: fc.constantFrom('zone', 'root', 'custom', 1),
      phase: fc.string(),
      value: fc.jsonValue({ maxDepth: 1 }),
      status: fc.constantFrom('accepted', 'rejected', 'x', null),
      source: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  ),
);

describe('the management API under arbitrary input', () => {
  it('always answers a JSON envelope below 500, and failures carry one-line errors', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
        path,
        body,
        fc.string({ maxLength: 12 }),
        async (method, p, b, query) => {
          const res = await srv.api(
            method,
            `${p}?${encodeURIComponent(query)}=${encodeURIComponent(query)}`,
            method === 'GET' ? undefined : b,
          );
          expect(res.status).toBeLessThan(500);
          expect(typeof res.body).toBe('object');
          expect(typeof res.body.success).toBe('boolean');
          expect(Array.isArray(res.body.errors)).toBe(true);
          expect(Array.isArray(res.body.messages)).toBe(true);
          if (!res.body.success) {
            expect(res.body.result).toBeNull();
            expect(res.body.errors.length).toBeGreaterThan(0);
            for (const e of res.body.errors) {
              expect(Number.isInteger(e.code)).toBe(true);
              expect(e.message).not.toMatch(/\n|\.ts:\d+/);
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
