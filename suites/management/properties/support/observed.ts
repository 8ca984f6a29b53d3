import type { ObservedView, Observer } from 'edgecheck/kit';
import type { Envelope } from './envelope.ts';

/*
 * What the management observers read of an exchange seen in traffic (edgecheck proxy, judge): the
 * JSON the request sent, and the envelope answered.
 */

/** The request body parsed as JSON, or undefined where there was none, it was cut, or it is no JSON. */
export function sentJson(ex: ObservedView): Record<string, unknown> | undefined {
  if (!ex.requestBody?.length) return undefined;
  try {
    const body: unknown = JSON.parse(ex.requestBody.toString('utf8'));
    return body && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The envelope answered, or undefined where the answer is none (its shape is the envelope clauses'). */
export function answeredEnvelope(ex: ObservedView): Envelope | undefined {
  const env = ex.json() as Envelope | undefined;
  return env && typeof env === 'object' && typeof env.success === 'boolean' ? env : undefined;
}

/** The envelope of an answer 2xx that succeeded, else undefined. */
export function succeeded(ex: ObservedView): Envelope | undefined {
  if (ex.status < 200 || ex.status >= 300 || ex.status === 204) return undefined;
  const env = answeredEnvelope(ex);
  return env?.success === true ? env : undefined;
}

/**
 * An observer of requests a clause says must be refused: `forbidden` says why an exchange's request
 * is one (undefined for any other), and `judge` (the check a run makes of the same answer) throws
 * where the answer does not refuse it. A refusal leaves the clause unjudged: without the request's
 * valid twin accepted beside it, it proves nothing.
 */
export function refusalObserver(
  forbidden: (ex: ObservedView) => string | undefined,
  judge: (env: Envelope, what: string, why: string) => void,
): Observer {
  return (ex) => {
    if (ex.door !== 'management') return undefined;
    const why = forbidden(ex);
    if (why === undefined) return undefined;
    const env = answeredEnvelope(ex);
    if (env) judge(env, `${ex.method} ${ex.path} (answered ${ex.status})`, why);
    return false;
  };
}
