import type { ObservedView, Observer } from 'edgecheck/kit';
import { mustHaveRefused, violation } from './envelope.ts';
import { firstDifference } from './examples.ts';
import type { RuleView } from './log-fields-ruleset.ts';
import { refusalObserver, sentJson, succeeded } from './observed.ts';

/*
 * Custom log fields rules in traffic: PUTs of a zone ruleset, or of a phase's entry point, whose rules
 * (which replace the ruleset's) hold log_custom_field rules.
 */

const RULESET_PUT = /^\/client\/v4\/zones\/[^/]+\/rulesets\/(?:phases\/[^/]+\/entrypoint|[^/]+)$/;

export const FIELD_ARRAYS = ['request_fields', 'response_fields', 'cookie_fields'] as const;

/** The names of one field array of a rule's action_parameters (none where it is no array). */
export function names(params: Record<string, unknown> | undefined, key: string): string[] {
  const list = params?.[key];
  return Array.isArray(list) ? list.map((f) => (f as { name: string })?.name) : [];
}

/** The log_custom_field rules of `rules`. */
function logFieldRules(rules: unknown): RuleView[] {
  if (!Array.isArray(rules)) return [];
  return rules.filter((r): r is RuleView => Boolean(r) && (r as RuleView).action === 'log_custom_field');
}

/** The log_custom_field rules a PUT of a zone ruleset sent, or undefined for any other exchange. */
export function sentLogFieldRules(ex: ObservedView): RuleView[] | undefined {
  if (ex.method !== 'PUT' || !RULESET_PUT.test(ex.path)) return undefined;
  const rules = logFieldRules(sentJson(ex)?.rules);
  return rules.length ? rules : undefined;
}

/**
 * An observer of the PUTs a clause says must be refused, those whose log_custom_field rules
 * `forbidden` finds a reason in: one accepted contradicts the clause (see refusalObserver).
 */
export function refusedLogFieldsPut(forbidden: (rules: RuleView[]) => string | undefined): Observer {
  return refusalObserver((ex) => {
    const rules = sentLogFieldRules(ex);
    return rules && forbidden(rules);
  }, mustHaveRefused);
}

/**
 * An observer of the PUTs of log_custom_field rules that succeeded: each rule answered is given to
 * `judge` with the one sent in its place, whose names it compares. Where the answer holds another
 * number of such rules than was sent, which answered rule is which cannot be told (that the PUT
 * replaces them all is another clause's): nothing is judged.
 */
export function answeredLogFieldsPut(
  judge: (sent: RuleView, got: RuleView, where: string) => boolean,
): Observer {
  return (ex) => {
    if (ex.door !== 'management') return undefined;
    const sent = sentLogFieldRules(ex);
    const env = sent && succeeded(ex);
    if (!sent || !env) return undefined;
    const got = logFieldRules((env.result as { rules?: unknown } | null)?.rules);
    if (got.length !== sent.length) return false;
    let judged = false;
    sent.forEach((rule, i) => {
      if (judge(rule, got[i], `PUT ${ex.path}, log_custom_field rule ${i + 1}`)) judged = true;
    });
    return judged;
  };
}

/** Whether every name sent is a string (a rule sending others is refused or judged elsewhere). */
function allNames(list: string[]): boolean {
  return list.every((n) => typeof n === 'string');
}

/** Header names answered are the lower case of the names sent. */
export function headerNamesFolded(sent: RuleView, got: RuleView, where: string): boolean {
  let judged = false;
  for (const key of ['request_fields', 'response_fields']) {
    const asked = names(sent.action_parameters, key);
    if (!asked.length || !allNames(asked)) continue;
    const changed = firstDifference(
      asked.map((n) => n.toLowerCase()),
      names(got.action_parameters, key),
    );
    if (changed)
      violation(`${where}: ${key} ${JSON.stringify(asked)} were accepted, and in lower case ${changed}`);
    judged = true;
  }
  return judged;
}

/** Cookie names answered are the names sent, capitalization kept. */
export function cookieNamesKept(sent: RuleView, got: RuleView, where: string): boolean {
  const asked = names(sent.action_parameters, 'cookie_fields');
  if (!asked.length || !allNames(asked)) return false;
  const changed = firstDifference(asked, names(got.action_parameters, 'cookie_fields'));
  if (changed) violation(`${where}: cookie names ${JSON.stringify(asked)}: ${changed}`);
  return true;
}

/** Why a rule holding none of the three arrays is refused; undefined where every rule holds one. */
export function withoutFieldArrays(rules: RuleView[]): string | undefined {
  const bare = rules.find((r) => !FIELD_ARRAYS.some((k) => Array.isArray(r.action_parameters?.[k])));
  return bare && 'a log_custom_field rule holds none of request_fields, response_fields and cookie_fields';
}

/** `true` as an expression says it, spaces and enclosing parentheses aside. */
function isTrue(expression: string): boolean {
  let e = expression.trim();
  while (e.startsWith('(') && e.endsWith(')')) e = e.slice(1, -1).trim();
  return e === 'true';
}

/** Why a rule whose expression is not true is refused. */
export function expressionNotTrue(rules: RuleView[]): string | undefined {
  const other = rules.find((r) => typeof r.expression === 'string' && !isTrue(r.expression));
  return other && `a log_custom_field rule's expression is ${JSON.stringify(other.expression)}, not true`;
}

/** Why rules holding more than `limit` fields together (each name counted once per type) are refused. */
export function overFieldLimit(limit: number): (rules: RuleView[]) => string | undefined {
  return (rules) => {
    const fields = new Set<string>();
    for (const r of rules) {
      for (const key of FIELD_ARRAYS) {
        for (const name of names(r.action_parameters, key)) {
          // Header names are one whatever their case; cookie names keep theirs.
          const n = typeof name === 'string' && key !== 'cookie_fields' ? name.toLowerCase() : name;
          fields.add(`${key} ${String(n)}`);
        }
      }
    }
    return fields.size > limit
      ? `its log_custom_field rules hold ${fields.size} fields, over ${limit}`
      : undefined;
  };
}
