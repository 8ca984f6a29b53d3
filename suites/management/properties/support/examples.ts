import type { PropertyContext } from 'edgecheck/kit';

/**
 * How many generated examples a property tries. A live target allows 1,200 management requests per
 * five minutes, so the quick profile tries the few a property needs (each of them sharing what the
 * property made and read); the full profile tries the profile's number.
 */
export function examplesFor(ctx: PropertyContext, quick: number): number {
  return ctx.profile === 'quick' ? Math.min(quick, ctx.fc.numRuns) : ctx.fc.numRuns;
}

/** Where two lists of names first differ, in words ("x-a was answered as X-A"), or undefined when equal. */
export function firstDifference(sent: string[], got: string[]): string | undefined {
  for (let i = 0; i < Math.max(sent.length, got.length); i++) {
    if (sent[i] === got[i]) continue;
    if (i >= got.length) return `${JSON.stringify(sent[i])} (and ${sent.length - i - 1} after it) is missing`;
    if (i >= sent.length) return `${JSON.stringify(got[i])} was answered, though not sent`;
    return `${JSON.stringify(sent[i])} was answered as ${JSON.stringify(got[i])}`;
  }
  return undefined;
}
