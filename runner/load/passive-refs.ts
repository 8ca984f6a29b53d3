import type { CaseDef } from '../model/case.ts';
import type { Clause } from '../model/clause.ts';
import type { Problem } from './lint.ts';

/**
 * Gives each passive check written as `sameAs: <case id>/<step id>#<n>` the check that case makes,
 * so that a clause judged both by a run and from traffic has one definition of its check. The check
 * must cite the clause and hold no placeholder (observed traffic has no run to fill one in). A
 * reference to a case of a suite not loaded is dropped: that suite was not asked for.
 */
export function resolvePassiveRefs(
  clauses: Map<string, Clause>,
  cases: CaseDef[],
  /** Every suite's cases were loaded: a case not found is then an error. */
  complete: boolean,
): Problem[] {
  const problems: Problem[] = [];
  const byId = new Map(cases.map((c) => [c.id, c]));
  for (const [id, clause] of clauses) {
    if (!clause.passive?.some((p) => p.sameAs)) continue;
    const kept = clause.passive.filter((p) => {
      if (!p.sameAs) return true;
      const [caseId, rest] = p.sameAs.split('/');
      const [stepId, index] = rest.split('#');
      const found = byId.get(caseId);
      const fail = (what: string) => {
        problems.push({ where: p.origin, what, level: 'error' });
        return false;
      };
      if (!found) return complete ? fail(`sameAs: no case '${caseId}'`) : false;
      const step = [...found.given, ...found.steps].find((s) => s.id === stepId);
      if (!step) return fail(`sameAs: case '${caseId}' has no step '${stepId}'`);
      const check = step.expect?.[Number(index)];
      if (!check)
        return fail(`sameAs: step '${stepId}' of '${caseId}' has no check #${index} (counted from 0)`);
      if (!check.clauses.includes(id))
        return fail(`sameAs: ${p.sameAs} (${check.origin}) does not cite '${id}'; name a check that does`);
      if (JSON.stringify(check).includes('${'))
        return fail(
          `sameAs: ${p.sameAs} (${check.origin}) holds a placeholder, which traffic cannot fill; write expect`,
        );
      p.expect = { ...check, clauses: [id] };
      return true;
    });
    clauses.set(id, { ...clause, passive: kept.length ? kept : undefined });
  }
  return problems;
}
