import type { ObservedView, PropertyDef } from 'edgecheck/kit';
import { mustHaveRefused } from '../../management/properties/support/envelope.ts';
import { refusalObserver, sentJson } from '../../management/properties/support/observed.ts';
import { ALWAYS_ACCEPTED } from '../../management/properties/support/security-level.ts';

/*
 * SPEC Errors 3 for the rulesets operations, as traffic shows it: a rule created or updated that
 * sets the security level to a value other than off and under_attack, or whose expression uses the
 * threat score field, must be refused. Their cases (ruleset-restrictions.case.yaml) check them in
 * a run; these only observe.
 */

const RULESETS = /^\/client\/v4\/(?:zones|accounts)\/[^/]+\/rulesets(?:\/|$)/;
/** The rule endpoints, whose body is one rule; the others' bodies hold a rules array. */
const ONE_RULE = /\/rules(?:\/[^/]+)?$/;

interface SentRule {
  expression?: unknown;
  action_parameters?: { security_level?: unknown };
}

/** The rules a ruleset or rule POST, PUT or PATCH sent; none for any other exchange. */
function sentRules(ex: ObservedView): SentRule[] {
  if (!['POST', 'PUT', 'PATCH'].includes(ex.method) || !RULESETS.test(ex.path)) return [];
  const body = sentJson(ex);
  if (!body) return [];
  const rules = ONE_RULE.test(ex.path) ? [body] : body.rules;
  return Array.isArray(rules) ? rules.filter((r) => r && typeof r === 'object') : [];
}

const securityLevel: PropertyDef = {
  id: 'dep.ruleset-security-level.rejected-observed',
  title: 'A rule setting the security level to a value other than off and under_attack is refused',
  clauses: ['dep.ruleset-security-level.rejected'],
  observe: {
    selects:
      'ruleset and rule POST, PUT and PATCH setting security_level to another value than off and under_attack, accepted',
    observer: () =>
      refusalObserver((ex) => {
        const level = sentRules(ex)
          .map((r) => r.action_parameters?.security_level)
          .find((v) => v !== undefined && !ALWAYS_ACCEPTED.includes(v as string));
        return level === undefined ? undefined : `a rule sets security_level ${JSON.stringify(level)}`;
      }, mustHaveRefused),
  },
};

const THREAT_SCORE = /\bcf\.threat_score\b/;

const threatScore: PropertyDef = {
  id: 'dep.threat-score.rejected-observed',
  title: 'A rule whose expression uses the threat score field is refused',
  clauses: ['dep.threat-score.rejected'],
  observe: {
    selects: 'ruleset and rule POST, PUT and PATCH whose expression uses cf.threat_score, accepted',
    observer: () =>
      refusalObserver((ex) => {
        const used = sentRules(ex).find(
          (r) => typeof r.expression === 'string' && THREAT_SCORE.test(r.expression),
        );
        return used && `a rule's expression uses cf.threat_score: ${JSON.stringify(used.expression)}`;
      }, mustHaveRefused),
  },
};

export default [securityLevel, threatScore] satisfies PropertyDef[];
