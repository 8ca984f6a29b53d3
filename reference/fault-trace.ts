import type { ActiveFaults } from './fault-def.ts';

/**
 * Which fault decision points the reference reached, and in which requests: every `has(name)`,
 * whether the fault is on or off. Opt-in (ReferenceOptions.traceFaults): a test that proves each
 * fault is noticed uses it to run only the cases whose requests reach the fault
 * (test/suite-s3-sensitivity.test.ts). A request is known by the bucket it addresses; a consult
 * in a request that addresses none (ListBuckets, an address that does not parse) or outside any
 * request is counted under `outside`, which means "any request at all".
 */
export class FaultTrace {
  /** Bucket name: the faults consulted in requests addressed to it. */
  readonly byBucket = new Map<string, Set<string>>();
  /** Faults consulted with no bucket to attribute them to. */
  readonly outside = new Set<string>();

  consultsOf(bucket: string | undefined): Set<string> {
    if (!bucket) return this.outside;
    let consults = this.byBucket.get(bucket);
    if (!consults) {
      consults = new Set();
      this.byBucket.set(bucket, consults);
    }
    return consults;
  }
}

/** Faults whose every consult is noted in one set. */
export class TracedFaults implements ActiveFaults {
  constructor(
    readonly inner: ActiveFaults,
    private readonly consults: Set<string>,
  ) {}

  has(name: string): boolean {
    this.consults.add(name);
    return this.inner.has(name);
  }

  get names(): string[] {
    return this.inner.names;
  }
}

/**
 * The context one request is handled with: its consults are noted under the bucket it addresses.
 * Without a trace it is the server's context itself, so tracing costs nothing when off.
 */
export function requestContext<C extends { faults: ActiveFaults; faultTrace?: FaultTrace }>(
  ctx: C,
  bucket: () => string | undefined,
): C {
  const trace = ctx.faultTrace;
  if (!trace) return ctx;
  const faults = ctx.faults instanceof TracedFaults ? ctx.faults.inner : ctx.faults;
  return { ...ctx, faults: new TracedFaults(faults, trace.consultsOf(bucket())) };
}
