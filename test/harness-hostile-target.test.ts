import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type HostileMode,
  type HostileOptions,
  type HostileTarget,
  SUCCESS_ENVELOPE,
  startHostileTarget,
} from './helpers/hostile-target.ts';

// The hostile target plays each broken target as the runs against it assume, never writes ahead
// of its reader (so its own memory stays flat), and its close() ends even the endless answers.

/** One raw exchange with a hostile target: reads at most `maxBytes`, for at most `timeoutMs` in all. */
function probe(url: string, maxBytes = 1 << 20, timeoutMs = 3000) {
  const out = {
    status: undefined as number | undefined,
    headers: {} as Record<string, unknown>,
    head: '',
    bytes: 0,
    ended: false,
    error: undefined as string | undefined,
  };
  return new Promise<typeof out>((resolve) => {
    const req = request(`${url}/client/v4/zones/z`, (res) => {
      out.status = res.statusCode;
      out.headers = res.headers;
      res.on('data', (c: Buffer) => {
        if (out.head.length < 512) out.head += c.subarray(0, 512).toString('latin1');
        out.bytes += c.length;
        if (out.bytes >= maxBytes) req.destroy();
      });
      res.on('end', () => {
        out.ended = true;
      });
      res.on('error', (e) => {
        out.error ??= e.message;
      });
      res.on('close', () => {
        clearTimeout(timer);
        resolve(out);
      });
    });
    const timer = setTimeout(() => req.destroy(new Error('probe deadline')), timeoutMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      out.error ??= e.message;
      resolve(out);
    });
    req.end();
  });
}

describe('the hostile target plays each broken target', () => {
  const open: HostileTarget[] = [];
  const start = async (mode: HostileMode, options?: HostileOptions) => {
    const t = await startHostileTarget(mode, options);
    open.push(t);
    return t;
  };
  afterAll(async () => {
    await Promise.all(open.map((t) => t.close()));
  });

  it('reset, truncated, garbage and html', async () => {
    const reset = await start('reset');
    expect(reset.firstRequestAt).toBeUndefined();
    const before = Date.now();
    expect((await probe(reset.url)).error).toMatch(/ECONNRESET|socket hang up/);
    expect(reset.requests).toBe(1);
    expect(reset.firstRequestAt).toBeGreaterThanOrEqual(before);

    const truncated = await probe((await start('truncated')).url);
    expect(truncated).toMatchObject({ status: 200, bytes: 10, ended: false });

    const garbage = await probe((await start('garbage')).url);
    expect(garbage).toMatchObject({ status: 200, ended: true });
    expect(garbage.headers['content-type']).toBeUndefined();

    const html = await probe((await start('html', { htmlStatus: 502 })).url);
    expect(html.status).toBe(502);
    expect(html.headers['content-type']).toMatch(/text\/html/);
  });

  it('slow sends a byte a second; endless and huge send as much as the client reads', async () => {
    const slow = await probe((await start('slow')).url, 1 << 20, 2500);
    expect(slow.status).toBe(200);
    expect(slow.bytes).toBeGreaterThanOrEqual(2);
    expect(slow.bytes).toBeLessThanOrEqual(4);
    expect(slow.error).toMatch(/deadline|aborted/);

    const endless = await start('endless');
    expect((await probe(endless.url, 8 << 20)).bytes).toBeGreaterThanOrEqual(8 << 20);
    // What the server wrote is what the client read plus what the sockets buffer (Linux lets a
    // loopback receive buffer grow to 32 MiB): bounded, where a server not waiting for its reader
    // would write without end.
    expect(endless.bytesSent).toBeLessThan(64 << 20);

    const huge = await start('huge', { hugeBytes: 4 << 20 });
    const h = await probe(huge.url, 8 << 20);
    expect(h).toMatchObject({ status: 200, bytes: 4 << 20, ended: true });
    expect(h.headers['content-length']).toBe(String(4 << 20));
  });

  it('close() ends open answers at once', async () => {
    const t = await startHostileTarget('slow');
    const pending = probe(t.url, 1 << 20, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await t.close();
    const r = await pending;
    // Not waited out: the slow answer would run to the probe's 10 s; half of it allows a loaded machine.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r).toMatchObject({ status: 200, ended: false });
    expect(t.requests).toBe(1);
  });

  it('status-429 and status-503 answer that status with Retry-After: 1', async () => {
    for (const mode of ['status-429', 'status-503'] as const) {
      const r = await probe((await start(mode)).url);
      expect(r.status).toBe(mode === 'status-429' ? 429 : 503);
      expect(r.headers['retry-after']).toBe('1');
    }
  });

  it('silent takes the request and never answers; flaky-503 refuses every other request', async () => {
    const silent = await start('silent');
    const r = await probe(silent.url, 1 << 20, 1500);
    expect(r.error).toMatch(/deadline|aborted/);
    expect(silent.requests).toBe(1);

    const flaky = await start('flaky-503');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await probe(flaky.url)).status);
    expect(statuses).toEqual([503, 200, 503, 200]);
  });

  it('rate-limited answers success within the window, then 429 with RateLimit headers, and counts them', async () => {
    const t = await start('rate-limited', { limit: 3, windowMs: 60_000 });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await probe(t.url));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
    expect(answers[0].headers['ratelimit-policy']).toBe('"default";q=3;w=60');
    expect(answers[0].headers.ratelimit).toMatch(/^"default";r=2;t=\d+$/);
    expect(answers[4].headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
    expect(t.requests).toBe(5);
    expect(t.throttled).toBe(2);
    expect(answers[0].head).toBe(SUCCESS_ENVELOPE);

    const quiet = await start('rate-limited', { limit: 1, windowMs: 60_000, announce: false });
    const [first, second] = [await probe(quiet.url), await probe(quiet.url)];
    expect([first.status, second.status]).toEqual([200, 429]);
    expect(second.headers['retry-after']).toMatch(/^\d+$/);
    expect(Object.keys(first.headers).filter((h) => h.startsWith('ratelimit'))).toEqual([]);
  });
});
