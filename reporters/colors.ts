/** ANSI colours for the console reporter; identity functions when colour is off. */
export interface Paint {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

export function paint(enabled: boolean): Paint {
  if (!enabled) {
    const id = (s: string) => s;
    return { red: id, green: id, yellow: id, cyan: id, dim: id, bold: id };
  }
  return {
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
  };
}

/** Colour only on a terminal, and never when NO_COLOR is set to a non-empty value (no-color.org). */
export function wantsColor(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/**
 * A status line rewritten in place suits a person at a terminal, not a CI log (which keeps every
 * rewrite): only on a terminal, and not when CI is set (as CI services set it) to anything but
 * `false` or `0`.
 */
export function wantsLiveProgress(
  stream: NodeJS.WritableStream,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  return !ci && (stream as { isTTY?: boolean }).isTTY === true;
}
