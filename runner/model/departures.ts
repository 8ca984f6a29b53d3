import type { ClauseResult, DepartureCounts } from './results.ts';

/**
 * Failures where SPEC departs from Amazon S3 (clauses with `amazon`), apart from the others, and
 * split by the target's answer. One place for the engine's summary and every reporter, so that
 * each counts the same clauses: failing and erroring ones only (a blocked clause was not judged,
 * so it departs from nothing).
 */

/** Failing and erroring: the verdicts a report counts as failures. */
export const isFailure = (c: Pick<ClauseResult, 'verdict'>) => c.verdict === 'fail' || c.verdict === 'error';

/** Where SPEC departs from Amazon S3. */
export const departsFromAmazon = (c: Pick<ClauseResult, 'amazon'>) => c.amazon !== undefined;

/** What a departing clause's failure was: Amazon S3's answer, neither SPEC's nor Amazon S3's, or not compared. */
export type AmazonAnswer = keyof DepartureCounts;

export const AMAZON_ANSWERS: readonly AmazonAnswer[] = ['asAmazon', 'neither', 'undecided'];

export function amazonAnswer(c: Pick<ClauseResult, 'amazonMatch'>): AmazonAnswer {
  return c.amazonMatch === true ? 'asAmazon' : c.amazonMatch === false ? 'neither' : 'undecided';
}

export interface Departures extends Record<AmazonAnswer, ClauseResult[]> {
  /** The failing and erroring clauses where SPEC departs from Amazon S3, in the order given. */
  all: ClauseResult[];
  /** The other failing and erroring clauses: where SPEC and Amazon S3 agree. */
  shared: ClauseResult[];
}

/** The failing and erroring clauses, split: where SPEC and Amazon S3 agree, and where not, by answer. */
export function departures(clauses: readonly ClauseResult[]): Departures {
  const failing = clauses.filter(isFailure);
  const all = failing.filter(departsFromAmazon);
  return {
    all,
    shared: failing.filter((c) => !departsFromAmazon(c)),
    asAmazon: all.filter((c) => amazonAnswer(c) === 'asAmazon'),
    neither: all.filter((c) => amazonAnswer(c) === 'neither'),
    undecided: all.filter((c) => amazonAnswer(c) === 'undecided'),
  };
}

/** How many of departures() each answer holds. */
export function departureCounts(clauses: readonly ClauseResult[]): DepartureCounts {
  const d = departures(clauses);
  return { asAmazon: d.asAmazon.length, neither: d.neither.length, undecided: d.undecided.length };
}
