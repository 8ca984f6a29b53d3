import { errorMessage } from '../util/errors.ts';

/** How fast-check's own report of a failed property begins. */
const FAST_CHECK = /^Property failed after \d+ tests?/;

/**
 * A property's failure as a reader wants it: the property's own sentence (what the target did)
 * first, then what fast-check adds about finding it: the counterexample, seed, path and hints.
 * fast-check puts its report in the message and the property's error in `cause`.
 */
export function propertyFailure(err: unknown): string {
  const text = errorMessage(err);
  if (!(err instanceof Error) || !FAST_CHECK.test(err.message)) return text;
  const cause = (err as { cause?: unknown }).cause;
  if (cause === undefined) return text;
  const sentence = cause instanceof Error ? errorMessage(cause) : String(cause);
  return `${sentence}\n${err.message.trim()}`;
}
