import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../runner/model/results.ts';
import {
  type Pause,
  parseRateCap,
  readRateLimit,
  retryAfterMs,
  Traffic,
} from '../runner/transports/traffic.ts';
import { runInThread } from './helpers/in-thread.ts';

const never = new AbortController().signal;

// At once, as the pauses below: each waits on timers of its own, and the one upper bound is far off.
describe.concurrent('traffic: pacing under a rate cap', () => {
  it('starts at most N requests in any window, and the N+1th only a window after the first was answered', async () => {
    const t = new Traffic({ rateCap: { management: { requests: 3, windowMs: 300 } } });
    const started: number[] = [];
    const t0 = Date.now();
    // Each request is answered at once: the N+1th then waits a window from the first's start.
    await Promise.all(
      Array.from({ length: 7 }, () =>
        t.admit('management', never).then((answered) => {
          started.push(Date.now() - t0);
          answered();
        }),
      ),
    );
    started.sort((a, b) => a - b);
    // Any window of 300 ms holds at most 3 starts.
    for (let i = 3; i < started.length; i++) expect(started[i] - started[i - 3]).toBeGreaterThanOrEqual(298);
    expect(started[6]).toBeGreaterThanOrEqual(598);
    expect(t.counts).toMatchObject({ total: 7, management: 7, s3: 0 });
  });

  it('holds a place until a window after the answer: a target counting arrivals late still sees at most N', async () => {
    const t = new Traffic({ rateCap: { management: { requests: 1, windowMs: 200 } } });
    const t0 = Date.now();
    const first = await t.admit('management', never);
    // The first request is slow to be answered: no second may start while it is in flight...
    let second: number | undefined;
    const waiting = t.admit('management', never).then((answered) => {
      second = Date.now() - t0;
      answered();
    });
    await new Promise((r) => setTimeout(r, 400));
    expect(second).toBeUndefined();
    // ...nor within a window of its answer, since the target may have counted it that late.
    const answeredAt = Date.now() - t0;
    first();
    await waiting;
    expect(second!).toBeGreaterThanOrEqual(answeredAt + 198);
  });

  it('leaves the other door unpaced', async () => {
    const t = new Traffic({ rateCap: { management: { requests: 1, windowMs: 10_000 } } });
    const t0 = Date.now();
    for (let i = 0; i < 20; i++) await t.admit('s3', never);
    // Paced, 20 requests would take 190 s: a bound far from it and from a loaded machine's delays.
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('adopts a stricter RateLimit-Policy the target announces, and waits out RateLimit remaining 0', async () => {
    const t = new Traffic();
    t.observe('management', { status: 200, headers: { 'ratelimit-policy': '"default";q=2;w=1' } });
    t.observe('management', { status: 200, headers: { ratelimit: '"default";r=0;t=1' } });
    const t0 = Date.now();
    await t.admit('management', never);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it('a wait for a slot ends when the run stops', async () => {
    const t = new Traffic({ rateCap: { management: { requests: 1, windowMs: 60_000 } } });
    await t.admit('management', never);
    const stop = new AbortController();
    const waiting = t.admit('management', stop.signal);
    stop.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow();
  });
});

describe('traffic: the request budget', () => {
  it('reserves a case only while what was sent plus what running cases hold stays within it', async () => {
    const t = new Traffic({ budget: 10 });
    const a = t.reserve(6)!;
    expect(a).toBeDefined();
    expect(t.reserve(5)).toBeUndefined();
    for (let i = 0; i < 6; i++) await t.admit('management', never, { reservation: a });
    t.release(a);
    expect(t.reserve(4)).toBeDefined();
    expect(t.reserve(1)).toBeUndefined();
  });

  it('refuses a request past the budget, but never a teardown request', async () => {
    const t = new Traffic({ budget: 2 });
    await t.admit('s3', never);
    await t.admit('s3', never);
    await expect(t.admit('s3', never)).rejects.toThrow('the request budget of 2 is spent');
    await t.admit('s3', never, { teardown: true });
    expect(t.counts.total).toBe(3);
  });
});

describe('traffic: retries', () => {
  const t = new Traffic({ retries: 2, maxRetryWaitMs: 5000 });
  const answer = (status: number, headers: Record<string, string> = {}) => ({ status, headers });

  it('retries 429 for any method and 502/503/504 only for idempotent ones', () => {
    expect(t.retryDelay('POST', answer(429), 0)).toBeTypeOf('number');
    expect(t.retryDelay('POST', answer(503), 0)).toBeUndefined();
    for (const s of [502, 503, 504]) expect(t.retryDelay('GET', answer(s), 0)).toBeTypeOf('number');
    expect(t.retryDelay('GET', answer(500), 0)).toBeUndefined();
    expect(t.retryDelay('GET', answer(404), 0)).toBeUndefined();
  });

  it('waits at least what Retry-After asks, and stops after the retries or past the longest wait', () => {
    expect(t.retryDelay('GET', answer(503, { 'retry-after': '2' }), 0)).toBeGreaterThanOrEqual(2000);
    expect(t.retryDelay('GET', answer(503), 2)).toBeUndefined();
    expect(t.retryDelay('GET', answer(429, { 'retry-after': '60' }), 0)).toBeUndefined();
  });
});

describe('traffic: header and flag formats', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });

  it('reads both drafts of the RateLimit headers', () => {
    expect(
      readRateLimit({ ratelimit: '"default";r=50;t=30', 'ratelimit-policy': '"default";q=100;w=60' }),
    ).toEqual({ remaining: 50, resetMs: 30_000, policy: { requests: 100, windowMs: 60_000 } });
    expect(
      readRateLimit({ 'ratelimit-remaining': '7', 'ratelimit-reset': '2', 'ratelimit-policy': '10;w=5' }),
    ).toEqual({ remaining: 7, resetMs: 2000, policy: { requests: 10, windowMs: 5000 } });
    expect(readRateLimit({})).toEqual({ remaining: undefined, resetMs: undefined, policy: undefined });
  });

  it('parses rate caps as flags write them', () => {
    expect(parseRateCap('1000/5m')).toEqual({ requests: 1000, windowMs: 300_000 });
    expect(parseRateCap('20/2s')).toEqual({ requests: 20, windowMs: 2000 });
    expect(parseRateCap('5/s')).toEqual({ requests: 5, windowMs: 1000 });
    expect(parseRateCap('off')).toBe('off');
    for (const bad of ['0/5m', '10', '10/5x', '-1/5m']) expect(parseRateCap(bad)).toBeUndefined();
  });
});

// At once: each waits out pauses of seconds on timers of its own, and none asserts an upper bound.
describe.concurrent('traffic: long pauses are told, once per pause', () => {
  it('reports a wait of two seconds or more under the cap once, with the window and when the next request goes', async () => {
    const pauses: Pause[] = [];
    const t = new Traffic({
      rateCap: { management: { requests: 2, windowMs: 2800 } },
      onPause: (p) => pauses.push(p),
    });
    const t0 = Date.now();
    // Two go at once; the next two wait for the same window (one pause); the fifth waits a second one.
    await Promise.all(
      Array.from({ length: 5 }, () => t.admit('management', never).then((answered) => answered())),
    );
    expect(pauses).toHaveLength(2);
    expect(pauses[0]).toMatchObject({
      door: 'management',
      cause: 'rate-cap',
      inWindow: 2,
      limit: 2,
      windowMs: 2800,
    });
    expect(pauses[0].resumeAt - t0).toBeGreaterThanOrEqual(2750);
    expect(pauses[1].resumeAt).toBeGreaterThan(pauses[0].resumeAt + 2000);
  }, 15_000);

  it('tells nothing of short waits', async () => {
    const pauses: Pause[] = [];
    const t = new Traffic({
      rateCap: { s3: { requests: 2, windowMs: 300 } },
      onPause: (p) => pauses.push(p),
    });
    for (let i = 0; i < 6; i++) (await t.admit('s3', never))();
    expect(pauses).toEqual([]);
  });

  it("names the target's Retry-After as the cause of a pause it asked for", async () => {
    const pauses: Pause[] = [];
    const t = new Traffic({ onPause: (p) => pauses.push(p) });
    // Three seconds: a slow machine's delay before admit still leaves a wait past the two reported.
    t.observe('s3', { status: 429, headers: { 'retry-after': '3' } });
    (await t.admit('s3', never))();
    expect(pauses).toMatchObject([{ door: 's3', cause: 'retry-after' }]);
  });
});

describe('traffic: a run tells its reporters of each pause', () => {
  it('emits a pacing event with the window when --rate-limit holds requests back', async () => {
    const events: RunEvent[] = [];
    // The case sends 18 requests one after another: half go in the first window and the rest wait
    // for one pause, told since eight round trips leave over 2 s of a 3 s window (4 per 2.2 s
    // waited four windows for the same event).
    const cap = { requests: 9, windowMs: 3000 };
    const results = await runInThread({
      suites: ['deprecations'],
      cases: ['dep.threat-score.*'],
      rateLimit: cap,
      reporters: [{ onEvent: (e) => void events.push(e), close: async () => {} }],
    });
    expect(results.requests?.management).toBeGreaterThan(cap.requests);
    const pacing = events.filter((e) => e.type === 'pacing');
    expect(pacing.length).toBeGreaterThan(0);
    expect(pacing[0]).toMatchObject({
      door: 'management',
      cause: 'rate-cap',
      inWindow: cap.requests,
      limit: cap.requests,
    });
    expect(Date.parse(pacing[0].type === 'pacing' ? pacing[0].resumeAt : '')).toBeGreaterThan(0);
  }, 60_000);
});
