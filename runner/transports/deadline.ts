/**
 * One request's deadline: a timer and the listeners that cut the exchange when it fires. An
 * AbortController with its EventTarget costs several microseconds per request, a measurable share
 * of a request on loopback; this costs a timer.
 */
export class Deadline {
  aborted = false;
  reason: unknown;
  private listeners: (() => void)[] = [];
  private timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.timer = setTimeout(() => this.fire(new Error('deadline')), ms);
  }

  /** Moves the deadline to `ms` from now. */
  reset(ms: number): void {
    clearTimeout(this.timer);
    if (!this.aborted) this.timer = setTimeout(() => this.fire(new Error('deadline')), Math.max(0, ms));
  }

  /** Aborts now (the deadline passed, or the caller's own signal fired). */
  fire(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const l of listeners) l();
  }

  clear(): void {
    clearTimeout(this.timer);
    this.listeners = [];
  }

  onFire(listener: () => void): this {
    this.listeners.push(listener);
    return this;
  }
}
