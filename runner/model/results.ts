import type { ClauseVerdict, Verdict } from './verdict.ts';

/** One judged expectation. The JSON results document (schemas/results.schema.json) holds these. */
export interface CheckResult {
  caseId: string;
  /** Step id or `step N` / `given N`. */
  step: string;
  /** Index of the check within its case, stable across runs. */
  index: number;
  title?: string;
  clauses: string[];
  verdict: Verdict;
  /** Why it failed, errored, was blocked or skipped: one line. */
  message?: string;
  expected?: unknown;
  actual?: unknown;
  /** A copy-paste reproduction (curl for HTTP steps), secrets redacted. */
  repro?: string;
  /** file:line of the check in its case file. */
  origin: string;
  /** Failing and erroring checks: the case file's lines around the expectation that did not hold. */
  source?: SourceExcerpt;
  /** Failing and erroring checks of HTTP and SDK steps: what was sent and what came back, redacted. */
  exchange?: Exchange;
  /** proxy and judge: how many observed exchanges contradicted the check (`exchange` is the first). */
  contradictions?: number;
  /** proxy and judge: the latest exchange that contradicted the check, when more than one did. */
  latestExchange?: Exchange;
  /** A property's own exception (a bug in its code, not the target's answer): where it was thrown. */
  stack?: string;
}

/** Lines of a case file, with where the mismatching matcher stands (1-based, for a caret). */
export interface SourceExcerpt {
  file: string;
  line: number;
  column: number;
  lines: { n: number; text: string }[];
}

/** Response bodies are cut at this many bytes in an exchange; the size and digest say the rest. */
export const EXCHANGE_BODY_LIMIT = 2048;

export interface ExchangeBody {
  size: number;
  /** UTF-8 text, at most EXCHANGE_BODY_LIMIT bytes of it; absent for binary bodies. */
  text?: string;
  /** The text stops before the body does. */
  truncated?: boolean;
  /** Binary bodies (and bodies too large to keep) are shown by size and digest, never raw. */
  sha256?: string;
}

export interface Exchange {
  /** HTTP steps: method, URL and headers as sent. */
  request?: { method: string; url: string; headers: Record<string, string> };
  /** SDK steps: the command and its input. */
  command?: string;
  response: {
    status: number;
    headers: Record<string, string>;
    body?: ExchangeBody;
    /** SDK steps: the command's output as JSON text, cut like a body. */
    output?: string;
    /** SDK steps: the command's error. */
    error?: { name: string; message: string };
  };
}

export interface CaseResult {
  id: string;
  title: string;
  file: string;
  area: string;
  verdict: Verdict;
  /** For skipped or blocked cases: why. */
  reason?: string;
  durationMs: number;
  /** Requests the case sent, tries and teardown included (absent from documents of earlier versions). */
  requests?: number;
  checks: CheckResult[];
  /** What teardown could not remove or put back: it is still on the target. */
  leftovers?: Leftover[];
}

/** Something a run created or changed that is still on the target. */
export interface Leftover {
  /** In words: `bucket ec-…`, `DNS record … (teardown of create)`, `security_level back to medium`. */
  what: string;
  /** Why teardown could not do it. */
  error: string;
  /** A command that removes or restores it by hand (credentials from the environment). */
  undo?: string;
}

/** How many requests the run sent to its target (schemas/results.schema.json). */
export interface RequestCounts {
  total: number;
  management: number;
  s3: number;
  /** Tries repeated after a throttled or unavailable answer. */
  retried: number;
  /** Answers with status 429. */
  throttled: number;
}

export interface ClauseResult {
  id: string;
  area: string;
  section: string;
  title: string;
  source: 'spec' | 's3' | 'service';
  verdict: ClauseVerdict;
  /** How many checks cite it. */
  checks: number;
  /** Requests of the cases whose checks cite it: what judging it costs (a case citing two counts for both). */
  requests?: number;
  untestable?: string;
  /**
   * Where SPEC departs from Amazon S3: what Amazon S3 does instead, in words. A target failing this
   * clause may be doing as Amazon S3 does, which reports show apart from the semantics both share.
   */
  amazon?: string;
  /**
   * A failing or erroring clause whose `amazon` gives Amazon S3's answer as matchers (the clause
   * catalog's): true when every answer its failing and erroring checks recorded meets them (the
   * target does as Amazon S3 does), false when one does not (it does neither what SPEC says nor
   * what Amazon S3 does). Absent when nothing could be compared (runner/model/departures.ts).
   */
  amazonMatch?: boolean;
  since?: string;
  until?: string;
  feature?: string;
  /** First failing/erroring check's message, for summaries. */
  message?: string;
  /**
   * A passing clause some of whose checks could not be exercised (blocked: the target took
   * another branch, refused a valid twin): how many of its checks were, and the ones that were not.
   */
  exercised?: number;
  unexercised?: UnexercisedCheck[];
}

/** A check of a passing clause that was not exercised, and why. */
export interface UnexercisedCheck {
  caseId: string;
  step: string;
  title?: string;
  message?: string;
}

export type Tally<V extends string> = Record<V, number>;

/**
 * The failing and erroring clauses where SPEC departs from Amazon S3 (blocked ones are no
 * departure), by what the target's answer was: Amazon S3's, neither SPEC's nor Amazon S3's, or not
 * compared (runner/model/departures.ts counts them, for the engine and every reporter).
 */
export interface DepartureCounts {
  asAmazon: number;
  neither: number;
  undecided: number;
}

export interface BaselineDiff {
  file: string;
  /** Clauses that fail now but the baseline expects to pass. */
  newFailures: string[];
  /** Clauses the baseline expects to fail that no longer do. */
  fixed: string[];
  /** Clauses the baseline expects to fail that do. */
  expected: string[];
}

/** What a run selected: its --suite, --case, --clause, --tag, --shard and --read-only. */
export interface RunSelection {
  /** The areas run (every area when --suite was not given). */
  suites: string[];
  cases?: string[];
  clauses?: string[];
  tags?: string[];
  /** `i/n` */
  shard?: string;
  readOnly?: boolean;
}

/** One run a merged document joins (`edgecheck merge`). */
export interface MergedRun {
  runId: string;
  shard?: string;
  seed: number;
  startedAt: string;
  durationMs: number;
}

export interface RunResults {
  edgecheck: string;
  runId: string;
  /**
   * How the verdicts were obtained: `run` (the default, absent in earlier documents) sends the
   * suites' requests; `proxy` and `judge` judge traffic others sent, passing or recorded.
   */
  mode?: 'run' | 'proxy' | 'judge';
  /** proxy and judge: the exchanges observed. */
  observed?: number;
  /**
   * proxy and judge: observed answers that said the service was busy or down (429, 502, 503, 504),
   * by status; nothing is judged on them.
   */
  busy?: Record<string, number>;
  /** proxy: requests the target never answered, by kind (refused, reset, timeout, ...). */
  upstreamErrors?: Record<string, number>;
  target: {
    name: string;
    management?: string;
    s3?: string;
    embedded: boolean;
    faults?: string[];
    /** The optional features the target offers (runner/model/features.ts): they decide skips. */
    features?: string[];
  };
  /** Absent from documents of a run cut short and of earlier versions. */
  selection?: RunSelection;
  /** A document `edgecheck merge` joined from shards: the runs it holds (runId joins theirs with +). */
  mergedFrom?: MergedRun[];
  asOf: string;
  profile: 'quick' | 'full';
  seed: number;
  startedAt: string;
  durationMs: number;
  summary: {
    clauses: Tally<ClauseVerdict>;
    cases: Tally<Verdict>;
    checks: Tally<Verdict>;
    /**
     * The clauses where SPEC departs from Amazon S3 (those with `amazon`), by verdict: a part of
     * `clauses`. Absent when the run holds none, and in documents of earlier versions.
     */
    departures?: Tally<ClauseVerdict>;
    /** Of the failing and erroring clauses of `departures`, by answer; absent with `departures`. */
    departureAnswers?: DepartureCounts;
  };
  clauses: ClauseResult[];
  cases: CaseResult[];
  baseline?: BaselineDiff;
  /** Requests sent to the target, teardown included. */
  requests?: RequestCounts;
  /** Everything teardown could not remove or put back, over all cases. */
  leftovers: (Leftover & { caseId: string })[];
  /** What a person needs to read the run beyond its verdicts, one line each (a refused region, say). */
  advice?: string[];
  /** The run was stopped (SIGINT, SIGTERM, or its --max-duration) before every case ran. */
  interrupted: boolean;
  /** What stopped it. */
  stoppedBy?: string;
  /**
   * 0: no clause fails or errors (or the run matches its baseline) and nothing is left on the
   * target; 1: otherwise (a run stopped by its deadline included); 130: interrupted by a signal.
   */
  exitCode: 0 | 1 | 130;
}

export type RunEvent =
  | {
      type: 'run-start';
      runId: string;
      /** proxy or judge: verdicts from observed traffic (RunResults.mode); absent for a run. */
      mode?: 'run' | 'proxy' | 'judge';
      target: RunResults['target'];
      asOf: string;
      profile: 'quick' | 'full';
      /** Printed up front, so an interrupted run's property failures can still be replayed. */
      seed: number;
      cases: number;
      clauses: number;
      /** The pacing and request budget in force, in words, when there are any. */
      limits?: string;
      /** What the run may leave changed (opt-in disruptive checks), announced before it starts. */
      disruptive?: { id: string; what: string }[];
    }
  | { type: 'case-start'; caseId: string; title: string }
  | { type: 'check'; result: CheckResult }
  /** A large request body of a case in flight: bytes handed to the connection so far, of `total`. */
  | { type: 'transfer'; caseId: string; sent: number; total: number }
  /**
   * Pacing holds requests back for a while (PAUSE_REPORTED_FROM_MS or more): once per pause, so a
   * long wait reads as pacing, not a hang. `cause` says whose limit: the run's `--rate-limit`
   * (with the requests in the window and the cap), the target's RateLimit header, or a 429's Retry-After.
   */
  | {
      type: 'pacing';
      door: 'management' | 's3';
      cause: 'rate-cap' | 'announced' | 'retry-after';
      inWindow?: number;
      limit?: number;
      windowMs?: number;
      /** When the next request goes (ISO 8601). */
      resumeAt: string;
    }
  | { type: 'case-end'; result: CaseResult }
  | { type: 'run-end'; results: RunResults };

/** One reporter per file under reporters/, registered in reporters/registry.ts. */
export interface Reporter {
  onEvent(event: RunEvent): void;
  /** Flush files; called once after run-end (also on SIGINT with partial results). */
  close(): Promise<void>;
}

export interface ReporterOptions {
  /** `--reporter json=out/results.json` gives dest `out/results.json`. */
  dest?: string;
  /** Where console output goes (a stream in tests). */
  stream?: NodeJS.WritableStream;
  color?: boolean;
  /** Console: a line per case, and every clause in the summary. */
  verbose?: boolean;
  /**
   * Console: one progress line rewritten in place rather than counter lines (default: on a
   * terminal, unless CI is set).
   */
  live?: boolean;
}
