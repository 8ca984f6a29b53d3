import { clauseApplies } from '../runner/model/clause.ts';
import type { CaseResult, CheckResult, ClauseResult } from '../runner/model/results.ts';

/** The checks that cite each clause, in run order. */
export function checksByClause(cases: readonly CaseResult[]): Map<string, CheckResult[]> {
  const out = new Map<string, CheckResult[]>();
  for (const c of cases) {
    for (const check of c.checks) {
      for (const id of check.clauses) {
        const list = out.get(id);
        if (list) list.push(check);
        else out.set(id, [check]);
      }
    }
  }
  return out;
}

/** Milliseconds spent in the cases that judged a clause (a case counts once). */
export function clauseDurationMs(
  checks: readonly CheckResult[],
  cases: ReadonlyMap<string, CaseResult>,
): number {
  let total = 0;
  for (const id of new Set(checks.map((c) => c.caseId))) total += cases.get(id)?.durationMs ?? 0;
  return total;
}

/**
 * Why a clause did not pass, in one line; for a pass, which of its checks were not exercised
 * (`2 of 3 checks exercised; not …`), else undefined.
 */
export function clauseReason(
  clause: ClauseResult,
  checks: readonly CheckResult[],
  cases: ReadonlyMap<string, CaseResult>,
  asOf: string,
): string | undefined {
  if (clause.verdict === 'pass') return clause.unexercised?.length ? clause.message : undefined;
  if (clause.verdict === 'untested') {
    return clause.untestable ? `untestable: ${clause.untestable}` : 'no check cites this clause';
  }
  if (clause.verdict === 'skipped' && !clauseApplies(clause, asOf)) {
    const window = [clause.since && `since ${clause.since}`, clause.until && `until ${clause.until}`]
      .filter(Boolean)
      .join(', ');
    return `outside its date window (${window}) as of ${asOf}`;
  }
  if (clause.message) return clause.message;
  const check = checks.find((c) => c.verdict === clause.verdict && c.message);
  if (check?.message) return check.message;
  for (const c of checks) {
    const reason = cases.get(c.caseId)?.reason;
    if (reason) return reason;
  }
  return undefined;
}

/** The top-level SPEC heading of a clause's section ("Errors / 2" belongs to "Errors"). */
export function topSection(section: string): string {
  const cut = section.indexOf(' / ');
  return (cut < 0 ? section : section.slice(0, cut)).trim();
}

export interface SectionGroup {
  area: string;
  section: string;
  clauses: ClauseResult[];
}

/** Clauses grouped by area, then by top-level SPEC section, both in order of first appearance. */
export function groupBySection(clauses: readonly ClauseResult[]): SectionGroup[] {
  const groups = new Map<string, SectionGroup>();
  const areas: string[] = [];
  for (const clause of clauses) {
    const section = topSection(clause.section);
    const key = `${clause.area}\u0000${section}`;
    let group = groups.get(key);
    if (!group) {
      group = { area: clause.area, section, clauses: [] };
      groups.set(key, group);
      if (!areas.includes(clause.area)) areas.push(clause.area);
    }
    group.clauses.push(clause);
  }
  return [...groups.values()].sort((a, b) => areas.indexOf(a.area) - areas.indexOf(b.area));
}
