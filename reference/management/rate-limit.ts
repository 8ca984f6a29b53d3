import type { Handler } from '../handler.ts';
import { failure, sendJson } from './envelope.ts';

/** The service's limit on API requests: 1,200 in any five minutes per user. */
export const SERVICE_RATE_LIMIT = { requests: 1200, windowMs: 5 * 60_000 };

/** The code the service answers a throttled call with; SPEC does not show rate limits. */
const THROTTLED_CODE = 971;

export interface RateLimited extends Handler {
  /** Requests refused with 429 so far. */
  refused(): number;
}

/**
 * Enforces a request limit as the service does (`edgecheck serve --enforce-rate-limit`): requests
 * are counted when they arrive; the one past the limit, and every request for one window after it,
 * is refused with 429, the error envelope and `Retry-After`. A single user: the reference has one.
 */
export function limitRequests(
  handler: Handler,
  cap: { requests: number; windowMs: number },
  now: () => number = Date.now,
): RateLimited {
  // Arrival times within the last window, oldest first; `head` skips those that left it.
  const arrivals: number[] = [];
  let head = 0;
  let blockedUntil = 0;
  let refused = 0;
  const limited: RateLimited = Object.assign(
    ((req, res) => {
      const t = now();
      while (head < arrivals.length && arrivals[head] <= t - cap.windowMs) head++;
      if (head > 4096) {
        arrivals.splice(0, head);
        head = 0;
      }
      if (t >= blockedUntil && arrivals.length - head >= cap.requests) blockedUntil = t + cap.windowMs;
      if (t < blockedUntil) {
        refused++;
        res.setHeader('retry-after', String(Math.ceil((blockedUntil - t) / 1000)));
        sendJson(
          res,
          429,
          failure([
            { code: THROTTLED_CODE, message: 'Please wait and consider throttling your request speed' },
          ]),
        );
        req.resume();
        return;
      }
      arrivals.push(t);
      handler(req, res);
    }) as Handler,
    { refused: () => refused },
  );
  return limited;
}
