import { badRequest } from './api-error.ts';
import { guardRetired, type Retirement } from './retirement.ts';
import type { ApiRequest, Router } from './router.ts';
import { EOL } from './schedule.ts';
import { objectBody, requireZone } from './scope.ts';
import type { Json } from './store.ts';

const BOOLEAN_FIELDS = ['flatten_all_cnames', 'foundation_dns', 'multi_provider', 'secondary_overrides'];
export const DNS_SETTINGS_RETIREMENT: Retirement = {
  subject: 'dns-settings-legacy',
  eol: EOL.legacyDnsSettings,
  replacement: 'the multi_provider and secondary_overrides fields of /zones/{zone_id}/dns_settings',
};

/** The two legacy endpoints and the DNS settings field each one became. */
const LEGACY_ENDPOINTS: Record<string, string> = {
  use_apex_ns: 'multi_provider',
  secondary_overrides: 'secondary_overrides',
};

function view(req: ApiRequest): Json {
  const out = structuredClone(req.state.dnsSettings);
  if (req.ctx.faults.has('dns-settings-string-booleans')) {
    out.multi_provider = String(out.multi_provider);
    out.secondary_overrides = String(out.secondary_overrides);
  }
  if (req.ctx.faults.has('dns-settings-numeric-booleans')) {
    out.multi_provider = out.multi_provider ? 1 : 0;
    out.secondary_overrides = out.secondary_overrides ? 1 : 0;
  }
  // The field named after the endpoint it replaced.
  if (req.ctx.faults.has('dns-settings-use-apex-ns')) {
    out.use_apex_ns = out.multi_provider;
    delete out.multi_provider;
  }
  // Flags that are off left out, as unset.
  if (req.ctx.faults.has('dns-settings-omit-false'))
    for (const f of ['multi_provider', 'secondary_overrides']) if (out[f] === false) delete out[f];
  return out;
}

export function registerDnsSettings(router: Router): void {
  router.on('GET', '/zones/:zone_id/dns_settings', (req) => {
    requireZone(req);
    return { result: view(req) };
  });

  router.on('PATCH', '/zones/:zone_id/dns_settings', (req) => {
    requireZone(req);
    const body = objectBody(req);
    const changes: Record<string, unknown> = {};
    for (const field of BOOLEAN_FIELDS) {
      if (body[field] === undefined) continue;
      if (typeof body[field] !== 'boolean') throw badRequest(`${field} must be a boolean`);
      changes[field] = body[field];
    }
    if (body.ns_ttl !== undefined) {
      const ttl = body.ns_ttl;
      if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 30 || ttl > 86400) {
        throw badRequest('ns_ttl must be an integer between 30 and 86400');
      }
      changes.ns_ttl = ttl;
    }
    if (body.zone_mode !== undefined) {
      if (!['standard', 'cdn_only', 'dns_only'].includes(String(body.zone_mode))) {
        throw badRequest('zone_mode must be one of standard, cdn_only, dns_only');
      }
      changes.zone_mode = body.zone_mode;
    }
    // A server that took over the use_apex_ns endpoint's field but not the secondary_overrides one.
    if (req.ctx.faults.has('ignore-secondary-overrides')) delete changes.secondary_overrides;
    if (req.ctx.faults.has('ignore-dns-settings-fields')) {
      delete changes.multi_provider;
      delete changes.secondary_overrides;
    }
    Object.assign(req.state.dnsSettings, changes);
    return { result: view(req) };
  });

  for (const [endpoint, field] of Object.entries(LEGACY_ENDPOINTS)) {
    const path = `/zones/:zone_id/dns_settings/${endpoint}`;
    router.on('GET', path, (req) => {
      requireZone(req);
      guardRetired(req.ctx, DNS_SETTINGS_RETIREMENT);
      return { result: { id: endpoint, value: req.state.dnsSettings[field] } };
    });
    router.on('PATCH', path, (req) => {
      requireZone(req);
      guardRetired(req.ctx, DNS_SETTINGS_RETIREMENT);
      const value = objectBody(req).value;
      if (typeof value !== 'boolean') throw badRequest(`body must be {"value": true|false} for ${endpoint}`);
      req.state.dnsSettings[field] = value;
      return { result: { id: endpoint, value } };
    });
  }
}
