import { badRequest, methodNotAllowed, notFound } from './api-error.ts';
import { nowIso } from './ids.ts';
import { type ListSpec, paginate } from './pagination.ts';
import { guardRetired, type Retirement } from './retirement.ts';
import type { ApiRequest, Router } from './router.ts';
import { EOL, since } from './schedule.ts';
import { objectBody, requireZone } from './scope.ts';
import type { State } from './store.ts';

interface SettingDef {
  initial: unknown;
  /** Returns an error message when the value is not acceptable. */
  check: (value: unknown, req: ApiRequest) => string | undefined;
  retired?: Retirement;
  /** Methods that write the setting (PATCH, or POST for privacy_pass). */
  writeMethods?: string[];
}

const LIST: ListSpec<{ id: string }> = {
  orderBy: { id: (s) => s.id },
  defaultOrder: 'id',
  defaultPerPage: 100,
  maxPerPage: 1000,
};
const SECURITY_LEVELS = ['off', 'essentially_off', 'low', 'medium', 'high', 'under_attack'];
const onOff = (v: unknown) => (v === 'on' || v === 'off' ? undefined : "value must be 'on' or 'off'");
const oneOf = (values: string[]) => (v: unknown) =>
  typeof v === 'string' && values.includes(v) ? undefined : `value must be one of ${values.join(', ')}`;
const objectOf = (keys: string[]) => (v: unknown) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).every((k) => keys.includes(k))
    ? undefined
    : `value must be an object with keys among ${keys.join(', ')}`;

/** SPEC Errors 3: from 2024-09-30 only off and under_attack are accepted. */
function checkSecurityLevel(value: unknown, req: ApiRequest): string | undefined {
  const basic = oneOf(SECURITY_LEVELS)(value);
  if (basic) return basic;
  const { faults } = req.ctx;
  // A value list that lacks essentially_off, whatever the date.
  if (value === 'essentially_off' && faults.has('no-essentially-off'))
    return 'value must be one of off, low, medium, high, under_attack';
  if (value === 'off' && faults.has('reject-security-level-off')) return "'off' is not available";
  const restricted = since(req.ctx, EOL.securityLevel) || faults.has('restrict-security-level-early');
  if (restricted && value === 'under_attack' && faults.has('reject-under-attack'))
    return "'under_attack' is not available";
  if (restricted && value !== 'off' && value !== 'under_attack') {
    if (req.ctx.faults.has('accept-security-level-high')) return undefined;
    // A deny list of the one value the announcement used as its example.
    if (req.ctx.faults.has('restrict-medium-only') && value !== 'medium') return undefined;
    return `security_level '${String(value)}' is no longer available; use 'off' or 'under_attack'`;
  }
  return undefined;
}

const SETTINGS: Record<string, SettingDef> = {
  security_level: { initial: 'medium', check: checkSecurityLevel },
  ssl: { initial: 'full', check: oneOf(['off', 'flexible', 'full', 'strict']) },
  always_use_https: { initial: 'off', check: onOff },
  min_tls_version: { initial: '1.2', check: oneOf(['1.0', '1.1', '1.2', '1.3']) },
  ipv6: { initial: 'on', check: onOff },
  development_mode: { initial: 'off', check: onOff },
  brotli: {
    initial: 'on',
    check: onOff,
    retired: { subject: 'brotli', eol: EOL.brotli, replacement: 'compression rules' },
  },
  minify: {
    initial: { css: 'off', html: 'off', js: 'off' },
    check: objectOf(['css', 'html', 'js']),
    retired: { subject: 'minify', eol: EOL.minify, replacement: '' },
  },
  mobile_redirect: {
    initial: { status: 'off', mobile_subdomain: null, strip_uri: false },
    check: objectOf(['status', 'mobile_subdomain', 'strip_uri']),
    retired: { subject: 'mobile-redirect', eol: EOL.mobileRedirect, replacement: 'single redirects' },
  },
  server_side_exclude: {
    initial: 'on',
    check: onOff,
    retired: { subject: 'server-side-exclude', eol: EOL.serverSideExclude, replacement: '' },
  },
  privacy_pass: {
    initial: 'on',
    check: onOff,
    retired: { subject: 'privacy-pass', eol: EOL.privacyPass, replacement: '' },
    writeMethods: ['POST'],
  },
};

/** The value of every zone setting, stored or initial (reference/snapshot.ts). */
export function zoneSettingValues(state: State): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(SETTINGS).map(([id, def]) => {
      const stored = state.zoneSettings.get(id);
      return [id, stored ? stored.value : def.initial];
    }),
  );
}

export const RETIRED_SETTINGS = Object.values(SETTINGS).flatMap((s) => (s.retired ? [s.retired] : []));

function read(req: ApiRequest, id: string) {
  const stored = req.state.zoneSettings.get(id);
  return {
    id,
    value: stored ? stored.value : SETTINGS[id].initial,
    editable: true,
    modified_on: stored?.modified_on ?? null,
  };
}

export function registerZoneSettings(router: Router): void {
  router.on('GET', '/zones/:zone_id/settings', (req) => {
    requireZone(req);
    const live = Object.entries(SETTINGS).filter(
      ([, def]) => !def.retired || !since(req.ctx, def.retired.eol),
    );
    const page = paginate(
      req.ctx,
      live.map(([id]) => read(req, id)),
      req.query,
      LIST,
    );
    return { result: page.items, resultInfo: page.info };
  });

  for (const [id, def] of Object.entries(SETTINGS)) {
    const path = `/zones/:zone_id/settings/${id}`;
    router.on('GET', path, (req) => {
      requireZone(req);
      if (def.retired) guardRetired(req.ctx, def.retired);
      const current = read(req, id);
      // Under a fault, a GET answers the value the last PATCH replaced, as a stale cache in front would.
      const stored = req.state.zoneSettings.get(id);
      if (
        stored &&
        'previous' in stored &&
        stored.previous !== stored.value &&
        req.ctx.faults.has('settings-read-stale')
      )
        return { result: { ...current, value: stored.previous } };
      return { result: current };
    });
    router.on(def.writeMethods ?? ['PATCH'], path, (req) => {
      requireZone(req);
      if (def.retired) guardRetired(req.ctx, def.retired);
      const body = objectBody(req);
      if (!('value' in body)) throw badRequest(`body must be {"value": ...} for setting ${id}`);
      const problem = def.check(body.value, req);
      if (problem) throw badRequest(problem.startsWith(id) ? problem : `${id}: ${problem}`);
      const previous = read(req, id).value;
      // Under a fault, a PATCH that changes the value answers it but keeps the old one.
      if (previous !== body.value && req.ctx.faults.has('settings-patch-not-stored'))
        return { result: { ...read(req, id), value: body.value } };
      req.state.zoneSettings.set(id, { value: body.value, modified_on: nowIso(), previous });
      return { result: read(req, id) };
    });
  }

  router.on(['GET', 'PATCH'], '/zones/:zone_id/settings/:setting_id', (req) => {
    requireZone(req);
    if (req.params.setting_id in SETTINGS) {
      throw methodNotAllowed(req.method);
    }
    throw notFound(`zone setting ${req.params.setting_id}`);
  });
}
