import type { ReferenceContext } from '../context.ts';
import { badRequest } from './api-error.ts';
import { newId, nowIso } from './ids.ts';
import type { Rule } from './ruleset-shape.ts';
import { EOL, since } from './schedule.ts';
import type { Json } from './store.ts';

export const LOG_FIELDS_PHASE = 'http_log_custom_fields';
export const MAX_CUSTOM_FIELDS = 40;
const FIELD_ARRAYS = ['request_fields', 'response_fields', 'cookie_fields'] as const;
const ALLOWED_SECURITY_LEVELS = new Set(['off', 'under_attack']);

/**
 * Builds a rule from a client body; `previous` is the rule a PATCH or PUT starts from, and
 * `replacing` says the rule comes in a PUT that replaces all rules of its ruleset.
 */
export function buildRule(
  ctx: ReferenceContext,
  phase: string,
  raw: unknown,
  index: number,
  previous?: Rule,
  replacing = false,
): Rule {
  const where = `rules[${index}]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw badRequest(`${where} must be an object`);
  const body = { ...(previous ?? {}), ...(raw as Json) } as Json;
  if (typeof body.action !== 'string' || body.action === '') throw badRequest(`${where}.action is required`);
  if (typeof body.expression !== 'string' || body.expression.trim() === '') {
    throw badRequest(`${where}.expression is required`);
  }
  if (body.enabled !== undefined && typeof body.enabled !== 'boolean') {
    throw badRequest(`${where}.enabled must be a boolean`);
  }
  const params = body.action_parameters;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    throw badRequest(`${where}.action_parameters must be an object`);
  }
  // Under the faults a PATCH of one rule (a previous rule) skips the checks that creation makes.
  checkSecurityRestrictions(ctx, where, body.expression, params as Json | undefined, previous !== undefined);
  if (phase === LOG_FIELDS_PHASE || body.action === 'log_custom_field') {
    // Under the fault the expression is checked when the ruleset is created, not when PUT replaces its rules.
    checkLogCustomField(
      ctx,
      where,
      phase,
      body.action,
      body.expression,
      params as Json | undefined,
      replacing,
    );
  }
  const id = previous?.id ?? newId();
  const early = !since(ctx, EOL.securityLevel);
  let expression: string = body.expression;
  // Before the date, the threat score condition silently removed from the expression kept.
  if (early && /\bcf\.threat_score\b/.test(expression) && ctx.faults.has('strip-threat-score-early'))
    expression = expression.replace(/\(cf\.threat_score[^)]*\)\s*and\s*/g, '');
  const rule: Rule = {
    id,
    version: previous ? String(Number(previous.version) + 1) : '1',
    action: body.action,
    expression,
    description: typeof body.description === 'string' ? body.description : '',
    last_updated: nowIso(),
    ref: typeof body.ref === 'string' && body.ref !== '' ? body.ref : id,
    enabled:
      body.enabled === undefined ||
      ctx.faults.has('ignore-rule-enabled') ||
      // Under the fault only PATCH of one rule reads enabled; rules in a PUT are all enabled.
      (!previous && ctx.faults.has('ignore-enabled-in-bulk'))
        ? true
        : (body.enabled as boolean),
  };
  if (params !== undefined) rule.action_parameters = structuredClone(params as Json);
  // Before the date, a security level in the parameters silently dropped.
  if (
    early &&
    rule.action_parameters?.security_level !== undefined &&
    ctx.faults.has('drop-rule-security-level-early')
  )
    delete rule.action_parameters.security_level;
  if (body.logging !== undefined) rule.logging = body.logging as Json;
  return rule;
}

/** SPEC Errors 3: from 2024-09-30 rules may set security level only to off/under_attack and not use threat score. */
function checkSecurityRestrictions(
  ctx: ReferenceContext,
  where: string,
  expression: string,
  params: Json | undefined,
  /** A PATCH of one rule, which faults let skip these checks. */
  patching: boolean,
): void {
  if (!since(ctx, EOL.securityLevel) && !ctx.faults.has('restrict-security-level-early')) return;
  if (
    /\bcf\.threat_score\b/.test(expression) &&
    !ctx.faults.has('accept-threat-score-expression') &&
    !(patching && ctx.faults.has('accept-threat-score-on-patch'))
  ) {
    throw badRequest(`${where}.expression: the field cf.threat_score is no longer supported`);
  }
  const level = params?.security_level;
  if (
    level !== undefined &&
    !ALLOWED_SECURITY_LEVELS.has(String(level)) &&
    !ctx.faults.has('accept-rule-security-level') &&
    !(patching && ctx.faults.has('accept-rule-security-level-on-patch'))
  ) {
    throw badRequest(`${where}.action_parameters.security_level: only 'off' and 'under_attack' are accepted`);
  }
}

/** SPEC: action_parameters of a log_custom_field rule, and the custom log fields procedure rules. */
function checkLogCustomField(
  ctx: ReferenceContext,
  where: string,
  phase: string,
  action: string,
  expression: string,
  params: Json | undefined,
  /** PUT replacing the ruleset's rules, where a fault leaves the expression unchecked. */
  replacing: boolean,
): void {
  if (phase === LOG_FIELDS_PHASE && action !== 'log_custom_field') {
    throw badRequest(`${where}.action must be 'log_custom_field' in phase ${LOG_FIELDS_PHASE}`);
  }
  if (
    expression.trim() !== 'true' &&
    !ctx.faults.has('accept-custom-field-expression') &&
    !(replacing && ctx.faults.has('lcf-expression-checked-on-create-only'))
  ) {
    throw badRequest(`${where}.expression must be 'true' for log_custom_field rules`);
  }
  const present = FIELD_ARRAYS.filter((k) => params?.[k] !== undefined);
  if (
    present.length === 0 &&
    !ctx.faults.has('accept-empty-custom-fields') &&
    // Under the fault only a missing action_parameters is refused, not an empty one.
    !(params !== undefined && ctx.faults.has('accept-empty-action-parameters'))
  ) {
    throw badRequest(`${where}.action_parameters needs at least one of ${FIELD_ARRAYS.join(', ')}`);
  }
  for (const key of present) {
    const list = params?.[key];
    if (!Array.isArray(list))
      throw badRequest(`${where}.action_parameters.${key} must be an array of {name}`);
    list.forEach((item, i) => {
      const name = (item as Json)?.name;
      if (typeof name !== 'string' || name === '') {
        throw badRequest(`${where}.action_parameters.${key}[${i}].name must be a non-empty string`);
      }
      const header = key !== 'cookie_fields';
      if (header && name !== name.toLowerCase()) {
        throw badRequest(`${where}.action_parameters.${key}[${i}].name must be lower case, got '${name}'`);
      }
    });
    // Header names are kept as sent; the fault rewrites them in the canonical HTTP capitalisation.
    if (key !== 'cookie_fields' && ctx.faults.has('rewrite-header-field-names')) {
      for (const item of list as Json[]) {
        item.name = String(item.name).replace(
          /(^|-)([a-z])/g,
          (_, dash: string, c: string) => dash + c.toUpperCase(),
        );
      }
    }
    // Cookie names are case sensitive and kept as sent; the fault folds them like header names.
    if (key === 'cookie_fields' && ctx.faults.has('lowercase-cookie-fields')) {
      for (const item of list as Json[]) item.name = String(item.name).toLowerCase();
    }
  }
  // The rule is kept, but with every field array emptied.
  if (params && ctx.faults.has('empty-custom-field-arrays')) for (const key of present) params[key] = [];
  // Field arrays stored as bare names instead of {name} objects.
  if (params && ctx.faults.has('custom-fields-as-strings'))
    for (const key of present) params[key] = (params[key] as Json[]).map((f) => f.name);
}

/** SPEC Limits: 40 custom log fields per zone, all field types together. */
export function countCustomFields(rules: Rule[]): number {
  let n = 0;
  for (const rule of rules) {
    if (rule.action !== 'log_custom_field') continue;
    for (const key of FIELD_ARRAYS) {
      const list = rule.action_parameters?.[key];
      if (Array.isArray(list)) n += list.length;
    }
  }
  return n;
}
