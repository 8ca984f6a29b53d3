export type Verdict = 'pass' | 'fail' | 'blocked' | 'skipped' | 'error';
export type ClauseVerdict = Verdict | 'untested';

/** Worst first: a case or clause takes the worst verdict of its checks. */
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

export const VERDICTS: readonly Verdict[] = ['pass', 'fail', 'error', 'blocked', 'skipped'];

/** The report order of clause verdicts: a clause no check cited is `untested`. */
export const CLAUSE_VERDICTS: readonly ClauseVerdict[] = [...VERDICTS, 'untested'];
