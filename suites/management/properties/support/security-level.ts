import type { PropertyContext } from 'edgecheck/kit';
import { call, type Envelope, helperRead, violation } from './envelope.ts';
import { serialQueue } from './serial.ts';

/**
 * security_level is one value per zone, changed by checks of two suites (management and
 * deprecations). They take turns through this one queue, so each puts back the value it found
 * and none captures another's temporary value.
 */
const turn = serialQueue();

/**
 * SPEC Errors 3: "After 2024-09-30" only off and under_attack are accepted. On the date itself
 * either rule may hold, so a value is taken as settable again only where both rules allow it.
 */
const RESTRICTED_FROM = '2024-09-30';
export const ALWAYS_ACCEPTED = ['off', 'under_attack'];

/** Whether `value` can be set (so put back) under the rules in force at the run's --as-of. */
export function settableAt(value: string, asOf: string): boolean {
  return asOf < RESTRICTED_FROM || ALWAYS_ACCEPTED.includes(value);
}

export const DISRUPTIVE =
  "may leave the zone's security_level changed when its current value can no longer be set at --as-of";

function path(ctx: PropertyContext): string {
  const zone = ctx.target.management?.zoneId;
  if (!zone) ctx.skip('the target config has no zoneId');
  return `/zones/${zone}/settings/security_level`;
}

function patchCommand(ctx: PropertyContext, value: string): string {
  const url = `${ctx.target.management?.baseUrl.replace(/\/+$/, '')}/client/v4${path(ctx)}`;
  return `curl -sS -X PATCH '${url}' -H "Authorization: Bearer $EDGECHECK_API_TOKEN" -H 'content-type: application/json' --data '{"value":"${value}"}'`;
}

/** The zone's current security_level. */
export async function currentLevel(ctx: PropertyContext): Promise<string> {
  // SPEC shows only the PATCH, whose answer is not shown either; GET is how the service documents
  // reading a setting. A target without it cannot be checked here: blocked, never fail.
  const env = await helperRead<{ value?: unknown } | null>(
    ctx,
    { method: 'GET', path: path(ctx) },
    'so the value to put back cannot be read',
  );
  const value = env.result?.value;
  if (typeof value !== 'string') ctx.blocked('GET settings/security_level answered no value to put back');
  return value;
}

/** A value to PATCH: given, or a function of the value found (so a check can set the current value again). */
type Wanted = string | ((previous: string) => string);

/**
 * PATCHes security_level to `value` and hands the answer and the value sent to `judge`, which may
 * read the setting again before the value found is put back. Where the PATCH could change the value
 * and the value found cannot be set again at --as-of, the check runs only when the run allows
 * disruptive changes; else it is skipped with the reason.
 */
export function withSecurityLevel(
  ctx: PropertyContext,
  value: Wanted,
  judge: (answer: Envelope, wanted: string) => void | Promise<void>,
): Promise<void> {
  return withSecurityLevels(ctx, [value], judge);
}

/**
 * withSecurityLevel for several values in one turn: the value found is read once, since each PATCH
 * is either refused (nothing changed) or put back before the next one (a live target counts requests).
 */
export function withSecurityLevels(
  ctx: PropertyContext,
  values: Wanted[],
  /** `index`: the value's place in `values`. */
  judge: (answer: Envelope, wanted: string, index: number) => void | Promise<void>,
): Promise<void> {
  return turn(async () => {
    const previous = await currentLevel(ctx);
    for (const [index, value] of values.entries()) {
      const wanted = typeof value === 'function' ? value(previous) : value;
      await patchAndPutBack(ctx, previous, wanted, (answer) => judge(answer, wanted, index));
    }
  });
}

/** One PATCH to `wanted`, judged, then `previous` put back (or handed to teardown, or listed as left). */
async function patchAndPutBack(
  ctx: PropertyContext,
  previous: string,
  wanted: string,
  judge: (answer: Envelope, wanted: string) => void | Promise<void>,
): Promise<void> {
  const restorable = wanted === previous || settableAt(previous, ctx.asOf);
  if (!restorable && !ctx.allowDisruptive) {
    ctx.skip(
      `security_level is ${previous}, which cannot be set again as of ${ctx.asOf}; ` +
        `setting ${wanted} could not be undone (--allow-disruptive runs it)`,
    );
  }
  const what = `security_level back to ${previous}`;
  const putBack = () => call(ctx, { method: 'PATCH', path: path(ctx), body: { value: previous } });
  // Registered before the PATCH is sent: a run interrupted while it is on its way (its answer
  // never read) still puts the value found back in its teardown, unless it was put back here.
  let restored = wanted === previous || !restorable;
  if (!restored)
    ctx.defer(
      async () => {
        if (restored) return;
        const back = await putBack();
        if (!back.success) throw new Error(`PATCH answered ${JSON.stringify(back.errors)}`);
      },
      what,
      patchCommand(ctx, previous),
    );
  const answer = await call(ctx, { method: 'PATCH', path: path(ctx), body: { value: wanted } });
  // Refused, the value found stands.
  if (!answer.success) restored = true;
  try {
    await judge(answer, wanted);
  } finally {
    if (answer.success && wanted !== previous) {
      if (!restorable) {
        ctx.leftover(what, `${previous} cannot be set again as of ${ctx.asOf}`, patchCommand(ctx, previous));
      } else if ((await putBack()).success) {
        // Put back at once, so that what follows reads the value found; else the teardown tries again.
        restored = true;
      }
    }
  }
}

export function mustSucceed(what: string): (answer: Envelope) => void {
  return (answer) => {
    if (!answer.success) violation(`security_level ${what} was refused: ${JSON.stringify(answer.errors)}`);
  };
}

export function mustBeRefused(value: string): (answer: Envelope) => void {
  return (answer) => {
    if (answer.success) violation(`security_level ${value} was accepted`);
    if (!Array.isArray(answer.errors) || answer.errors.length === 0) {
      violation(`security_level ${value} was refused without an error object`);
    }
  };
}
