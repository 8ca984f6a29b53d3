import type { StepDef } from '../model/case.ts';
import type { StepFormatType } from '../model/case-format.ts';
import type { Target } from '../model/target.ts';
import type { Scope } from '../template/resolve.ts';
import type { StepResponse } from '../transports/response.ts';
import type { RunContext } from './context.ts';
import type { SentRequest } from './failure-detail.ts';
import type { Footprint } from './footprint.ts';
import type { TeardownLedger } from './teardown.ts';

/**
 * One kind of step (api, s3, http, wire, binding, bucket), whole in one module of this folder:
 * how it is read from the case file, what lint looks at, what a target must offer for it, how it
 * is sent, and how its teardown is described. `index.ts` registers every kind in one table that
 * TypeScript checks for exhaustiveness; the kind's shape in YAML is in runner/model/case-format.ts.
 */
export interface StepKind<S extends StepDef> {
  /** The step as the engine sees it, from the step as written (`common` holds what every step has). */
  load(raw: StepFormatType, common: StepCommonPart): S;
  /** What it sends: where its placeholders and `$file` fixtures are. */
  sent(step: S): unknown;
  /** A problem with the step as written that the schema cannot see (lint), or undefined. */
  lint?(step: S): string | undefined;
  /** Why a case holding this step cannot run on `target` (`all`: the case's every step), or undefined. */
  needs(target: Target, all: StepDef[]): string | undefined;
  /** Where a capture written as a bare pointer reads: the JSON body, the SDK output, or neither. */
  captures: 'json' | 'output' | 'other';
  /**
   * What the step reads and writes on the target (footprint.ts): a later step depends on this one
   * only where this one's writes reach what the later one touches, unless it says otherwise
   * (`needs`); a read's failure blocks only what uses its captures.
   */
  footprint(step: S): Footprint;
  /** About how many requests it sends, its own teardown's included (the request budget). */
  requests: number;
  /** Resolves the step's placeholders and sends it. Throws MissingValue, TargetLacks or TargetError. */
  perform(
    step: S,
    scope: Scope,
    ctx: RunContext,
    owner: StepOwner,
    ledger: TeardownLedger,
  ): Promise<Performed>;
  /** The step as a teardown action: in words, as a command, and how its removal is confirmed. */
  describe?(step: S, scope: Scope, ctx: RunContext, caseId: string): Described | undefined;
}

/** What every step has, whatever its kind. */
export type StepCommonPart = Omit<Extract<StepDef, { kind: 'api' }>, 'kind' | 'api'>;

export interface Performed {
  response: StepResponse;
  /** Built only when a check fails: most steps pass, and the command is not free to build. */
  repro?: () => string;
  /** Whether the step did what it asked (status < 400, no SDK error): prerequisites need this. */
  ok: boolean;
  /** What was sent, for the exchange shown with a failing check. */
  sent?: SentRequest;
}

/** The case a step belongs to: its id names it to the target, its slug names its buckets. */
export interface StepOwner {
  id: string;
  slug: string;
  /** The step's label in its case, named to the target beside the case (a server's logs show both). */
  step?: string;
}

export interface Described {
  /** The request in words: `DELETE /zones/…/dns_records/…`. */
  what: string;
  /** A command that sends it by hand, credentials from the environment. */
  undo?: () => string;
  /** For a delete: reads the thing back and throws unless it is gone. */
  confirm?: (ctx: RunContext) => Promise<void>;
  /**
   * For a removal that answered 404: reads the thing back, true when it is not there. A thing the
   * case completed or deleted itself (an upload completed, an object the case removed) is gone, not
   * left behind; a read that finds it means the 404 was wrong.
   */
  absent?: (ctx: RunContext) => Promise<boolean>;
}

/** The methods that change nothing on the target. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const isReadMethod = (method: string) => READ_METHODS.has(method.toUpperCase());

export const isNotFound = (status: number) => status === 404 || status === 410;
