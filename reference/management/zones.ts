import { type ListSpec, paginate } from './pagination.ts';
import type { ApiRequest, Router } from './router.ts';
import { requireZone } from './scope.ts';
import type { Json, Zone } from './store.ts';

const LIST: ListSpec<Zone> = {
  orderBy: { name: (z) => z.name, status: () => 'active' },
  defaultOrder: 'name',
  defaultPerPage: 20,
  maxPerPage: 50,
};

/** The zone as the real service renders it (SPEC leaves the fields open). */
function view(req: ApiRequest, zone: Zone): Json {
  const out: Json = {
    id: zone.id,
    name: zone.name,
    status: 'active',
    paused: false,
    type: 'full',
    development_mode: 0,
    name_servers: ['kristina.ns.example.net', 'lee.ns.example.net'],
    original_name_servers: null,
    original_registrar: null,
    original_dnshost: null,
    created_on: zone.createdOn,
    modified_on: zone.createdOn,
    activated_on: zone.createdOn,
    meta: { step: 2, custom_certificate_quota: 0, page_rule_quota: 3, phishing_detected: false },
    owner: { id: null, type: 'organization', email: null },
    account: { id: zone.accountId, name: 'Example Account' },
    permissions: ['#zone:read', '#zone:edit'],
    plan: {
      id: '0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
      name: 'Free Website',
      price: 0,
      currency: 'USD',
      is_subscribed: true,
    },
  };
  if (req.ctx.faults.has('zone-drop-name')) delete out.name;
  if (req.ctx.faults.has('zone-status-enabled')) out.status = 'enabled';
  if (req.ctx.faults.has('zone-id-mismatch')) out.id = zone.accountId;
  if (req.ctx.faults.has('zone-id-uppercase')) out.id = zone.id.toUpperCase();
  return out;
}

export function registerZones(router: Router): void {
  router.on('GET', '/zones', (req) => {
    const name = req.query.get('name');
    const zones = [req.state.zone].filter((z) => !name || z.name === name);
    const page = paginate(req.ctx, zones, req.query, LIST);
    return { result: page.items.map((z) => view(req, z)), resultInfo: page.info };
  });
  router.on('GET', '/zones/:zone_id', (req) => {
    const result = view(req, requireZone(req));
    // A notice about the zone put where errors go, or errors left unset, on a call that succeeded.
    if (req.ctx.faults.has('zone-notice-in-errors'))
      return { result, errors: [{ code: 1000, message: 'zone is on the free plan' }] };
    if (req.ctx.faults.has('zone-errors-null')) return { result, errors: null };
    return { result };
  });
}
