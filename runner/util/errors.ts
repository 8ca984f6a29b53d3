/**
 * Errors the user can fix. The CLI prints `message` as one line and exits 2; never a stack trace.
 * `where` is file:line:column, a flag, or a config field.
 */
export class InputError extends Error {
  constructor(
    readonly where: string,
    readonly what: string,
  ) {
    super(`${where}: ${what}`);
  }
}

/**
 * An error that reports on an answer, not on edgecheck: why a check did not hold, or why it could
 * not read the answer. Its stack would say nothing of the target, and capturing one costs more than
 * judging an exchange, which the proxy does for every exchange it forwards: none is captured.
 */
export class VerdictError extends Error {
  constructor(message?: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

/** A target answered something the runner cannot judge: the check's verdict is `error`. */
export class TargetError extends VerdictError {}

/** The target was taken as down (transports/availability.ts): what remains is an error, saying why. */
export class TargetDown extends TargetError {}

/** The target cannot be asked this (no such endpoint, credentials or feature configured): skipped. */
export class TargetLacks extends Error {}

/** A prerequisite outside what the spec promises is missing on the target: the verdict is `blocked`. */
export class TargetBlocked extends Error {}

/** A check's expectation did not hold: the verdict is `fail`. */
export class CheckFailure extends VerdictError {
  constructor(
    message: string,
    readonly expected?: unknown,
    readonly actual?: unknown,
    /** Where the matcher that did not hold is written in the check: `['json', '/result/status']`. */
    readonly key?: readonly string[],
  ) {
    super(message);
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const code = (err as { code?: string }).code;
    const base = err.message || err.name;
    if (cause instanceof Error && cause.message && !base.includes(cause.message)) {
      return `${base}: ${cause.message}`;
    }
    return code && !base.includes(code) ? `${base} (${code})` : base;
  }
  return String(err);
}
