import type { ObservedExchange } from './exchange.ts';

type Door = ObservedExchange['door'];

/** The kinds of upstream trouble the proxy counts: the target never answered, or stopped mid-answer. */
export type UpstreamErrorKind = 'refused' | 'reset' | 'timeout' | 'dns' | 'tls' | 'cut' | 'other';

/**
 * What `edgecheck proxy` forwarded, apart from what the judge made of it: exchanges by door and
 * status class, upstream errors by door and kind, clients that left before their answer, and
 * whether each door's latest attempt reached its target. Plain counters, cheap to keep: the status
 * port reads them when asked, and `onAddedLatency` is set only when something listens.
 */
export class ProxyStats {
  readonly forwarded: Record<Door, Record<string, number>> = { management: {}, s3: {} };
  readonly upstreamErrors: Record<Door, Partial<Record<UpstreamErrorKind, number>>> = {
    management: {},
    s3: {},
  };
  clientsLeft = 0;
  /** Per door, the latest attempt: reached the target, or the kind of error it met. */
  readonly latest: Partial<Record<Door, { ok: true } | { ok: false; kind: UpstreamErrorKind; at: string }>> =
    {};
  /** Hears the time, in seconds, the proxy added to an exchange (its own work before and after the target's). */
  onAddedLatency?: (seconds: number) => void;

  forward(door: Door, status: number, addedSeconds: number): void {
    const byClass = this.forwarded[door];
    const statusClass = `${Math.floor(status / 100)}xx`;
    byClass[statusClass] = (byClass[statusClass] ?? 0) + 1;
    this.latest[door] = { ok: true };
    this.onAddedLatency?.(addedSeconds);
  }

  upstreamError(door: Door, kind: UpstreamErrorKind): void {
    const byKind = this.upstreamErrors[door];
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    this.latest[door] = { ok: false, kind, at: new Date().toISOString() };
  }

  /** Upstream errors by kind, both doors together (the report's `upstreamErrors`). */
  upstreamErrorsByKind(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const byKind of Object.values(this.upstreamErrors))
      for (const [kind, n] of Object.entries(byKind)) out[kind] = (out[kind] ?? 0) + (n ?? 0);
    return out;
  }
}

/** The kind of an error met reaching the target or reading its answer. */
export function upstreamErrorKind(err: unknown, answerStarted: boolean): UpstreamErrorKind {
  const e = err as NodeJS.ErrnoException | undefined;
  const code = e?.code ?? '';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (code === 'ETIMEDOUT' || e?.name === 'TimeoutError' || /did not answer in time/.test(e?.message ?? ''))
    return 'timeout';
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(code)) return 'tls';
  if (answerStarted) return 'cut';
  if (code === 'ECONNRESET' || code === 'EPIPE' || /socket hang up/.test(e?.message ?? '')) return 'reset';
  return 'other';
}
