import { afterEach, describe, expect, it, vi } from 'vitest';
import { Interrupts } from '../cli/interrupts.ts';
import { Outstanding } from '../runner/api.ts';

// A Ctrl-C that lands after the run has finished and written its report must not turn a passing run
// into a killed one: until the process ends it exits with the run's own code.
describe('a signal after the run', () => {
  // The worker runs other files after this one: only the listeners these tests added are removed.
  const theirs = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  // Only the listeners these tests added hear the signal: process.emit would also call those other
  // files left in this worker, which may act on it for real.
  const signalOurs = (signal: 'SIGINT' | 'SIGTERM') => {
    for (const l of process.listeners(signal)) if (!theirs[signal].includes(l)) l(signal);
  };
  afterEach(() => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      for (const l of process.listeners(signal)) if (!theirs[signal].includes(l)) process.off(signal, l);
    }
  });

  it.each([
    ['SIGINT', 0],
    ['SIGTERM', 1],
  ] as const)('%s exits with the run code %i once the run is released', (signal, code) => {
    const interrupts = new Interrupts(new Outstanding());
    interrupts.release(code);
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    signalOurs(signal);
    expect(exit).toHaveBeenCalledWith(code);
    expect(interrupts.interrupted).toBe(false);
  });

  it('installs nothing when the run has no code (it threw)', () => {
    const before = { int: process.listenerCount('SIGINT'), term: process.listenerCount('SIGTERM') };
    const interrupts = new Interrupts(new Outstanding());
    interrupts.release(undefined);
    expect(process.listenerCount('SIGINT')).toBe(before.int);
    expect(process.listenerCount('SIGTERM')).toBe(before.term);
  });

  it('during the run, the first signal aborts the run instead of exiting', () => {
    const interrupts = new Interrupts(new Outstanding());
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    signalOurs('SIGINT');
    expect(interrupts.signal.aborted).toBe(true);
    expect(exit).not.toHaveBeenCalled();
    expect(write.mock.calls.join('')).toMatch(/starting no new request/);
    interrupts.release(130);
  });
});
