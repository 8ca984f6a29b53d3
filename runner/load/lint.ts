import { isOperatorObject, OPERATORS } from '../match/value.ts';
import type { CaseDef, CheckDef, StepDef } from '../model/case.ts';
import type { Clause } from '../model/clause.ts';
import { isFeature, unknownFeature } from '../model/features.ts';
import { schemas } from '../schema/registry.ts';
import { stepKind } from '../steps/index.ts';
import { fixtureText, placeholdersIn } from '../template/resolve.ts';
import { weakness } from './check-strength.ts';
import type { LazyProperty } from './properties.ts';

export interface Problem {
  where: string;
  what: string;
  /** Errors stop a run; warnings are reported by `edgecheck lint` (errors with --strict). */
  level: 'error' | 'warning';
}

const ROOTS = new Set(['run', 'case', 'target', 'asOf', 'profile']);
const TARGET_FIELDS = new Set(['accountId', 'zoneId', 'ids', 'bindingsBucket']);

/** Every cross-file rule the JSON Schemas cannot state. */
export function lintSuites(
  clauses: Map<string, Clause>,
  cases: CaseDef[],
  properties: LazyProperty[],
): Problem[] {
  const problems: Problem[] = [];
  const error = (where: string, what: string) => problems.push({ where, what, level: 'error' });
  const cited = new Set<string>();
  const caseIds = new Map<string, string>();

  /** `tests`: the citing check runs (an observer alone leaves its clauses untested by a run). */
  const citeAll = (where: string, ids: string[], tests = true) => {
    for (const id of ids) {
      const clause = clauses.get(id);
      if (!clause) error(where, `unknown clause '${id}'; add it to a clauses.yaml or fix the id`);
      else if (clause.untestable) error(where, `clause '${id}' is marked untestable, yet a check cites it`);
      else if (tests) cited.add(id);
    }
  };
  const report: LintReport = {
    error,
    warn: (where, what) => problems.push({ where, what, level: 'warning' }),
    cite: citeAll,
  };

  for (const c of cases) {
    const prior = caseIds.get(c.id);
    if (prior) error(c.origin, `duplicate case id '${c.id}' (first at ${prior}); give it a new id`);
    caseIds.set(c.id, c.origin);
    lintCase(c, report);
  }
  for (const p of properties) {
    const prior = caseIds.get(p.def.id);
    if (prior) error(p.file, `duplicate case id '${p.def.id}' (first at ${prior})`);
    caseIds.set(p.def.id, p.file);
    citeAll(`${p.file} (${p.def.id})`, p.def.clauses, Boolean(p.def.run));
    for (const f of p.def.features ?? [])
      if (!isFeature(f)) error(`${p.file} (${p.def.id})`, unknownFeature(f));
  }
  for (const clause of clauses.values()) {
    if (!clause.untestable && !cited.has(clause.id)) {
      problems.push({
        where: clause.origin,
        what: `clause '${clause.id}' is cited by no check (untested)`,
        level: 'warning',
      });
    }
  }
  return problems;
}

/** Where lint's findings go: errors, warnings, and the clauses a check cites (checked to exist). */
interface LintReport {
  error(where: string, what: string): void;
  warn(where: string, what: string): void;
  cite(where: string, ids: string[]): void;
}

/**
 * One case's steps, given first, each with its teardown: needs and twins that name earlier steps,
 * step ids, the step kind's own rules, fixtures, placeholders defined before use, and checks.
 */
function lintCase(c: CaseDef, report: LintReport): void {
  const defined = new Set<string>();
  const stepIds = new Set<string>();
  // Ids of the given: a twin is a step of the case, not a prerequisite (whose refusal stops it).
  let givenIds = new Set<string>();
  const visit = (step: StepDef, inTeardown: boolean) => {
    for (const id of step.needs ?? []) {
      if (inTeardown)
        report.error(step.origin, 'a teardown step runs whatever happened: it cannot have needs');
      else if (!stepIds.has(id))
        report.error(
          step.origin,
          `needs '${id}', which is no earlier step of case '${c.id}'; name a step above it`,
        );
    }
    for (const id of step.twin ?? []) {
      if (inTeardown)
        report.error(step.origin, 'a teardown step runs whatever happened: it has no valid twin');
      else if (!stepIds.has(id) || givenIds.has(id))
        report.error(
          step.origin,
          `twin '${id}', which is no earlier step of case '${c.id}'; name a step above it in steps (a given's refusal stops the case)`,
        );
    }
    if (step.id) {
      if (stepIds.has(step.id)) report.error(step.origin, `duplicate step id '${step.id}' in case '${c.id}'`);
      stepIds.add(step.id);
    }
    const kind = stepKind(step);
    const problem = kind.lint?.(step);
    if (problem) report.error(step.origin, problem);
    const request = kind.sent(step);
    for (const name of fixtureNames(request)) {
      try {
        fixtureText(name);
      } catch {
        report.error(step.origin, `fixture '${name}' not found in fixtures/; add the file or fix the name`);
      }
    }
    for (const p of placeholdersIn(request))
      checkPlaceholder(step.origin, p.name, p.inRepeat, defined, report.error);
    for (const check of step.expect ?? []) {
      if (inTeardown) report.error(check.origin, 'teardown steps cannot have checks');
      report.cite(check.origin, check.clauses);
      lintCheck(check, report.error);
      const weak = weakness(check);
      if (weak && !check.weak) {
        report.warn(
          check.origin,
          `the check asserts only ${weak === 'shape' ? 'a shape' : weak === 'status class' ? 'a status class' : 'absence'}: assert the value its clause states, or say why it need not in 'weak:'`,
        );
      }
      for (const p of placeholdersIn(check))
        checkPlaceholder(check.origin, p.name, false, defined, report.error);
    }
    for (const name of [
      ...(step.kind === 'bucket' ? [step.bucket] : []),
      ...Object.keys(step.capture ?? {}),
    ]) {
      if (ROOTS.has(name) || name === 'i') {
        report.error(
          step.origin,
          `'${name}' is a built-in placeholder; give the capture or bucket another name`,
        );
      }
      defined.add(name);
    }
    for (const t of step.teardown ?? []) visit(t, true);
  };
  for (const s of c.given) visit(s, false);
  givenIds = new Set(stepIds);
  for (const s of c.steps) visit(s, false);
}

function checkPlaceholder(
  where: string,
  name: string,
  inRepeat: boolean,
  defined: Set<string>,
  error: (where: string, what: string) => void,
): void {
  const [root, field] = name.split('.');
  if (root === 'i' && inRepeat) return;
  if (ROOTS.has(root)) {
    if (root === 'target' && field && !TARGET_FIELDS.has(field)) {
      error(where, `unknown placeholder \${${name}}: target has accountId, zoneId, ids.NAME, bindingsBucket`);
    }
    return;
  }
  if (!defined.has(root)) {
    error(
      where,
      `unresolvable placeholder \${${name}}: capture '${root}' in an earlier step, or use run/case/target/asOf`,
    );
  }
}

function lintCheck(check: CheckDef, error: (where: string, what: string) => void): void {
  const refs: string[] = [check.schema, check.requires?.schema].filter((r): r is string => r !== undefined);
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      if (isOperatorObject(v)) {
        for (const op of Object.keys(v)) {
          if (!(OPERATORS as readonly string[]).includes(op)) {
            error(check.origin, `unknown matcher '${op}'; known: ${OPERATORS.join(' ')}`);
          }
        }
        if ('$schema' in v) refs.push(String((v as Record<string, unknown>).$schema));
        if ('$sorted' in v) {
          const arg = (v as Record<string, unknown>).$sorted;
          const dir =
            typeof arg === 'string' ? arg : ((arg as { direction?: string } | null)?.direction ?? 'asc');
          if (dir !== 'asc' && dir !== 'desc') {
            error(
              check.origin,
              `$sorted takes asc, desc or {by: /pointer, direction: asc|desc}, not ${JSON.stringify(arg)}`,
            );
          }
        }
        if ('$matches' in v) {
          try {
            new RegExp(String((v as Record<string, unknown>).$matches));
          } catch {
            error(
              check.origin,
              `invalid regular expression ${JSON.stringify((v as Record<string, unknown>).$matches)}`,
            );
          }
        }
      }
      Object.values(v).forEach(walk);
    }
  };
  for (const c of [check, check.requires ?? {}])
    walk([c.status, c.headers, c.json, c.xml, c.output, c.error]);
  for (const ref of refs) {
    if (!schemas().has(ref))
      error(check.origin, `schema '${ref}' not found in schemas/; add the file or fix the $ref`);
  }
  const matchers = ['status', 'headers', 'json', 'schema', 'xml', 'body', 'output', 'error'] as const;
  if (!matchers.some((m) => check[m] !== undefined)) {
    error(
      check.origin,
      'a check without a matcher cannot fail; add status, headers, json, xml, body, output or error',
    );
  }
}

/** Names given to `$file` anywhere in a template. */
function fixtureNames(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) fixtureNames(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$file' && typeof v === 'string' && !v.includes('${')) out.push(v);
      else fixtureNames(v, out);
    }
  }
  return out;
}
