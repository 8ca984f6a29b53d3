import {
  AMAZON_ANSWERS,
  type AmazonAnswer,
  amazonAnswer,
  type Departures,
  departures,
  isFailure,
} from '../runner/model/departures.ts';
import type { ClauseResult, RunResults } from '../runner/model/results.ts';

/**
 * Failures where SPEC departs from Amazon S3 (clauses with `amazon`) apart from the others, and
 * split by the target's answer: a target failing one may be doing as Amazon S3 does, which someone
 * choosing between S3 implementations weighs differently from a departure from the semantics both
 * share. Every reporter takes the clauses and their counts from departures()
 * (runner/model/departures.ts), the function the engine's summary counts with: a blocked clause is
 * no departure.
 */
export {
  AMAZON_ANSWERS,
  type AmazonAnswer,
  amazonAnswer,
  type Departures,
  departsFromAmazon,
  departures,
  isFailure,
} from '../runner/model/departures.ts';

/** What each answer means, as a heading over its clauses. */
export const ANSWER_HEADING: Record<AmazonAnswer, string> = {
  asAmazon: 'Doing as Amazon S3 does',
  neither: 'Doing neither what SPEC says nor what Amazon S3 does',
  undecided: "Not compared with Amazon S3's answer",
};

/** What each answer means, in a few words after a count (`1 as Amazon S3 does`). */
const ANSWER_WORDS: Record<AmazonAnswer, string> = {
  asAmazon: 'as Amazon S3 does',
  neither: 'neither as SPEC says nor as Amazon S3 does',
  undecided: "not compared with Amazon S3's answer",
};

/** The answers that hold clauses, each with its clauses, in report order. */
export function answerGroups(
  d: Departures,
): { answer: AmazonAnswer; heading: string; clauses: ClauseResult[] }[] {
  return AMAZON_ANSWERS.filter((a) => d[a].length).map((answer) => ({
    answer,
    heading: ANSWER_HEADING[answer],
    clauses: d[answer],
  }));
}

/** `1 as Amazon S3 does, 2 neither as SPEC says nor as Amazon S3 does`: the answers that occur. */
export function answerCounts(d: Departures): string {
  return AMAZON_ANSWERS.filter((a) => d[a].length)
    .map((a) => `${d[a].length} ${ANSWER_WORDS[a]}`)
    .join(', ');
}

/**
 * `Amazon S3: 404 NoSuchLifecycleConfiguration`, for a clause that departs, with what the target's
 * failing answer was beside it (`; the target does the same`); else undefined.
 */
export function amazonNote(c: Pick<ClauseResult, 'amazon' | 'amazonMatch' | 'verdict'>): string | undefined {
  if (c.amazon === undefined) return undefined;
  const answer = isFailure(c) && c.amazonMatch !== undefined ? amazonAnswer(c) : undefined;
  const said =
    answer === 'asAmazon'
      ? '; the target does the same'
      : answer === 'neither'
        ? '; the target does neither'
        : '';
  return `Amazon S3: ${c.amazon}${said}`;
}

/**
 * `4 of the 5 failing and 1 of the 1 erroring clauses are where SPEC departs from Amazon S3: 1 as
 * Amazon S3 does, 2 neither ..., 2 not compared ...` when a failing or erroring clause departs;
 * undefined when none does.
 */
export function departureSentence(results: Pick<RunResults, 'clauses'>): string | undefined {
  const d = departures(results.clauses);
  if (!d.all.length) return undefined;
  const of = (v: 'fail' | 'error') => ({
    part: d.all.filter((c) => c.verdict === v).length,
    all: [...d.all, ...d.shared].filter((c) => c.verdict === v).length,
  });
  const fail = of('fail');
  const error = of('error');
  const counts = [
    fail.all ? `${fail.part} of the ${fail.all} failing` : '',
    error.all ? `${error.part} of the ${error.all} erroring` : '',
  ].filter(Boolean);
  return `${counts.join(' and ')} clauses are where SPEC departs from Amazon S3: ${answerCounts(d)}`;
}
