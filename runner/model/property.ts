import type { S3Client } from '@aws-sdk/client-s3';
import type { GeneratedBody } from '../template/resolve.ts';
import type { BindingCall } from './case.ts';
import type { Feature } from './features.ts';
import type { Target } from './target.ts';

/** A generative check in TypeScript (suites/<area>/properties/*.property.ts, default export PropertyDef[]). */
export interface PropertyDef {
  id: string;
  title: string;
  /** The clauses this property checks; a counterexample fails all of them. */
  clauses: string[];
  /** Target features it needs (runner/model/features.ts); without all of them it is skipped. */
  features?: Feature[];
  profiles?: ('quick' | 'full')[];
  /** true when it changes nothing on the target. */
  readOnly?: boolean;
  /** Shared target state it changes: cases and properties naming the same state never overlap. */
  exclusive?: string[];
  /**
   * What the property may leave changed when the value it found cannot be put back under the
   * rules at --as-of; it then runs only when the run allows it (PropertyContext.allowDisruptive).
   */
  disruptive?: string;
  /** About how many requests one run of it sends (quick profile), for the request budget. */
  requests?: number;
  /**
   * The check a run makes. Absent for a property that only observes traffic (`observe`): its
   * clauses are checked in a run by their cases, and a run never selects it.
   */
  run?(ctx: PropertyContext): Promise<void>;
  /**
   * How traffic the run did not send judges the same clauses (edgecheck proxy, edgecheck judge):
   * called once per judge, it returns the function each observed exchange is given, which keeps
   * what it needs between exchanges (bounded: a judge may see millions). That function answers
   * undefined for an exchange it does not judge, true for one that holds, and throws, as `run`
   * does, with what contradicts the clause. It judges by the same helpers as `run`, so that the
   * active and the passive check are one definition.
   */
  observe?: {
    /** Which exchanges it judges, in words, for `edgecheck lint --passive` and the README. */
    selects: string;
    observer: () => Observer;
  };
}

/**
 * What is known of a property without importing its module: every field but its functions (its
 * observer named by what it selects). The compiled suites keep it, so a run imports the modules of
 * the properties it selects alone.
 */
export type PropertyMeta = Omit<PropertyDef, 'run' | 'observe'> & {
  /** Present where the property has a run: one that only observes is never selected for a run. */
  run?: true | PropertyDef['run'];
  observe?: Pick<NonNullable<PropertyDef['observe']>, 'selects'>;
};

/** See PropertyDef.observe. */
export type Observer = (ex: ObservedView) => boolean | undefined;

/** One exchange seen passing (edgecheck proxy) or recorded (a HAR file), as an observer reads it. */
export interface ObservedView {
  door: 'management' | 's3';
  /** Upper case. */
  method: string;
  /** The request path as sent (percent-encoded), without the query. */
  path: string;
  query: URLSearchParams;
  /** Lower-case names. */
  requestHeaders: Record<string, string>;
  /** The request body when it was kept whole; undefined when there was none or it was cut. */
  requestBody?: Buffer;
  status: number;
  /** Lower-case names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  /** The answer's body when kept whole; undefined when it was over the cap or a recording cut it. */
  body?: Buffer;
  /** The answer's length in bytes, whole or not. */
  size: number;
  /**
   * What was kept of the answer's body, whole or not: its first bytes up to the proxy's cap, or what
   * a recording kept (cut, secrets masked, so not always whole where the proxy's was). For finding
   * what an answer must never carry; what it must carry needs `body`.
   */
  keptBody?: Buffer;
  /**
   * When the request was sent and when its answer was whole (milliseconds since the epoch, the
   * proxy's clock), where known: an observer ordering exchanges by them knows one ended before
   * another began, which the order they are observed in does not tell.
   */
  startedAt?: number;
  answeredAt?: number;
  /**
   * Set when edgecheck proxy signed the request again before it went on (--resign), with the region
   * it signed for: the target checked that signature, region and date, not those the request shows,
   * and a request the client sent unsigned reached it signed.
   */
  resigned?: { region: string };
  /**
   * The answer's body as text, or parsed as JSON. Where it was not kept whole or does not parse,
   * these throw an error the judge reads as "not judged", never as a contradiction.
   */
  text(): string;
  json(): any;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  /** The body, whole up to 8 MiB; past that its first 64 KiB, for messages only. */
  body: Buffer;
  /** The whole body's length in bytes, however much of it `body` keeps. */
  size: number;
  /** The whole body's MD5 (hex), hashed as it arrived, however much of it `body` keeps. */
  md5(): string;
  text(): string;
  json(): unknown;
  xml(): any;
}

export interface PropertyContext {
  runId: string;
  asOf: string;
  profile: 'quick' | 'full';
  /** fast-check parameters to pass to fc.assert: seed (printed on failure) and numRuns for the profile. */
  fc: { seed: number; numRuns: number };
  target: Target;
  /** Whether changes that cannot be put back may be made (--allow-disruptive, or the run's own reference). */
  allowDisruptive: boolean;
  /** The run's signal; during teardown, a fresh one bounded by the request timeout. */
  readonly signal: AbortSignal;
  /** What this property's requests call themselves (User-Agent), for requests its support code sends itself. */
  readonly userAgent: string;
  /** Management API request to {base}/client/v4{path} with the target's default auth. */
  api(req: {
    method: string;
    path: string;
    query?: Record<string, string | number>;
    body?: unknown;
    headers?: Record<string, string>;
  }): Promise<WireResponse>;
  /** SDK client configured for the target. */
  s3: S3Client;
  /** Raw SigV4-signed S3 request (path-style or virtual-hosted as the target says). */
  http(req: {
    method: string;
    bucket?: string;
    key?: string;
    query?: Record<string, string>;
    headers?: Record<string, string>;
    /** A generated body (generatedBody of the kit) is streamed, never held whole. */
    body?: Buffer | string | GeneratedBody;
  }): Promise<WireResponse>;
  /**
   * A request the property built itself (its own signer, region, addressing, date or presigned
   * URL), sent as every other request of the run is: paced, retried when throttled, bounded in time
   * and body size. A throttled or unavailable answer that outlasts the retries throws (verdict error).
   */
  send(req: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body?: Buffer | string;
  }): Promise<WireResponse>;
  /**
   * One R2 binding call through the target's bindings probe (suites/s3/bindings-probe/), paced and
   * budgeted as S3 requests are; the answer is JSON, {result} or {error: {name, message}}.
   */
  binding(call: BindingCall): Promise<WireResponse>;
  /** Provisions a bucket (named from the run id) that is emptied and deleted at teardown. */
  bucket(label?: string): Promise<string>;
  /**
   * A new bucket name of this property's own, as bucket() and cases name theirs
   * (ec-<run id>-<slug>-<label><n>), for a property that creates and removes its buckets itself.
   */
  bucketName(label: string): string;
  /**
   * Registers a teardown action (run in reverse order at the end, whatever happened). `what` names
   * it and `undo` is a command that does it by hand, both shown if the action fails.
   */
  defer(action: () => Promise<unknown>, what?: string, undo?: string): void;
  /** Records something the property could not put back: the run fails and lists it with `undo`. */
  leftover(what: string, error: string, undo?: string): void;
  /** Throws a TargetError: the target answered something the runner cannot judge (verdict error). */
  unjudgeable(reason: string): never;
  /** The target cannot be asked this (an id or endpoint missing from its config): verdict skipped. */
  skip(reason: string): never;
  /** A prerequisite the spec does not promise is missing on the target (a read endpoint): blocked. */
  blocked(reason: string): never;
}
