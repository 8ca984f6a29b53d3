export type Verdict = 'pass' | 'fail' | 'blocked' | 'skipped' | 'error';
export type ClauseVerdict = Verdict | 'untested';

/** Worst first: a case takes the worst verdict of its checks (a clause's: clauseVerdict). */
const SEVERITY: Record<ClauseVerdict, number> = {
  fail: 5,
  error: 4,
  blocked: 3,
  pass: 2,
  skipped: 1,
  untested: 0,
};

export function worst<V extends ClauseVerdict>(verdicts: Iterable<V>, none: V): V {
  let out = none;
  for (const v of verdicts) if (SEVERITY[v] > SEVERITY[out]) out = v;
  return out;
}

/**
 * A clause's verdict from its checks': it fails when one fails, else errors when one errors, else
 * passes when at least one was exercised and passed; it is blocked only when none of its checks
 * could be judged. A blocked check (a branch the target did not take, a twin it refused) leaves
 * the clause judged on the others, named beside it.
 */
export function clauseVerdict(verdicts: Iterable<Verdict>): ClauseVerdict {
  const seen = new Set(verdicts);
  for (const v of ['fail', 'error', 'pass', 'blocked'] as const) if (seen.has(v)) return v;
  return 'skipped';
}

export const VERDICTS: readonly Verdict[] = ['pass', 'fail', 'error', 'blocked', 'skipped'];

/** The report order of clause verdicts: a clause no check cited is `untested`. */
export const CLAUSE_VERDICTS: readonly ClauseVerdict[] = [...VERDICTS, 'untested'];
