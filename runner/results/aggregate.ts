import { type Clause, clauseApplies } from '../model/clause.ts';
import { departureCounts } from '../model/departures.ts';
import type { CaseResult, CheckResult, ClauseResult, RunResults, Tally } from '../model/results.ts';
import { CLAUSE_VERDICTS, type ClauseVerdict, clauseVerdict, VERDICTS } from '../model/verdict.ts';
import { amazonMatchOf } from './amazon.ts';

export function tally<V extends string>(values: V[], keys: readonly V[]): Tally<V> {
  const out = Object.fromEntries(keys.map((k) => [k, 0])) as Tally<V>;
  for (const v of values) out[v]++;
  return out;
}

/**
 * A clause's verdict from the checks citing it (clauseVerdict: fail, else error, else pass when one
 * was exercised, else blocked); for a clause outside its date window or lacking its feature, a
 * check judged for another clause counts as skipped.
 */
export function clauseResults(
  clauses: Clause[],
  cases: CaseResult[],
  asOf: string,
  features: string[],
): ClauseResult[] {
  const byClause = new Map<string, { checks: CheckResult[]; message?: string; requests: number }>();
  for (const c of cases) {
    const cited = new Set<string>();
    for (const check of c.checks) {
      for (const id of check.clauses) {
        const entry = byClause.get(id) ?? { checks: [], requests: 0 };
        if (!cited.has(id)) entry.requests += c.requests ?? 0;
        cited.add(id);
        entry.checks.push(check);
        if (!entry.message && (check.verdict === 'fail' || check.verdict === 'error')) {
          entry.message = `${c.id} (${check.step}): ${check.message ?? check.verdict}`;
        }
        byClause.set(id, entry);
      }
    }
  }
  return clauses.map((cl) => {
    const entry = byClause.get(cl.id);
    const outside = !clauseApplies(cl, asOf) || (cl.feature !== undefined && !features.includes(cl.feature));
    let verdict: ClauseVerdict = 'untested';
    if (entry) verdict = outside ? 'skipped' : clauseVerdict(entry.checks.map((k) => k.verdict));
    const blocked = verdict === 'pass' ? (entry?.checks ?? []).filter((k) => k.verdict === 'blocked') : [];
    return {
      id: cl.id,
      area: cl.area,
      section: cl.section,
      title: cl.title,
      source: cl.source,
      verdict,
      checks: entry?.checks.length ?? 0,
      requests: entry?.requests ?? 0,
      untestable: cl.untestable,
      amazon: cl.amazon?.says,
      ...amazonMatchOf(cl, verdict, cases),
      since: cl.since,
      until: cl.until,
      feature: cl.feature,
      message:
        verdict === 'fail' || verdict === 'error'
          ? entry?.message
          : blocked.length
            ? notExercised(entry?.checks ?? [], blocked)
            : undefined,
      ...(blocked.length
        ? {
            exercised: (entry?.checks ?? []).filter((k) => k.verdict === 'pass').length,
            unexercised: blocked.map((k) => ({
              caseId: k.caseId,
              step: k.step,
              ...(k.title ? { title: k.title } : {}),
              ...(k.message ? { message: k.message } : {}),
            })),
          }
        : {}),
    };
  });
}

/** `2 of 3 checks exercised: <why the first other was not>`, for a passing clause's line. */
function notExercised(checks: CheckResult[], blocked: CheckResult[]): string {
  const judged = checks.filter((k) => k.verdict === 'pass').length;
  const first = blocked[0];
  const what = first.title
    ? `${first.caseId} (${first.step}: ${first.title})`
    : `${first.caseId} (${first.step})`;
  return `${judged} of ${judged + blocked.length} checks exercised; not ${what}: ${first.message ?? 'blocked'}`;
}

export function summarize(clauses: ClauseResult[], cases: CaseResult[]): RunResults['summary'] {
  const departing = clauses.filter((c) => c.amazon !== undefined);
  return {
    clauses: tally(
      clauses.map((c) => c.verdict),
      CLAUSE_VERDICTS,
    ),
    cases: tally(
      cases.map((c) => c.verdict),
      VERDICTS,
    ),
    checks: tally(
      cases.flatMap((c) => c.checks.map((k) => k.verdict)),
      VERDICTS,
    ),
    ...(departing.length
      ? {
          departures: tally(
            departing.map((c) => c.verdict),
            CLAUSE_VERDICTS,
          ),
          departureAnswers: departureCounts(clauses),
        }
      : {}),
  };
}
