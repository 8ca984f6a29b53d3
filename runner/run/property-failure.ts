import { errorMessage } from '../util/errors.ts';

/** How fast-check's own report of a failed property begins. */
const FAST_CHECK = /^Property failed after \d+ tests?/;

/**
 * The error in fast-check's report when told to include it (includeErrorInReport): its message,
 * then its stack, up to the blank line before the hints.
 */
const GOT_ERROR = /^Got error: ([\s\S]*?)(\n {4}at [^\n]*)*(?=\n\n|$(?![\s\S]))/m;

const isReport = (e: unknown): e is Error => e instanceof Error && FAST_CHECK.test(e.message);

/**
 * A property's failure as a reader wants it: the property's own sentence (what the target did)
 * first, then what fast-check adds about finding it, once: the counterexample, seed, path and
 * hints. fast-check puts its report in the message and the property's error in `cause`; an
 * fc.assert inside another's predicate nests a report in a report (only the innermost, whose
 * counterexample gave the sentence, is kept), and with includeErrorInReport the sentence is in
 * the report itself (taken out of it, stack and all).
 */
export function propertyFailure(err: unknown): string {
  if (!isReport(err)) return emptyShown(errorMessage(err));
  let report: Error = err;
  for (let depth = 0; depth < 8 && isReport((report as { cause?: unknown }).cause); depth++)
    report = (report as { cause: Error }).cause;
  const cause = (report as { cause?: unknown }).cause;
  let text = report.message.trim();
  let sentence: string | undefined;
  if (cause !== undefined) sentence = cause instanceof Error ? errorMessage(cause) : String(cause);
  const got = GOT_ERROR.exec(text);
  if (got) {
    sentence ??= got[1].trim();
    text = text
      .replace(got[0], '')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  }
  return sentence === undefined ? text : `${emptyShown(sentence)}\n${text}`;
}

/**
 * A sentence with the values it was written with: one that came back empty leaves a blank
 * between two spaces (`ETag  answered`) or a space at the end of a line (`Content-Range `); it
 * reads `(empty)` there, as an empty capture does in a check's message (explainEmptyCaptures).
 */
export function emptyShown(sentence: string): string {
  return sentence.replace(/(?<=\S) {2}(?=\S)/g, ' (empty) ').replace(/(?<=\S) $/gm, ' (empty)');
}
