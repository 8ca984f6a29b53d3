import type { CollectedBody } from '../transports/response.ts';

/** One request and its answer as seen passing (the proxy) or recorded (a HAR file). */
export interface ObservedExchange {
  door: 'management' | 's3';
  request: {
    method: string;
    /** Path and query as sent, `/client/v4/zones?page=2`. */
    target: string;
    /** Lower-case names. */
    headers: Record<string, string>;
    /** The body as sent, kept to the cap and cut there (`cut`); absent when there was none. */
    body?: CollectedBody;
  };
  response: {
    status: number;
    /** Lower-case names; repeated headers joined with ', '. */
    headers: Record<string, string>;
    /** Kept up to the cap, hashed beyond it (transports/response.ts). */
    body: CollectedBody;
  };
  /** When the request started (ISO 8601), where known. */
  startedAt?: string;
  /**
   * The same instant in milliseconds since the epoch, below the millisecond, where the recorder knew
   * it: ISO 8601 stops at the millisecond, and two exchanges one after the other often fall in one.
   */
  startedAtMs?: number;
  /** From the request's start until its answer was whole, in milliseconds, where known. */
  durationMs?: number;
  /**
   * The proxy signed the request again before it went on (--resign), for this region: the target
   * checked the proxy's signature and date, not the client's, and an unsigned request went signed.
   */
  resigned?: { region: string };
}

/** The management API's prefix: requests under it go through the management door. */
export const MANAGEMENT_PREFIX = '/client/v4';

/** Which door a request went through, from its path: the management API's prefix, else S3. */
export function doorOf(path: string): ObservedExchange['door'] {
  return path === MANAGEMENT_PREFIX || path.startsWith(`${MANAGEMENT_PREFIX}/`) ? 'management' : 's3';
}
