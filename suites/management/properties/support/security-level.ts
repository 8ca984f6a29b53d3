import type { PropertyContext } from 'edgecheck/kit';
import { call, type Envelope, succeed, violation } from './envelope.ts';
import { serialQueue } from './serial.ts';

/**
 * security_level is one value per zone, changed by checks of two suites (management and
 * deprecations). They take turns through this one queue, so each puts back the value it found
 * and none captures another's temporary value.
 */
const turn = serialQueue();

function path(ctx: PropertyContext): string {
  const zone = ctx.target.management?.zoneId;
  if (!zone) ctx.skip('the target config has no zoneId');
  return `/zones/${zone}/settings/security_level`;
}

/** PATCHes security_level to `value` and hands the answer to `judge`; the previous value is put back. */
export function withSecurityLevel(
  ctx: PropertyContext,
  value: string,
  judge: (answer: Envelope) => void,
): Promise<void> {
  return turn(async () => {
    // GET is how the service documents reading a setting; SPEC shows only the PATCH.
    const current = await succeed<{ value?: unknown } | null>(ctx, { method: 'GET', path: path(ctx) });
    const previous = current.result?.value;
    if (typeof previous !== 'string') violation('GET settings/security_level answered no value');
    const answer = await call(ctx, { method: 'PATCH', path: path(ctx), body: { value } });
    try {
      judge(answer);
    } finally {
      if (answer.success) {
        const back = await call(ctx, { method: 'PATCH', path: path(ctx), body: { value: previous } });
        // A value that cannot be put back is a teardown problem, reported as such.
        if (!back.success)
          ctx.defer(() => Promise.reject(new Error(`could not put security_level back to ${previous}`)));
      }
    }
  });
}

export function mustSucceed(value: string): (answer: Envelope) => void {
  return (answer) => {
    if (!answer.success) violation(`security_level ${value} was refused: ${JSON.stringify(answer.errors)}`);
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
