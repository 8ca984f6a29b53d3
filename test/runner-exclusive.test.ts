import { describe, expect, it } from 'vitest';
import { ExclusiveLocks } from '../runner/run/exclusive.ts';

/** Work that records how many holders of each name overlap. */
function tracker() {
  const active = new Map<string, number>();
  const peak = new Map<string, number>();
  return {
    peak,
    work: (names: string[]) => async () => {
      for (const n of names) {
        active.set(n, (active.get(n) ?? 0) + 1);
        peak.set(n, Math.max(peak.get(n) ?? 0, active.get(n)!));
      }
      await new Promise((r) => setTimeout(r, 5));
      for (const n of names) active.set(n, active.get(n)! - 1);
      return names.join('+');
    },
  };
}

describe('exclusive: cases naming the same shared state never overlap', () => {
  it('serialises holders of one name and leaves other names parallel', async () => {
    const locks = new ExclusiveLocks();
    const t = tracker();
    const all = await Promise.all([
      locks.run(['zone.security_level'], t.work(['zone.security_level'])),
      locks.run(['zone.security_level'], t.work(['zone.security_level'])),
      locks.run(['zone.security_level'], t.work(['zone.security_level'])),
      locks.run(['zone.dns_settings'], t.work(['zone.dns_settings'])),
      Promise.resolve().then(t.work(['free'])),
      Promise.resolve().then(t.work(['free'])),
    ]);
    expect(all).toHaveLength(6);
    expect(t.peak.get('zone.security_level')).toBe(1);
    // Work without a name is not held back: both ran at once.
    expect(t.peak.get('free')).toBe(2);
  });

  it('takes overlapping sets in one order, so they cannot deadlock', async () => {
    const locks = new ExclusiveLocks();
    const t = tracker();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => locks.run(i % 2 ? ['a', 'b'] : ['b', 'a'], t.work(['a', 'b']))),
    );
    expect(t.peak.get('a')).toBe(1);
    expect(t.peak.get('b')).toBe(1);
  });

  it('releases the names when the work throws', async () => {
    const locks = new ExclusiveLocks();
    await expect(locks.run(['x'], async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(locks.run(['x'], async () => 'after')).resolves.toBe('after');
  });
});
