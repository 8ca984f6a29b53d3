import type { ClauseResult, RunResults } from '../runner/model/results.ts';

/**
 * Failures where SPEC departs from Amazon S3 (clauses with `amazon`) apart from the others: a
 * target failing one may be doing as Amazon S3 does, which someone choosing between S3
 * implementations weighs differently from a departure from the semantics both share.
 */

/** Failing and erroring: the verdicts a report counts as failures. */
export const isFailure = (c: Pick<ClauseResult, 'verdict'>) => c.verdict === 'fail' || c.verdict === 'error';

/** Where SPEC departs from Amazon S3. */
export const departsFromAmazon = (c: Pick<ClauseResult, 'amazon'>) => c.amazon !== undefined;

/** The failing and erroring clauses, split: where SPEC and Amazon S3 agree, and where they do not. */
export function splitFailures(clauses: readonly ClauseResult[]): {
  shared: ClauseResult[];
  departing: ClauseResult[];
} {
  const failing = clauses.filter(isFailure);
  return {
    shared: failing.filter((c) => !departsFromAmazon(c)),
    departing: failing.filter(departsFromAmazon),
  };
}

/** `Amazon S3: 404 NoSuchLifecycleConfiguration`, for a clause that departs; else undefined. */
export function amazonNote(c: Pick<ClauseResult, 'amazon'>): string | undefined {
  return c.amazon === undefined ? undefined : `Amazon S3: ${c.amazon}`;
}

/**
 * `5 of the 12 failing and 1 of the 2 erroring clauses are where SPEC departs from Amazon S3: ...`
 * when a failing or erroring clause departs; undefined when none does.
 */
export function departureSentence(results: Pick<RunResults, 'summary'>): string | undefined {
  const all = results.summary.clauses;
  const part = results.summary.departures;
  if (!part || part.fail + part.error === 0) return undefined;
  const counts = [
    all.fail ? `${part.fail} of the ${all.fail} failing` : '',
    all.error ? `${part.error} of the ${all.error} erroring` : '',
  ].filter(Boolean);
  return `${counts.join(' and ')} clauses are where SPEC departs from Amazon S3: there the target may be doing as Amazon S3 does`;
}
