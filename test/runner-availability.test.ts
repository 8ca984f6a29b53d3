import { describe, expect, it } from 'vitest';
import { Availability, LOST_IN_A_ROW, RECENT } from '../runner/transports/availability.ts';
import { Traffic } from '../runner/transports/traffic.ts';
import { TargetDown } from '../runner/util/errors.ts';

/** An Availability on a clock the test moves. */
function watch(quietMs = 30_000) {
  let now = 0;
  const a = new Availability(quietMs, () => now);
  const advance = (ms: number) => {
    now += ms;
  };
  return { a, advance };
}

describe('a target is taken as down, and only then', () => {
  it(`after ${LOST_IN_A_ROW} tries in a row lost or throttled; an answer between them starts the count again`, () => {
    const { a } = watch();
    a.note('answered', 'HTTP 200');
    for (let i = 0; i < LOST_IN_A_ROW - 1; i++) a.note(i % 2 ? 'lost' : 'unavailable', 'HTTP 503');
    a.note('answered', 'HTTP 404');
    for (let i = 0; i < LOST_IN_A_ROW - 1; i++) a.note('unavailable', 'HTTP 429');
    expect(a.down).toBeUndefined();
    expect(a.signal.aborted).toBe(false);
    a.note('unavailable', 'HTTP 429 to GET /zones');
    expect(a.down).toMatch(/^target unavailable: 6 tries in a row .*last: HTTP 429 to GET \/zones/);
    expect(a.signal.aborted).toBe(true);
  });

  it('at the first try lost when the target never answered for a whole request timeout', () => {
    const { a, advance } = watch(30_000);
    advance(29_000);
    a.note('lost', 'timeout');
    expect(a.down).toBeUndefined();
    advance(1_000);
    a.note('lost', 'no complete answer within 30000 ms');
    expect(a.down).toMatch(/nothing answered for 30 s/);
  });

  it('once it answered, at two tries in a row lost with nothing answered for a whole timeout, not one', () => {
    const { a, advance } = watch(30_000);
    a.note('answered', 'HTTP 200');
    advance(31_000);
    a.note('lost', 'timeout');
    expect(a.down).toBeUndefined();
    a.note('lost', 'timeout');
    expect(a.down).toMatch(/nothing answered for 31 s, 2 tries in a row/);
  });

  it('a slow target still answering is not down, though one request in four times out', () => {
    const { a, advance } = watch(30_000);
    for (let i = 0; i < 400; i++) {
      advance(10_000);
      a.note(i % 4 === 0 ? 'lost' : 'answered', 'timeout');
    }
    expect(a.down).toBeUndefined();
  });

  it(`when ${Math.ceil(0.4 * RECENT)} or more of the last ${RECENT} tries were, as with a target refusing every other request`, () => {
    const { a } = watch();
    for (let i = 0; i < RECENT - 1; i++) a.note(i % 2 ? 'unavailable' : 'answered', 'HTTP 503');
    expect(a.down).toBeUndefined();
    a.note('unavailable', 'HTTP 503');
    expect(a.down).toMatch(/^target unavailable: 20 of the last 40 tries/);
  });

  it('never for a target throttling one request in five, which retries ride out', () => {
    const { a } = watch();
    for (let i = 0; i < 2000; i++) a.note(i % 5 === 4 ? 'unavailable' : 'answered', 'HTTP 429');
    expect(a.down).toBeUndefined();
  });
});

describe('a run sends nothing more to a target taken as down, but teardown', () => {
  it('refuses a request with TargetDown saying why, and lets teardown through', async () => {
    const t = new Traffic({ timeoutMs: 30_000 });
    for (let i = 0; i < LOST_IN_A_ROW; i++) t.noteTry('unavailable', 'HTTP 502 to GET /x');
    expect(() => t.gate()).toThrow(TargetDown);
    expect(() => t.gate()).toThrow(/^target unavailable: /);
    expect(() => t.gate({ teardown: true })).not.toThrow();
    await expect(t.admit('management', new AbortController().signal)).rejects.toThrow(TargetDown);
  });

  it('ends a wait to retry at once when the target goes down meanwhile', async () => {
    const t = new Traffic({ timeoutMs: 30_000 });
    const started = Date.now();
    const waiting = t.waitToRetry(20_000, 'GET /x', new AbortController().signal);
    setTimeout(() => {
      for (let i = 0; i < LOST_IN_A_ROW; i++) t.noteTry('lost', 'reset');
    }, 50);
    await expect(waiting).rejects.toThrow(TargetDown);
    // Cut, not waited out: the wait was 20 s; half of it allows a loaded machine.
    expect(Date.now() - started).toBeLessThan(10_000);
    // Teardown's wait is not cut.
    const t0 = Date.now();
    await t.waitToRetry(200, 'DELETE /x', new AbortController().signal, true);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
  });
});
