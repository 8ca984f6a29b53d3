import type { ActiveFaults } from './fault-def.ts';

/**
 * Which fault decision points the reference reached, and in which requests: every `has(name)`,
 * whether the fault is on or off. Opt-in (ReferenceOptions.traceFaults): a test that proves each
 * fault is noticed uses it to run only the cases whose requests reach the fault
 * (test/suite-s3-sensitivity.test.ts, test/suite-management-sensitivity.test.ts). A request is
 * known by the case its User-Agent names (`case ID`, or `teardown ID` for the case's teardown),
 * else, for S3, by the bucket it addresses (`bucket NAME`); a consult in a request known by neither or outside any request is counted
 * under `outside`, which means "any request at all".
 */
export class FaultTrace {
  /** `bucket NAME`, `case ID` or `teardown ID`: the faults consulted in the requests it names. */
  readonly byOwner = new Map<string, Set<string>>();
  /** Faults consulted with no owner to attribute them to. */
  readonly outside = new Set<string>();

  consultsOf(owner: string | undefined): Set<string> {
    if (!owner) return this.outside;
    let consults = this.byOwner.get(owner);
    if (!consults) {
      consults = new Set();
      this.byOwner.set(owner, consults);
    }
    return consults;
  }
}

/** The owner a bucket name makes: S3 requests are known by the bucket they address. */
export function bucketOwner(bucket: string | undefined): string | undefined {
  return bucket ? `bucket ${bucket}` : undefined;
}

/**
 * The case a request names at the end of its User-Agent (runner/transports/management.ts userAgent):
 * `case ID` for its steps, `teardown ID` for its teardown (teardownAgent).
 */
export function caseOfUserAgent(userAgent: string | undefined): string | undefined {
  const m = /(?:^|\s)edgecheck\/\S+ \(case ([^()\s;]+)(; teardown|; step [^()]*)?\)$/.exec(userAgent ?? '');
  if (!m) return undefined;
  return m[2] === '; teardown' ? `teardown ${m[1]}` : `case ${m[1]}`;
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
 * The context one request is handled with: its consults are noted under the owner `owner` names
 * (`bucket NAME`, `case ID`). Without a trace it is the server's context itself, so tracing costs
 * nothing when off.
 */
export function requestContext<C extends { faults: ActiveFaults; faultTrace?: FaultTrace }>(
  ctx: C,
  owner: () => string | undefined,
): C {
  const trace = ctx.faultTrace;
  if (!trace) return ctx;
  const faults = ctx.faults instanceof TracedFaults ? ctx.faults.inner : ctx.faults;
  return { ...ctx, faults: new TracedFaults(faults, trace.consultsOf(owner())) };
}
