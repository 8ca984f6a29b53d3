import type { ReferenceContext } from '../context.ts';
import { ApiError, badRequest, CODES, noRoute, notFound } from './api-error.ts';
import { newId, nowIso } from './ids.ts';
import { type ListSpec, paginate } from './pagination.ts';
import type { ApiRequest, ApiResult, Router } from './router.ts';
import { buildRule, countCustomFields, LOG_FIELDS_PHASE, MAX_CUSTOM_FIELDS } from './rule-validation.ts';
import { type Rule, type Ruleset, rulesetResponse } from './ruleset-shape.ts';
import { objectBody, requireAccount, requireZone } from './scope.ts';
import type { State } from './store.ts';

type Scope = 'zones' | 'accounts';

const LIST: ListSpec<Ruleset> = {
  orderBy: {
    name: (r) => r.name,
    phase: (r) => r.phase,
    kind: (r) => r.kind,
    last_updated: (r) => r.last_updated,
  },
  defaultOrder: 'name',
  defaultPerPage: 50,
  maxPerPage: 1000,
};

/** The entry point kind of each scope: one per phase (SPEC Limits: zone rulesets per phase 1). */
const ENTRYPOINT_KIND: Record<Scope, string> = { zones: 'zone', accounts: 'root' };
const KINDS: Record<Scope, Set<string>> = {
  zones: new Set(['zone', 'custom', 'managed']),
  accounts: new Set(['root', 'custom', 'managed']),
};

function owner(req: ApiRequest, scope: Scope): string {
  if (scope === 'accounts' && req.ctx.faults.has('no-account-rulesets')) {
    throw noRoute();
  }
  return scope === 'zones' ? requireZone(req).id : requireAccount(req);
}

function owned(state: State, scope: Scope, ownerId: string): Ruleset[] {
  return [...state.rulesets.values()].filter((r) => r.scope === scope && r.ownerId === ownerId);
}

function find(req: ApiRequest, scope: Scope): Ruleset {
  const ownerId = owner(req, scope);
  const rs = req.state.rulesets.get(req.params.ruleset_id);
  if (!rs || rs.scope !== scope || rs.ownerId !== ownerId) throw notFound(`ruleset ${req.params.ruleset_id}`);
  return rs;
}

function entrypoint(state: State, scope: Scope, ownerId: string, phase: string): Ruleset | undefined {
  return owned(state, scope, ownerId).find((r) => r.kind === ENTRYPOINT_KIND[scope] && r.phase === phase);
}

function buildRules(ctx: ReferenceContext, phase: string, raw: unknown, replacing = false): Rule[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw badRequest('rules must be an array');
  return raw.map((r, i) => buildRule(ctx, phase, r, i, undefined, replacing));
}

/** SPEC Limits: 40 custom log fields per zone, counted over the zone's log field rulesets after the change. */
function checkFieldLimit(ctx: ReferenceContext, state: State, rs: Ruleset, rules: Rule[]): void {
  if (rs.phase !== LOG_FIELDS_PHASE || rs.scope !== 'zones') return;
  const others = owned(state, rs.scope, rs.ownerId).filter((r) => r !== rs && r.phase === LOG_FIELDS_PHASE);
  const total = countCustomFields(rules) + others.reduce((n, r) => n + countCustomFields(r.rules), 0);
  if (total > MAX_CUSTOM_FIELDS && !ctx.faults.has('no-custom-field-limit')) {
    throw badRequest(
      `a zone may log at most ${MAX_CUSTOM_FIELDS} custom fields, this change would make ${total}`,
    );
  }
}

/** Replaces the rules and moves the ruleset to a new version (SPEC: PUT replaces all rules). */
function commit(
  ctx: ReferenceContext,
  state: State,
  rs: Ruleset,
  rules: Rule[],
  replacing = false,
): ApiResult {
  checkFieldLimit(ctx, state, rs, rules);
  rs.rules = rules;
  if (!ctx.faults.has('static-ruleset-version') && !(replacing && ctx.faults.has('put-keeps-version')))
    rs.version = String(Number(rs.version) + 1);
  if (!ctx.faults.has('static-ruleset-last-updated'))
    // Under the fault the timestamp is written as a date only.
    rs.last_updated = ctx.faults.has('ruleset-last-updated-date-only') ? nowIso().slice(0, 10) : nowIso();
  return { result: rulesetResponse(ctx, rs) };
}

function create(req: ApiRequest, scope: Scope): ApiResult {
  const ownerId = owner(req, scope);
  const body = objectBody(req);
  for (const field of ['name', 'kind', 'phase'] as const) {
    if (typeof body[field] !== 'string' || body[field] === '')
      throw badRequest(`${field} is required (a string)`);
  }
  const kind = body.kind as string;
  const phase = body.phase as string;
  if (!KINDS[scope].has(kind))
    throw badRequest(`kind '${kind}' is not allowed here; use one of ${[...KINDS[scope]].join(', ')}`);
  if (body.description !== undefined && typeof body.description !== 'string') {
    throw badRequest('description must be a string');
  }
  const existing = kind === ENTRYPOINT_KIND[scope] ? entrypoint(req.state, scope, ownerId, phase) : undefined;
  if (
    existing &&
    !req.ctx.faults.has('allow-second-zone-ruleset') &&
    // Under the fault a second one is refused only when its name is taken too.
    !(existing.name !== body.name && req.ctx.faults.has('one-per-phase-by-name'))
  ) {
    throw ApiError.of(
      400,
      CODES.conflict,
      `a ${kind} ruleset for phase ${phase} already exists; update it instead of creating another`,
    );
  }
  const rules = buildRules(req.ctx, phase, body.rules);
  const rs: Ruleset = {
    id: newId(),
    // The name every entry point gets, given to created rulesets too.
    name: req.ctx.faults.has('ruleset-name-ignored') ? 'default' : (body.name as string),
    // Under the fault the description sent is dropped, as a field the creation does not read.
    description: req.ctx.faults.has('ruleset-description-dropped')
      ? ''
      : ((body.description as string | undefined) ?? ''),
    kind,
    phase,
    version: '1',
    last_updated: nowIso(),
    rules: [],
    scope,
    ownerId,
  };
  checkFieldLimit(req.ctx, req.state, rs, rules);
  rs.rules = rules;
  req.state.rulesets.set(rs.id, rs);
  return { result: rulesetResponse(req.ctx, rs) };
}

function replace(req: ApiRequest, rs: Ruleset, entry = false): ApiResult {
  const body = objectBody(req);
  if (!Array.isArray(body.rules))
    throw badRequest('rules is required: an array of rules (it replaces all rules)');
  const rules = buildRules(req.ctx, rs.phase, body.rules, true);
  if (typeof body.description === 'string') rs.description = body.description;
  if (typeof body.name === 'string' && body.name !== '') rs.name = body.name;
  // Under the faults a PUT adds the rules sent to those it has (any, or an entry point's), or
  // overwrites the old ones by position and keeps old rules past them.
  const appends =
    req.ctx.faults.has('put-appends-rules') ||
    (entry && rs.rules.length > 0 && req.ctx.faults.has('entrypoint-appends'));
  let next = appends ? [...rs.rules, ...rules] : rules;
  if (!appends && rules.length < rs.rules.length && req.ctx.faults.has('put-merges-by-position'))
    next = [...rules, ...rs.rules.slice(rules.length)];
  return commit(req.ctx, req.state, rs, next, true);
}

export function registerRulesets(router: Router): void {
  for (const scope of ['zones', 'accounts'] as const) {
    const base = scope === 'zones' ? '/zones/:zone_id/rulesets' : '/accounts/:account_id/rulesets';
    registerRulesetRoutes(router, scope, base);
    registerRuleRoutes(router, scope, base);
  }
}

/** A scope's rulesets: the phase entry points, the list, and each ruleset whole. */
function registerRulesetRoutes(router: Router, scope: Scope, base: string): void {
  router.on('GET', `${base}/phases/:phase/entrypoint`, (req) => {
    const rs = entrypoint(req.state, scope, owner(req, scope), req.params.phase);
    if (!rs) throw notFound(`entry point ruleset of phase ${req.params.phase}`);
    return { result: rulesetResponse(req.ctx, rs) };
  });

  router.on('PUT', `${base}/phases/:phase/entrypoint`, (req) => {
    const ownerId = owner(req, scope);
    if (req.ctx.faults.has('no-entrypoint'))
      throw notFound(`entry point ruleset of phase ${req.params.phase}`);
    const phase = req.params.phase;
    let rs = entrypoint(req.state, scope, ownerId, phase);
    if (!rs) {
      // The entry point is created on first use; it is stored only if the rules are valid.
      rs = {
        id: newId(),
        name: `default`,
        description: '',
        kind: ENTRYPOINT_KIND[scope],
        phase,
        version: '0',
        last_updated: nowIso(),
        rules: [],
        scope,
        ownerId,
      };
      const result = replace(req, rs, true);
      req.state.rulesets.set(rs.id, rs);
      return result;
    }
    return replace(req, rs, true);
  });

  router.on('GET', base, (req) => {
    const all = owned(req.state, scope, owner(req, scope));
    const page = paginate(req.ctx, all, req.query, LIST);
    const items = page.items.map((r) => rulesetResponse(req.ctx, r, false));
    if (req.ctx.faults.has('rulesets-list-without-phase')) for (const item of items) delete item.phase;
    if (req.ctx.faults.has('rulesets-list-without-kind')) for (const item of items) delete item.kind;
    return { result: items, resultInfo: page.info };
  });

  router.on('POST', base, (req) => create(req, scope));

  router.on('GET', `${base}/:ruleset_id`, (req) => ({
    result: rulesetResponse(req.ctx, find(req, scope)),
  }));

  router.on('PUT', `${base}/:ruleset_id`, (req) => replace(req, find(req, scope)));

  router.on('DELETE', `${base}/:ruleset_id`, (req) => {
    const rs = find(req, scope);
    req.state.rulesets.delete(rs.id);
    return { status: 204, result: null };
  });
}

/** The rules of a scope's ruleset, one at a time: added, patched, deleted. */
function registerRuleRoutes(router: Router, scope: Scope, base: string): void {
  router.on('POST', `${base}/:ruleset_id/rules`, (req) => {
    const rs = find(req, scope);
    const rule = buildRule(req.ctx, rs.phase, objectBody(req), rs.rules.length);
    // The new rule put first, or written twice (once before and once after the checks).
    const rules = req.ctx.faults.has('rule-create-prepends')
      ? [rule, ...rs.rules]
      : req.ctx.faults.has('rule-create-twice')
        ? [...rs.rules, rule, { ...rule }]
        : [...rs.rules, rule];
    return commit(req.ctx, req.state, rs, rules);
  });

  router.on('PATCH', `${base}/:ruleset_id/rules/:rule_id`, (req) => {
    const rs = find(req, scope);
    const index = rs.rules.findIndex((r) => r.id === req.params.rule_id);
    if (index < 0) throw notFound(`rule ${req.params.rule_id}`);
    const body = objectBody(req);
    // Under the fault PATCH applies enabled but keeps the old description.
    let sent = req.ctx.faults.has('rule-patch-keeps-description')
      ? { ...body, description: rs.rules[index].description }
      : body;
    // Under the fault PATCH applies every field but enabled, which keeps its old value.
    if (req.ctx.faults.has('patch-ignores-enabled')) sent = { ...sent, enabled: rs.rules[index].enabled };
    const rule = buildRule(req.ctx, rs.phase, sent, index, rs.rules[index]);
    const rules = [...rs.rules];
    if (!req.ctx.faults.has('rule-patch-ignored')) rules[index] = rule;
    return commit(req.ctx, req.state, rs, rules);
  });

  router.on('DELETE', `${base}/:ruleset_id/rules/:rule_id`, (req) => {
    const rs = find(req, scope);
    if (!rs.rules.some((r) => r.id === req.params.rule_id)) throw notFound(`rule ${req.params.rule_id}`);
    return commit(
      req.ctx,
      req.state,
      rs,
      rs.rules.filter((r) => r.id !== req.params.rule_id),
    );
  });
}
