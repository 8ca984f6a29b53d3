import { ABSENT, match } from '../match/value.ts';
import type { CheckDef } from '../model/case.ts';
import type { StepResponse } from '../transports/response.ts';

/**
 * Whether a check that failed says the step had another outcome than the check expects: carried
 * out where a refusal was expected, refused where success was, a server error, or no answer. Only
 * then is the state after the step unknown to the steps after it; an answer of the expected kind
 * that failed in its detail (another 4xx, a header, an element of a success) left the state its
 * clause says, and what follows is judged on its own answers.
 *
 * The expected outcome is the check's status (any status of the answer's class taken), else its
 * error (an error present or not), else success: a check that names neither, failing on an answer
 * the step calls refused (`ok` false), expected success.
 */
export function outcomeDiffers(check: CheckDef, res: StepResponse, ok: boolean): boolean {
  if (res.status >= 500 || res.status === 0) return true;
  if (check.status !== undefined) {
    const hundred = Math.floor(res.status / 100) * 100;
    for (let s = hundred; s < hundred + 100; s++) if (!match(check.status, s)) return false;
    return true;
  }
  if (check.error !== undefined) {
    const wantsError = match(check.error, ABSENT) !== undefined;
    return wantsError !== Boolean(res.error);
  }
  return !ok;
}

/**
 * Whether a check expects the step to be refused: its status admits no success (2xx or 3xx), or
 * its error matcher wants an error. A step whose checks expect a refusal leaves the state as it was.
 */
export function expectsRefusal(check: CheckDef): boolean {
  if (check.status !== undefined) {
    for (let s = 200; s < 400; s++) if (!match(check.status, s)) return false;
    return true;
  }
  if (check.error !== undefined) return match(check.error, ABSENT) !== undefined;
  return false;
}
