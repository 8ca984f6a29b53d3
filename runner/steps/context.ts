import type { S3Client } from '@aws-sdk/client-s3';
import type { Agent } from 'undici';
import type { Clause } from '../model/clause.ts';
import type { RunEvent } from '../model/results.ts';
import type { Target } from '../model/target.ts';
import type { SendOptions } from '../transports/http.ts';
import { teardownAgent, userAgent } from '../transports/management.ts';
import type { Door, Reservation, Traffic } from '../transports/traffic.ts';
import type { Outstanding } from './teardown.ts';

/** Everything one run shares across its cases. */
export interface RunContext {
  runId: string;
  target: Target;
  asOf: string;
  profile: 'quick' | 'full';
  seed: number;
  readOnly: boolean;
  /** Checks whose change cannot be put back may run (--allow-disruptive, or the run's own reference). */
  allowDisruptive: boolean;
  timeoutMs: number;
  clauses: Map<string, Clause>;
  agent: Agent;
  traffic: Traffic;
  /** Created on first use: runs without S3 steps never load the SDK client. */
  s3(): S3Client;
  /** The run's signal: aborted by an interrupt. */
  signal: AbortSignal;
  /** A signal for one teardown action: its own deadline, cut only by a second interrupt. */
  teardownSignal(): AbortSignal;
  /** Teardown actions not yet done, over the whole run. */
  outstanding: Outstanding;
  emit(event: RunEvent): void;
  /** Set on a case's own copy: the requests it reserved under the budget. */
  reservation?: Reservation;
  /** Set on teardown's copy: its requests go whatever the budget. */
  teardown?: boolean;
  /** Set on a case's own copy: hears how far a large generated body has been sent. */
  onSent?: (sent: number, total: number) => void;
}

/** What a request of `owner` sent in this context calls itself: a teardown's are named as such. */
export function agentOf(ctx: RunContext, owner: { id: string; step?: string }): string {
  return ctx.teardown ? teardownAgent(owner.id) : userAgent(owner.id, owner.step);
}

/** How a step of this context sends: its signal, timeout, traffic rules and budget reservation. */
export function sendOptions(ctx: RunContext, door: Door): SendOptions {
  return {
    signal: ctx.signal,
    // Teardown's own deadline cuts its requests; a step's in-flight request ends only by its timeout.
    abort: ctx.teardown ? ctx.signal : undefined,
    timeoutMs: ctx.timeoutMs,
    traffic: ctx.traffic,
    door,
    teardown: ctx.teardown,
    reservation: ctx.reservation,
    onSent: ctx.teardown ? undefined : ctx.onSent,
  };
}

/** The context teardown runs in: its own signal, and requests that go whatever the budget. */
export function teardownContext(ctx: RunContext, signal: AbortSignal): RunContext {
  return { ...ctx, signal, teardown: true };
}
