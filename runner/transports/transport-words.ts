import { errorMessage } from '../util/errors.ts';

/*
 * A connection that ended without an answer, in words about the target. Node and undici name
 * these after the system call that noticed (`write EPIPE`, `read ECONNRESET`, `socket hang up`,
 * `other side closed`); which one did is chance, and none says what the target did.
 */
const WORDS: Record<string, string> = {
  EPIPE: 'the target closed the connection before the request was sent',
  ECONNRESET: 'the target reset the connection without an answer',
  UND_ERR_SOCKET: 'the target closed the connection without an answer',
  ECONNREFUSED: 'the target refused the connection',
  ENOTFOUND: "the target's host name does not resolve",
  EAI_AGAIN: "the target's host name could not be resolved now",
  ETIMEDOUT: 'the connection to the target timed out',
  EHOSTUNREACH: "the target's host is unreachable",
};

/** The error's system code, from it or its causes. */
function codeOf(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code in WORDS) return code;
  }
  return undefined;
}

/** Whether `err` is a connection that failed (reset, refused, closed), not an answer or a bug. */
export function isTransportFailure(err: unknown): boolean {
  return codeOf(err) !== undefined || /^socket hang up/.test(errorMessage(err));
}

/** What a transport failure means, with the system's code for whoever diagnoses it. */
export function transportMessage(err: unknown): string {
  const code = codeOf(err);
  if (!code) {
    const text = errorMessage(err);
    return /^socket hang up/.test(text) ? `${WORDS.UND_ERR_SOCKET} (socket hang up)` : text;
  }
  return `${WORDS[code]} (${code})`;
}
