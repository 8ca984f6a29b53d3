import type { ReferenceContext } from '../context.ts';
import { ApiError, CODES, noRoute } from './api-error.ts';
import { since } from './schedule.ts';

/** One row of SPEC's Versioning table that retires endpoints. */
export interface Retirement {
  /** Short name; the fault `serve-retired-<subject>` keeps serving it after its end of life. */
  subject: string;
  eol: string;
  replacement: string;
}

export function serveFaultName(subject: string): string {
  return `serve-retired-${subject}`;
}

/** The fault `unserved-<subject>`: the endpoints were never implemented, so they answer no route at any date. */
export function unservedFaultName(subject: string): string {
  return `unserved-${subject}`;
}

/**
 * Before its end-of-life date a retired endpoint works; from that date on it answers an error envelope
 * naming the replacement. SPEC leaves the status open; 410 Gone says what happened.
 */
export function guardRetired(ctx: ReferenceContext, r: Retirement): void {
  if (ctx.faults.has(unservedFaultName(r.subject))) throw noRoute();
  const retired = since(ctx, r.eol)
    ? !ctx.faults.has(serveFaultName(r.subject))
    : ctx.faults.has('retire-early');
  if (retired) {
    throw ApiError.of(
      // A route left in place with its handler gone fails as a server error instead.
      ctx.faults.has('retired-server-error') ? 500 : 410,
      // The code as a string, as a gateway that writes its own error objects might.
      ctx.faults.has('retired-error-code-string')
        ? (String(CODES.retired) as unknown as number)
        : CODES.retired,
      `This endpoint reached its end of life on ${r.eol}; ${r.replacement ? `use ${r.replacement}` : 'it has no replacement'}`,
    );
  }
}
