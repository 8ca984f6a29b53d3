import { setTimeout as sleep } from 'node:timers/promises';
import { TargetDown, TargetError, TargetLacks } from '../util/errors.ts';
import { Availability, type TryOutcome } from './availability.ts';

/** Which door of the target a request goes through: rate caps and counts are kept per door. */
export type Door = 'management' | 's3';

/** Statuses that say the target is struggling, not that it broke the spec. */
export const UNAVAILABLE = new Set([429, 502, 503, 504]);
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

export interface RateCap {
  requests: number;
  windowMs: number;
}

/** A wait long enough to tell the user about: the run is paced, not hung. */
export interface Pause {
  door: Door;
  /** Why it waits: the run's rate cap, the target's RateLimit header, or a 429's Retry-After. */
  cause: 'rate-cap' | 'announced' | 'retry-after';
  /** For `rate-cap`: requests in the current window, and the cap. */
  inWindow?: number;
  limit?: number;
  windowMs?: number;
  /** When the next request may go (epoch ms). */
  resumeAt: number;
}

/** Waits from this long on are reported, once per pause (RunEvent `pacing`). */
export const PAUSE_REPORTED_FROM_MS = 2000;

export interface TrafficOptions {
  /** The run's request timeout: tries lost with nothing answered for this long mean a target down. */
  timeoutMs?: number;
  /** Hears each pause of PAUSE_REPORTED_FROM_MS or more, once per pause and door. */
  onPause?: (pause: Pause) => void;
  /** At most this many requests start within any window, per door (management only by default). */
  rateCap?: Partial<Record<Door, RateCap>>;
  /** Requests the run may send in all, teardown included; new cases stop starting before it is crossed. */
  budget?: number;
  /** Retries of a throttled or unavailable answer (default 3). */
  retries?: number;
  /** The longest wait between tries; a Retry-After beyond it is not waited for (default 30 s). */
  maxRetryWaitMs?: number;
}

/** The budget would be crossed: what remains is skipped, with this as the reason. */
export class BudgetReached extends TargetLacks {}

/** Requests a case may still send under its reservation. */
export interface Reservation {
  estimate: number;
  used: number;
}

/**
 * Sliding-window limiter. The target counts a request when it arrives, some time between its start
 * and its answer, so a request holds its place from its start until one window after its answer:
 * then no window of the target's can hold more than `requests` of them, however late each arrived.
 */
class Window {
  /** Answer times of requests answered within the last window; in-flight ones are counted apart. */
  private readonly ends: number[] = [];
  private inFlight = 0;
  /** Wakes an admission waiting for a request in flight to be answered. */
  private readonly answered = new EventTarget();
  /** Set from the target's RateLimit header: no start before this time. */
  private pausedUntil = 0;
  /** Remaining requests the target last announced, counted down as requests start. */
  private announced?: { remaining: number; resetAt: number };
  /** Until when the pause last reported lasts: waits within it are the same pause. */
  private reportedUntil = 0;
  constructor(
    private cap: RateCap | undefined,
    private readonly onPause?: (pause: Omit<Pause, 'door'>) => void,
  ) {}

  tighten(cap: RateCap): void {
    const current = this.cap ? this.cap.requests / this.cap.windowMs : Number.POSITIVE_INFINITY;
    if (cap.requests / cap.windowMs < current) this.cap = cap;
  }

  announce(remaining: number, resetMs: number): void {
    this.announced = { remaining, resetAt: Date.now() + resetMs };
  }

  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
  }

  /** One more request now, when nothing makes it wait (most requests): the function that marks it answered. */
  admitNow(): (() => void) | undefined {
    const { wait, forAnswer } = this.waitFor(Date.now());
    return wait <= 0 && !forAnswer ? this.take() : undefined;
  }

  /** Resolves when one more request may start; the returned function marks it answered. */
  async admit(signal: AbortSignal): Promise<() => void> {
    for (;;) {
      const now = Date.now();
      const { wait, forAnswer, cause } = this.waitFor(now);
      if (wait <= 0 && !forAnswer) break;
      if (wait >= PAUSE_REPORTED_FROM_MS) this.report(now, wait, cause);
      if (forAnswer) await this.nextAnswer(signal);
      else await sleep(wait, undefined, { signal });
    }
    return this.take();
  }

  /** How long a request starting at `now` must wait, or whether it waits for an answer in flight. */
  private waitFor(now: number): { wait: number; forAnswer: boolean; cause: Pause['cause'] } {
    let wait = this.pausedUntil - now;
    let cause: Pause['cause'] = 'retry-after';
    if (this.announced && now < this.announced.resetAt && this.announced.remaining <= 0) {
      if (this.announced.resetAt - now > wait) cause = 'announced';
      wait = Math.max(wait, this.announced.resetAt - now);
    }
    let forAnswer = false;
    if (this.cap) {
      const { requests, windowMs } = this.cap;
      while (this.ends.length && this.ends[0] <= now - windowMs) this.ends.shift();
      if (this.ends.length + this.inFlight >= requests) {
        // The place that frees first: the oldest answer's, or else an answer still to come.
        const need = this.ends.length + this.inFlight - requests + 1;
        if (need <= this.ends.length) {
          const free = this.ends[need - 1] + windowMs - now;
          if (free > wait) cause = 'rate-cap';
          wait = Math.max(wait, free);
        } else forAnswer = true;
      }
    }
    return { wait, forAnswer, cause };
  }

  /** Tells of a long wait, unless it is part of the pause already told of. */
  private report(now: number, wait: number, cause: Pause['cause']): void {
    if (!this.onPause || now < this.reportedUntil) return;
    const resumeAt = now + wait;
    this.reportedUntil = resumeAt;
    const window =
      cause === 'rate-cap' && this.cap
        ? {
            inWindow: this.ends.length + this.inFlight,
            limit: this.cap.requests,
            windowMs: this.cap.windowMs,
          }
        : {};
    this.onPause({ cause, ...window, resumeAt });
  }

  /** Counts one request as started under the window. */
  private take(): () => void {
    if (this.announced) this.announced.remaining -= 1;
    if (!this.cap) return () => {};
    this.inFlight += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.inFlight -= 1;
      this.ends.push(Date.now());
      this.answered.dispatchEvent(new Event('answer'));
    };
  }

  /** Waits for an answer to a request in flight; the caller then looks again. */
  private nextAnswer(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const finish = () => {
        signal.removeEventListener('abort', stop);
        resolve();
      };
      const stop = () => {
        this.answered.removeEventListener('answer', finish);
        reject(signal.reason);
      };
      if (signal.aborted) return stop();
      this.answered.addEventListener('answer', finish, { once: true });
      signal.addEventListener('abort', stop, { once: true });
    });
  }
}

/** Parses `Retry-After` (seconds or an HTTP date) into milliseconds. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The IETF httpapi rate-limit headers, both drafts in use: `RateLimit: "default";r=50;t=30` with
 * `RateLimit-Policy: "default";q=100;w=60`, and the older `RateLimit-Remaining` / `-Reset` /
 * `RateLimit-Limit` with a policy of `100;w=60`.
 */
export function readRateLimit(headers: Record<string, string>): {
  remaining?: number;
  resetMs?: number;
  policy?: RateCap;
} {
  const param = (text: string | undefined, name: string): number | undefined => {
    const m = text && new RegExp(`(?:^|[;,\\s])${name}=(\\d+)`).exec(text);
    return m ? Number(m[1]) : undefined;
  };
  const rl = headers.ratelimit;
  const remaining = param(rl, 'r') ?? param(rl, 'remaining') ?? num(headers['ratelimit-remaining']);
  const reset = param(rl, 't') ?? param(rl, 'reset') ?? num(headers['ratelimit-reset']);
  const policyText = headers['ratelimit-policy'];
  const q = param(policyText, 'q') ?? num(policyText?.split(';')[0]);
  const w = param(policyText, 'w');
  return {
    remaining,
    resetMs: reset === undefined ? undefined : reset * 1000,
    policy:
      q !== undefined && w !== undefined && q > 0 && w > 0 ? { requests: q, windowMs: w * 1000 } : undefined,
  };
}

function num(v: string | undefined): number | undefined {
  if (v === undefined || !/^\s*\d+\s*$/.test(v)) return undefined;
  return Number(v);
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
}

export interface TrafficCounts {
  total: number;
  management: number;
  s3: number;
  /** Tries repeated after a throttled or unavailable answer. */
  retried: number;
  /** Answers with 429. */
  throttled: number;
}

/**
 * The run's manners towards its target: paces requests under the rate caps and what the target
 * announces, keeps the request budget, retries throttled answers with backoff, and counts.
 */
export class Traffic {
  readonly counts: TrafficCounts = { total: 0, management: 0, s3: 0, retried: 0, throttled: 0 };
  /** Whether the target still answers; once it is down no request but teardown's is sent. */
  readonly availability: Availability;
  private readonly windows: Record<Door, Window>;
  private readonly reservations = new Set<Reservation>();
  readonly retries: number;
  readonly maxRetryWaitMs: number;
  readonly budget?: number;

  constructor(options: TrafficOptions = {}) {
    const heard = (door: Door) =>
      options.onPause && ((pause: Omit<Pause, 'door'>) => options.onPause?.({ door, ...pause }));
    this.windows = {
      management: new Window(options.rateCap?.management, heard('management')),
      s3: new Window(options.rateCap?.s3, heard('s3')),
    };
    this.availability = new Availability(options.timeoutMs);
    this.budget = options.budget;
    this.retries = options.retries ?? 3;
    this.maxRetryWaitMs = options.maxRetryWaitMs ?? 30_000;
  }

  /**
   * Reserves a case's estimated requests. Undefined when they would cross the budget with what
   * was sent and what running cases still hold: the case then does not start.
   */
  reserve(estimate: number): Reservation | undefined {
    const r: Reservation = { estimate, used: 0 };
    if (this.budget === undefined) return r;
    let held = 0;
    for (const o of this.reservations) held += Math.max(0, o.estimate - o.used);
    if (this.counts.total + held + estimate > this.budget) return undefined;
    this.reservations.add(r);
    return r;
  }

  release(r: Reservation | undefined): void {
    if (r) this.reservations.delete(r);
  }

  /**
   * Refuses a request that would cross the budget, or go to a target taken as down. Teardown always
   * goes: leaving things behind is worse.
   */
  gate(opts: { teardown?: boolean } = {}): void {
    if (opts.teardown) return;
    this.refuseIfDown();
    if (this.budget !== undefined && this.counts.total >= this.budget) {
      throw new BudgetReached(`the request budget of ${this.budget} is spent`);
    }
  }

  /** Throws TargetDown once the target is taken as down. */
  refuseIfDown(): void {
    const down = this.availability.down;
    if (down) throw new TargetDown(down);
  }

  /**
   * Waits `ms` before trying again. The wait ends early when `signal` aborts, and (but for
   * teardown's) when the target is taken as down, which throws TargetDown: nothing is tried again.
   */
  async waitToRetry(ms: number, what: string, signal?: AbortSignal, teardown = false): Promise<void> {
    const signals = [signal, teardown ? undefined : this.availability.signal].filter(
      (x): x is AbortSignal => x !== undefined,
    );
    try {
      await sleep(ms, undefined, { signal: AbortSignal.any(signals) });
    } catch {
      if (!teardown) this.refuseIfDown();
      throw new TargetError(`${what}: aborted while waiting to retry`);
    }
  }

  /** How a try ended: the target is taken as down after enough lost or throttled ones. */
  noteTry(outcome: TryOutcome, what: string): void {
    this.availability.note(outcome, what);
  }

  /**
   * Waits for a slot under the rate caps, then counts the request as sent. The returned function
   * is called once the request is answered (or failed): its place in the window runs from then.
   */
  async pace(door: Door, signal: AbortSignal, reservation?: Reservation): Promise<() => void> {
    const answered = await this.windows[door].admit(signal);
    this.count(door, reservation);
    return answered;
  }

  private count(door: Door, reservation?: Reservation): void {
    this.counts.total += 1;
    this.counts[door] += 1;
    if (reservation) reservation.used += 1;
  }

  /**
   * admit without waiting, when no cap or pause holds the request back: undefined otherwise (then
   * admit waits). Spares most requests the promises of a wait that does not happen.
   */
  admitNow(
    door: Door,
    opts: { teardown?: boolean; reservation?: Reservation } = {},
  ): (() => void) | undefined {
    this.gate(opts);
    const answered = this.windows[door].admitNow();
    if (answered) this.count(door, opts.reservation);
    return answered;
  }

  async admit(
    door: Door,
    signal: AbortSignal,
    opts: { teardown?: boolean; reservation?: Reservation } = {},
  ): Promise<() => void> {
    this.gate(opts);
    // A wait for pacing ends when the target goes down; teardown's goes on.
    const waiting = opts.teardown ? signal : AbortSignal.any([signal, this.availability.signal]);
    try {
      return await this.pace(door, waiting, opts.reservation);
    } catch (err) {
      if (!opts.teardown) this.refuseIfDown();
      throw err;
    }
  }

  /** Learns from an answer: the target's announced limits, and throttling. */
  observe(door: Door, answer: Answer): void {
    const rl = readRateLimit(answer.headers);
    const w = this.windows[door];
    if (rl.policy) w.tighten(rl.policy);
    if (rl.remaining !== undefined && rl.resetMs !== undefined) w.announce(rl.remaining, rl.resetMs);
    if (answer.status === 429) {
      this.counts.throttled += 1;
      const after = retryAfterMs(answer.headers['retry-after']);
      if (after !== undefined) w.pause(Math.min(after, this.maxRetryWaitMs));
    }
  }

  /**
   * How long to wait before trying again, or undefined when the answer stands: 429 is retried for
   * any method (the target did not act on it), 502/503/504 only for idempotent methods.
   */
  retryDelay(method: string, answer: Answer, attempt: number): number | undefined {
    if (attempt >= this.retries || !UNAVAILABLE.has(answer.status)) return undefined;
    if (answer.status !== 429 && !IDEMPOTENT.has(method.toUpperCase())) return undefined;
    const hinted = retryAfterMs(answer.headers['retry-after']);
    if (hinted !== undefined && hinted > this.maxRetryWaitMs) return undefined;
    // Exponential backoff with full jitter, at least what the target asked for.
    const backoff = Math.random() * Math.min(this.maxRetryWaitMs, 500 * 2 ** attempt);
    return Math.max(hinted ?? 0, backoff);
  }
}

/** `1000/5m`, `20/2s`, `off`: a rate cap as a flag or config value writes it. */
export function parseRateCap(text: string): RateCap | 'off' | undefined {
  if (text === 'off') return 'off';
  const m = /^(\d+)\/(\d*)(ms|s|m|h)$/.exec(text.trim());
  if (!m) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[3] as 'ms' | 's' | 'm' | 'h'];
  const requests = Number(m[1]);
  const windowMs = Number(m[2] || 1) * unit;
  return requests > 0 && windowMs > 0 ? { requests, windowMs } : undefined;
}
