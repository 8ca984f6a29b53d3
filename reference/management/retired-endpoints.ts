import { badRequest } from './api-error.ts';
import { type LegacyRoute, registerLegacy } from './legacy-collections.ts';
import type { Retirement } from './retirement.ts';
import type { ApiRequest, Router } from './router.ts';
import { EOL } from './schedule.ts';
import type { Json } from './store.ts';

const Z = '/zones/:zone_id';
const A = '/accounts/:account_id';
const ORG = '/organizations/:organization_id';

const one = (fields: Json) => () => [fields];
const WAF_PACKAGE = 'a25a9a7e9c00afc1fb2e0245519d725b';

/** SPEC Versioning: the retired endpoints, by subject, with the routes each one covers. */
export const RETIRED_ENDPOINTS: { retirement: Retirement; routes: LegacyRoute[] }[] = [
  {
    retirement: { subject: 'firewall-rules', eol: EOL.firewallRules, replacement: 'WAF custom rules' },
    routes: [
      {
        pattern: `${Z}/firewall/rules`,
        methods: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'],
        shape: 'collection',
      },
      { pattern: `${Z}/firewall/rules/:rule_id`, methods: ['GET', 'PATCH', 'PUT', 'DELETE'], shape: 'item' },
      { pattern: `${Z}/filters`, methods: ['GET', 'POST', 'PUT', 'DELETE'], shape: 'collection' },
      { pattern: `${Z}/filters/:filter_id`, methods: ['GET', 'PUT', 'DELETE'], shape: 'item' },
    ],
  },
  {
    retirement: {
      subject: 'waf-packages',
      eol: EOL.wafPackages,
      replacement: 'the new WAF managed rules',
    },
    routes: [
      {
        pattern: `${Z}/firewall/waf/packages`,
        methods: ['GET'],
        shape: 'collection',
        seed: () => [
          {
            id: WAF_PACKAGE,
            name: 'OWASP ModSecurity Core Rule Set',
            detection_mode: 'anomaly',
            sensitivity: 'high',
            action_mode: 'challenge',
          },
        ],
      },
      { pattern: `${Z}/firewall/waf/packages/:package_id`, methods: ['GET', 'PATCH'], shape: 'item' },
      {
        pattern: `${Z}/firewall/waf/packages/:package_id/groups`,
        methods: ['GET'],
        shape: 'collection',
        seed: (p) => [
          {
            id: 'de677e5818985db1285d0e80225f06e5',
            name: 'Project Honey Pot',
            mode: 'on',
            package_id: p.package_id,
          },
        ],
      },
      {
        pattern: `${Z}/firewall/waf/packages/:package_id/groups/:group_id`,
        methods: ['GET', 'PATCH'],
        shape: 'item',
      },
      {
        pattern: `${Z}/firewall/waf/packages/:package_id/rules`,
        methods: ['GET'],
        shape: 'collection',
        seed: (p) => [
          {
            id: 'f939de3be84e66e757adcdcb87908023',
            description: 'SQL injection',
            mode: 'on',
            package_id: p.package_id,
          },
        ],
      },
      {
        pattern: `${Z}/firewall/waf/packages/:package_id/rules/:rule_id`,
        methods: ['GET', 'PATCH'],
        shape: 'item',
      },
      { pattern: `${Z}/firewall/waf/overrides`, methods: ['GET', 'POST'], shape: 'collection' },
      {
        pattern: `${Z}/firewall/waf/overrides/:override_id`,
        methods: ['GET', 'PUT', 'DELETE'],
        shape: 'item',
      },
    ],
  },
  {
    retirement: {
      subject: 'rate-limits',
      eol: EOL.rateLimits,
      replacement: 'rate limiting rules based on rulesets',
    },
    routes: [
      { pattern: `${Z}/rate_limits`, methods: ['GET', 'POST'], shape: 'collection' },
      { pattern: `${Z}/rate_limits/:rate_limit_id`, methods: ['GET', 'PUT', 'DELETE'], shape: 'item' },
    ],
  },
  {
    retirement: {
      subject: 'tunnels-old',
      eol: EOL.oldTunnels,
      replacement: 'the tunnels API (/accounts/{account_id}/cfd_tunnel)',
    },
    routes: [
      { pattern: `${A}/tunnels`, methods: ['GET', 'POST'], shape: 'collection' },
      { pattern: `${A}/tunnels/:tunnel_id`, methods: ['GET', 'DELETE'], shape: 'item' },
    ],
  },
  {
    retirement: { subject: 'billing', eol: EOL.billing, replacement: '' },
    routes: [
      {
        pattern: `${A}/billing/profile`,
        methods: ['GET'],
        shape: 'singleton',
        seed: one({ id: 'billing-profile', currency: 'USD' }),
      },
      {
        pattern: '/user/billing/profile',
        methods: ['GET'],
        shape: 'singleton',
        seed: one({ id: 'billing-profile', currency: 'USD' }),
      },
      {
        pattern: '/user/billing/history',
        methods: ['GET'],
        shape: 'collection',
        seed: one({
          id: 'b69a9f3492637782896352daae219e7d',
          type: 'charge',
          amount: 20.99,
          currency: 'USD',
          created_on: '2020-01-01T00:00:00Z',
        }),
      },
    ],
  },
  {
    retirement: {
      subject: 'access-bookmarks',
      eol: EOL.accessBookmarks,
      replacement: 'access applications with an app type',
    },
    routes: [
      { pattern: `${A}/access/bookmarks`, methods: ['GET'], shape: 'collection' },
      { pattern: `${A}/access/bookmarks/:uuid`, methods: ['GET', 'POST', 'PUT', 'DELETE'], shape: 'item' },
    ],
  },
  {
    retirement: {
      subject: 'script-monitor',
      eol: EOL.scriptMonitor,
      replacement: 'page_shield in the route',
    },
    routes: pageShieldRoutes('script_monitor'),
  },
  {
    retirement: {
      subject: 'direct-upload-v1',
      eol: EOL.directUploadV1,
      replacement: 'POST /accounts/{account_id}/images/v2/direct_upload',
    },
    routes: [
      {
        pattern: `${A}/images/v1/direct_upload`,
        methods: ['POST'],
        shape: 'action',
        seed: one({ uploadURL: 'https://upload.example.com/v1' }),
      },
    ],
  },
  {
    retirement: {
      subject: 'zone-analytics',
      eol: EOL.zoneAnalytics,
      replacement: 'the GraphQL analytics API',
    },
    routes: [
      {
        pattern: `${Z}/analytics/dashboard`,
        methods: ['GET'],
        shape: 'singleton',
        seed: one({ totals: { requests: { all: 0 } }, timeseries: [] }),
      },
      { pattern: `${Z}/analytics/colos`, methods: ['GET'], shape: 'collection' },
    ],
  },
  {
    retirement: { subject: 'organizations', eol: EOL.organizations, replacement: 'the accounts API' },
    routes: [
      {
        pattern: ORG,
        methods: ['GET', 'PATCH'],
        shape: 'singleton',
        seed: (p) => [{ id: p.organization_id, name: 'Example Organization' }],
      },
      { pattern: `${ORG}/invites`, methods: ['GET', 'POST'], shape: 'collection' },
      { pattern: `${ORG}/invites/:invite_id`, methods: ['GET', 'PATCH', 'DELETE'], shape: 'item' },
      {
        pattern: `${ORG}/members`,
        methods: ['GET'],
        shape: 'collection',
        seed: one({ id: '4536bcfad5faccb111b47003c79917fa', status: 'accepted' }),
      },
      { pattern: `${ORG}/members/:member_id`, methods: ['GET', 'PATCH', 'DELETE'], shape: 'item' },
      {
        pattern: `${ORG}/roles`,
        methods: ['GET'],
        shape: 'collection',
        seed: one({ id: '3536bcfad5faccb999b47003c79917fb', name: 'Administrator' }),
      },
      { pattern: `${ORG}/roles/:role_id`, methods: ['GET'], shape: 'item' },
      { pattern: `${ORG}/audit_logs`, methods: ['GET'], shape: 'collection' },
      { pattern: `${ORG}/railguns`, methods: ['GET', 'POST'], shape: 'collection' },
      { pattern: `${ORG}/railguns/:railgun_id`, methods: ['GET', 'PATCH', 'DELETE'], shape: 'item' },
      { pattern: `${ORG}/railguns/:railgun_id/zones`, methods: ['GET'], shape: 'collection' },
    ],
  },
];

function pageShieldRoutes(segment: string): LegacyRoute[] {
  return [
    {
      pattern: `${Z}/${segment}`,
      methods: ['GET', 'PUT'],
      shape: 'singleton',
      seed: one({ enabled: true, use_cloudflare_reporting_endpoint: true }),
    },
    {
      pattern: `${Z}/${segment}/scripts`,
      methods: ['GET'],
      shape: 'collection',
      seed: one({
        id: 'c9ef84a6bf5e47138c75d95e2f933e8f',
        url: 'https://example.com/app.js',
        host: 'example.com',
        added_at: '2020-01-01T00:00:00Z',
        first_seen_at: '2020-01-01T00:00:00Z',
        last_seen_at: '2020-01-02T00:00:00Z',
        url_contains_cdn_cgi_path: false,
      }),
    },
    { pattern: `${Z}/${segment}/scripts/:script_id`, methods: ['GET'], shape: 'item' },
    { pattern: `${Z}/${segment}/connections`, methods: ['GET'], shape: 'collection' },
  ];
}

/** Scripts listed without the times they were first and last seen, as a lighter listing would answer them. */
function pageShieldScriptFault(req: ApiRequest, result: unknown): unknown {
  if (!req.path.endsWith('/page_shield/scripts') || !Array.isArray(result)) return result;
  if (!req.ctx.faults.has('page-shield-scripts-without-seen-times')) return result;
  return result.map((s) => {
    const { first_seen_at: _f, last_seen_at: _l, ...rest } = s as Record<string, unknown>;
    return rest;
  });
}

/** A v2 direct upload that takes only what v1 took: the metadata v2 adds is refused. */
function directUploadV2Fault(req: ApiRequest, result: unknown): unknown {
  const body = req.body as Json | undefined;
  if (body?.metadata !== undefined && req.ctx.faults.has('direct-upload-v2-rejects-metadata'))
    throw badRequest('metadata is not a field of a direct upload');
  return result;
}

/** The replacements that share a shape with what they replace. */
const REPLACEMENTS: LegacyRoute[][] = [
  pageShieldRoutes('page_shield'),
  [
    {
      pattern: `${A}/images/v2/direct_upload`,
      methods: ['POST'],
      shape: 'action',
      seed: one({ uploadURL: 'https://upload.example.com/v2' }),
    },
  ],
];

/** Every group of legacy routes the server registers (reference/snapshot.ts reads their seeds). */
export const LEGACY_ROUTE_GROUPS: LegacyRoute[][] = [
  ...RETIRED_ENDPOINTS.map((r) => r.routes),
  ...REPLACEMENTS,
];

export function registerRetiredEndpoints(router: Router): void {
  for (const { retirement, routes } of RETIRED_ENDPOINTS) registerLegacy(router, retirement, routes);
  registerLegacy(router, undefined, REPLACEMENTS[0], 'no-page-shield-route', pageShieldScriptFault);
  registerLegacy(router, undefined, REPLACEMENTS[1], 'no-direct-upload-v2', directUploadV2Fault);
}
