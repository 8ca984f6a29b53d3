import type {
  CaseResult,
  CheckResult,
  ClauseResult,
  Reporter,
  ReporterOptions,
  RunEvent,
  RunResults,
  Tally,
} from '../runner/model/results.ts';
import { CLAUSE_VERDICTS, type ClauseVerdict, VERDICTS } from '../runner/model/verdict.ts';
import { formatBytes } from '../runner/util/size.ts';
import { checksByClause, clauseReason, groupBySection, type SectionGroup } from './clause-checks.ts';
import { type Paint, paint, wantsColor, wantsLiveProgress } from './colors.ts';
import { amazonNote, answerGroups, departureSentence, departures } from './departures.ts';
import { renderFailure } from './failure.ts';
import { EventLog } from './partial.ts';
import { oneLine, padEnd, printable } from './text.ts';
import { troubleLine } from './trouble.ts';

const ORDER = CLAUSE_VERDICTS;
const PAST: Record<ClauseVerdict, string> = {
  pass: 'passed',
  fail: 'failed',
  error: 'errored',
  blocked: 'blocked',
  skipped: 'skipped',
  untested: 'untested',
};
/**
 * The mark of a clause SPEC does not state: Amazon S3's documented behaviour that clients rely on
 * (source s3), or the service's own (source service). SPEC's clauses carry none.
 */
export const SOURCE_MARK: Record<ClauseResult['source'], string> = {
  spec: '',
  s3: '[S3 habit]',
  service: '[service]',
};
/** Named by default below the section counts; skipped and untested clauses are only counted. */
const NOT_PASSING: readonly ClauseVerdict[] = ['fail', 'error', 'blocked'];
/** How often the status line is drawn again while no case finishes. */
const LIVE_REFRESH_MS = 250;
/** Cases starting or ending draw the status line at most this often. */
const LIVE_MIN_INTERVAL_MS = 100;
/** Without a live line, a large upload's bytes sent are printed at most this often. */
const TRANSFER_LINE_EVERY_MS = 10_000;
/** Expected and actual values longer than this are cut: the JSON document keeps them whole. */
const VALUE_LIMIT = 600;
/** How many of the costliest cases the totals name under the request count. */
const COSTLIEST_SHOWN = 5;

/**
 * Human-readable output: live progress while cases finish, then a line per SPEC section with its
 * counts and the clauses that did not pass (every clause with verbose), the failures with
 * expected, actual and a reproduction, and totals. The last line is
 * `N passed, N failed[, ...]` counting clauses, for people and scripts alike.
 */
export class ConsoleReporter implements Reporter {
  private readonly out: NodeJS.WritableStream;
  private readonly p: Paint;
  /** A line per finished case (verbose); otherwise only the failing ones and the counters. */
  private readonly perCase: boolean;
  /** Every clause in the summary, not only those that did not pass. */
  private readonly verbose: boolean;
  /** One status line rewritten in place (a terminal outside CI) instead of counter lines. */
  private readonly live: boolean;
  private readonly log = new EventLog();
  private total = 0;
  private done = 0;
  private readonly tally: Record<string, number> = {};
  /** Cases started and not finished, with when they started (ms). */
  private readonly running = new Map<string, number>();
  /** The large upload of a case in flight: bytes sent of total, and when a plain line last said so. */
  private readonly transfers = new Map<string, { sent: number; total: number; printedAt: number }>();
  /** The pause in force, for the status line: what it says, and until when (epoch ms). */
  private paused?: { text: string; until: number };
  /** Length of the status line on screen, 0 when none is shown. */
  private shown = 0;
  private ticker?: NodeJS.Timeout;
  private drawnAt = 0;
  private summarized = false;

  constructor(options: ReporterOptions = {}) {
    this.out = options.stream ?? process.stdout;
    this.p = paint(options.color ?? wantsColor(this.out));
    this.verbose = options.verbose === true;
    this.perCase = this.verbose;
    this.live = options.live ?? wantsLiveProgress(this.out);
  }

  onEvent(event: RunEvent): void {
    this.log.record(event);
    switch (event.type) {
      case 'run-start':
        this.total = event.cases;
        this.write(this.header(event));
        if (this.live) {
          // The elapsed time of the case in flight moves even when no case finishes.
          this.ticker = setInterval(() => this.status(), LIVE_REFRESH_MS);
          this.ticker.unref?.();
          this.status();
        }
        break;
      case 'case-start':
        this.running.set(event.caseId, Date.now());
        this.status(false);
        break;
      case 'transfer':
        this.transfer(event);
        break;
      case 'pacing':
        this.pacing(event);
        break;
      case 'case-end':
        this.running.delete(event.result.id);
        this.transfers.delete(event.result.id);
        this.progress(event.result);
        this.status(false);
        break;
      case 'run-end':
        this.stopLive();
        this.write(this.summary(event.results, true));
        this.summarized = true;
        break;
    }
  }

  async close(): Promise<void> {
    this.stopLive();
    if (!this.summarized) {
      const { results } = this.log.resultsOrPartial();
      this.write(this.summary(results, false));
      this.summarized = true;
    }
    await new Promise<void>((resolve) => this.out.write('', () => resolve()));
  }

  /** A permanent line: the status line is wiped first and drawn again below it. */
  private write(text: string): void {
    const wipe = this.shown ? `\r${' '.repeat(this.shown)}\r` : '';
    this.shown = 0;
    this.out.write(`${wipe}${text.endsWith('\n') ? text : `${text}\n`}`);
    if (this.ticker) this.status();
  }

  private stopLive(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
    if (this.shown) this.out.write(`\r${' '.repeat(this.shown)}\r`);
    this.shown = 0;
  }

  /**
   * `[ 84/205] cases done, 2 failing; 8 running, longest 12.3 s: s3.put.large`, cut to the
   * terminal's width (a wrapped line could not be rewritten) and padded over the previous one.
   * Plain text only: `\r` and spaces, no escape sequences.
   */
  private status(force = true): void {
    if (!this.ticker) return;
    // Cases start and end by the hundred a second; the terminal needs a few frames.
    const now = Date.now();
    if (!force && now - this.drawnAt < LIVE_MIN_INTERVAL_MS) return;
    this.drawnAt = now;
    const failing = (this.tally.fail ?? 0) + (this.tally.error ?? 0);
    let text = `${this.counter()} cases done, ${failing} failing`;
    let oldest: [string, number] | undefined;
    for (const entry of this.running) if (!oldest || entry[1] < oldest[1]) oldest = entry;
    if (this.paused && this.paused.until > now) {
      // While paced nothing moves: say so first, where a narrow terminal keeps it.
      text = `${this.counter()} ${this.paused.text}, next in ${Math.ceil((this.paused.until - now) / 1000)} s`;
    } else if (oldest) {
      // The time before the id, so that a narrow terminal cuts the id rather than the time.
      const seconds = ((Date.now() - oldest[1]) / 1000).toFixed(1);
      text += `; ${this.running.size} running, longest ${seconds} s: ${oneLine(oldest[0])}`;
      const t = this.transfers.get(oldest[0]);
      if (t) text += `, ${this.sentText(t)}`;
    }
    const columns = (this.out as { columns?: number }).columns;
    const width = Math.max(20, (columns || 80) - 1);
    if (text.length > width) text = `${text.slice(0, width - 1)}…`;
    this.out.write(`\r${text}${' '.repeat(Math.max(0, this.shown - text.length))}`);
    this.shown = text.length;
  }

  /**
   * A pause of the run's pacing: on a terminal in the status line until it ends, otherwise (CI) a
   * plain line once per pause. What is in the window, the limit, and when the next request goes.
   */
  private pacing(event: Extract<RunEvent, { type: 'pacing' }>): void {
    const until = Date.parse(event.resumeAt);
    const text =
      event.cause === 'rate-cap'
        ? `paced: ${event.inWindow} of ${event.limit} ${event.door} requests in the last ${duration(event.windowMs ?? 0)} (--rate-limit)`
        : event.cause === 'announced'
          ? `paced: the target's RateLimit header says no ${event.door} requests are left until its reset`
          : `paced: the target answered 429 with Retry-After`;
    if (this.live) {
      this.paused = { text, until };
      this.status();
      return;
    }
    const at = event.resumeAt.slice(11, 19);
    const seconds = Math.max(0, Math.ceil((until - Date.now()) / 1000));
    this.write(this.p.dim(`${this.counter()} ${text}; next request at ${at} UTC (in ${seconds} s)`));
  }

  /** Live: kept for the status line. Plain: a line every few seconds, and one when the body is sent. */
  private transfer(event: Extract<RunEvent, { type: 'transfer' }>): void {
    const prior = this.transfers.get(event.caseId);
    const entry = {
      sent: event.sent,
      total: event.total,
      printedAt: prior?.printedAt ?? Number.NEGATIVE_INFINITY,
    };
    this.transfers.set(event.caseId, entry);
    if (this.live) {
      this.status(false);
      return;
    }
    const now = Date.now();
    if (event.sent < event.total && now - entry.printedAt < TRANSFER_LINE_EVERY_MS) return;
    entry.printedAt = now;
    this.write(this.p.dim(`${this.counter()} ${oneLine(event.caseId)}: ${this.sentText(entry)}`));
  }

  private sentText(t: { sent: number; total: number }): string {
    const share = t.total ? Math.floor((t.sent / t.total) * 100) : 100;
    return `${formatBytes(t.sent)} of ${formatBytes(t.total)} sent (${share}%)`;
  }

  private counter(): string {
    return `[${String(this.done).padStart(String(this.total).length)}/${this.total}]`;
  }

  private header(event: Extract<RunEvent, { type: 'run-start' }>): string {
    const t = event.target;
    const where = t.embedded ? 'embedded reference' : [t.management, t.s3].filter(Boolean).join(', ');
    const faults = t.faults?.length ? `, faults: ${t.faults.join(', ')}` : '';
    const passive = event.mode === 'proxy' || event.mode === 'judge';
    const lines = [
      this.p.bold(
        passive
          ? `edgecheck ${event.mode} ${event.runId}: ${t.name}${where ? ` (${where})` : ''}, as of ${event.asOf}, ` +
              `${event.clauses} clauses judged from observed traffic, not one request of edgecheck's own`
          : `edgecheck run ${event.runId}: ${t.name} (${where}${faults}), as of ${event.asOf}, ` +
              `profile ${event.profile}, ${event.cases} cases, ${event.clauses} clauses`,
      ),
    ];
    if (event.limits) lines.push(this.p.dim(event.limits));
    // Terraform's rule: before a change that cannot be undone, say what it is.
    if (event.disruptive?.length) {
      lines.push(this.p.yellow(this.p.bold('--allow-disruptive: this run may leave these changed:')));
      for (const d of event.disruptive) lines.push(this.p.yellow(`  ${d.id}: ${oneLine(d.what)}`));
    }
    return lines.join('\n');
  }

  private progress(result: CaseResult): void {
    this.done += 1;
    this.tally[result.verdict] = (this.tally[result.verdict] ?? 0) + 1;
    const count = this.counter();
    const bad = result.verdict === 'fail' || result.verdict === 'error';
    // On a live terminal a failing case stays on screen above the status line.
    if (this.perCase || (this.live && bad)) {
      const why =
        result.verdict !== 'pass' && result.reason ? this.p.dim(` (${oneLine(result.reason)})`) : '';
      this.write(
        `${this.p.dim(count)} ${this.verdict(result.verdict)} ${result.id} ${this.p.dim(
          `${oneLine(result.title)} ${result.durationMs} ms`,
        )}${why}`,
      );
      return;
    }
    if (this.live) return;
    if (bad) this.write(`${count} ${result.verdict.toUpperCase()} ${result.id}: ${oneLine(result.title)}`);
    // About ten counter lines per run keep a CI log short but show that the run moves.
    const step = Math.max(1, Math.ceil(this.total / 10));
    if (this.done % step === 0 || this.done === this.total) {
      const parts = VERDICTS.filter((v) => this.tally[v]).map((v) => `${this.tally[v]} ${v}`);
      this.write(`${count} cases done: ${parts.join(', ') || 'none judged'}`);
    }
  }

  private verdict(v: ClauseVerdict): string {
    const word = padEnd(v, 8);
    if (v === 'pass') return this.p.green(word);
    if (v === 'fail' || v === 'error') return this.p.red(word);
    if (v === 'blocked') return this.p.yellow(word);
    return this.p.dim(word);
  }

  /** The Totals section: clauses (of a complete run), cases, checks and the requests sent. */
  private totalsSection(results: RunResults, complete: boolean): string[] {
    const lines = [this.p.bold('Totals')];
    if (complete) {
      lines.push(`  clauses  ${this.totals(results.summary.clauses)}`);
      const departures = departureSentence(results);
      if (departures) lines.push(`           ${departures}`);
    }
    lines.push(`  cases    ${this.totals(results.summary.cases)}`);
    lines.push(`  checks   ${this.totals(results.summary.checks)}`);
    const r = results.requests;
    if (r) {
      const extra = [r.retried && `${r.retried} retried`, r.throttled && `${r.throttled} throttled (429)`]
        .filter(Boolean)
        .join(', ');
      lines.push(
        `  requests ${r.total} (management ${r.management}, s3 ${r.s3}${extra ? `; ${extra}` : ''})`,
      );
      // On a live target requests are what a run spends: the cases that spent most, to select around.
      const costly = costliest(results.cases, COSTLIEST_SHOWN);
      if (costly.length) {
        const width = String(costly[0].requests).length;
        lines.push(this.p.dim('           costliest cases:'));
        for (const c of costly)
          lines.push(this.p.dim(`           ${String(c.requests).padStart(width)}  ${c.id}`));
      }
    }
    return lines;
  }

  /**
   * The clauses a short summary names: those that did not pass (where SPEC departs from Amazon S3
   * apart, by the target's answer), then the passes that rest on part of their checks.
   */
  private namedClauses(results: RunResults, row: (clause: ClauseResult) => string[]): string[] {
    const lines: string[] = [];
    const notPassing = results.clauses.filter((c) => NOT_PASSING.includes(c.verdict));
    // Failures where SPEC departs from Amazon S3 come apart, by the target's answer (departures():
    // the clauses every report lists there; a blocked one is no departure).
    const departing = departures(results.clauses);
    const apart = new Set(departing.all);
    if (notPassing.length) {
      lines.push('', this.p.bold(`Clauses that did not pass (${notPassing.length})`));
      for (const clause of notPassing) if (!apart.has(clause)) lines.push(...row(clause));
    }
    if (departing.all.length) {
      lines.push('', this.p.bold(`Of them, where SPEC departs from Amazon S3 (${departing.all.length})`));
      for (const group of answerGroups(departing)) {
        lines.push(`  ${this.p.bold(`${group.heading} (${group.clauses.length})`)}`);
        for (const clause of group.clauses) lines.push(...row(clause));
      }
    }
    // A pass that rests on part of its checks says which were not exercised, and why.
    const partial = results.clauses.filter((c) => c.verdict === 'pass' && c.unexercised?.length);
    if (partial.length) {
      lines.push('', this.p.bold(`Passing clauses with checks not exercised (${partial.length})`));
      for (const clause of partial) lines.push(...row(clause));
    }
    return lines;
  }

  private summary(results: RunResults, complete: boolean): string {
    const lines: string[] = [''];
    const cases = new Map(results.cases.map((c) => [c.id, c]));
    const byClause = checksByClause(results.cases);
    if (!complete) {
      lines.push(
        this.p.yellow(
          `run cut short: ${results.cases.length} of ${this.total} cases finished; clause verdicts are unknown`,
        ),
      );
    } else if (results.interrupted) {
      const by = results.stoppedBy ? ` (${oneLine(results.stoppedBy)})` : '';
      lines.push(this.p.yellow(`run interrupted${by}: checks that had not run are blocked`));
    }
    if (results.clauses.length) lines.push(this.p.bold('Clauses by SPEC section'));
    const idWidth = Math.min(48, Math.max(0, ...results.clauses.map((c) => c.id.length)));
    const row = (clause: ClauseResult) => {
      const reason = clauseReason(clause, byClause.get(clause.id) ?? [], cases, results.asOf);
      // What Amazon S3 does, beside a clause that did not pass where SPEC departs from it.
      const amazon = clause.verdict === 'pass' ? undefined : amazonNote(clause);
      const mark = SOURCE_MARK[clause.source] ? `${this.p.cyan(SOURCE_MARK[clause.source])} ` : '';
      return [
        `  ${this.verdict(clause.verdict)} ${padEnd(clause.id, idWidth)}  ${mark}${oneLine(clause.title)}`,
        ...(reason ? [`  ${' '.repeat(8)} ${this.p.dim(`└ ${oneLine(reason)}`)}`] : []),
        ...(amazon ? [`  ${' '.repeat(8)} ${this.p.cyan(`└ ${oneLine(amazon)}`)}`] : []),
      ];
    };
    const groups = groupBySection(results.clauses);
    if (this.verbose) {
      for (const group of groups) {
        lines.push('', this.p.bold(`${group.area}: ${group.section}`));
        for (const clause of group.clauses) lines.push(...row(clause));
      }
    } else if (groups.length) {
      // A line per section with its counts; only the clauses that did not pass are named.
      const label = (g: SectionGroup) => oneLine(`${g.area}: ${g.section}`);
      const width = Math.min(64, Math.max(...groups.map((g) => label(g).length)));
      lines.push('');
      for (const group of groups) {
        // SPEC's clauses counted apart from those it does not state (marked by their source).
        const parts = (Object.keys(SOURCE_MARK) as ClauseResult['source'][]).flatMap((source) => {
          const of = group.clauses.filter((c) => c.source === source);
          if (!of.length) return [];
          const counts = Object.fromEntries(ORDER.map((v) => [v, 0])) as Tally<ClauseVerdict>;
          for (const c of of) counts[c.verdict] += 1;
          return [
            SOURCE_MARK[source]
              ? `${this.p.cyan(SOURCE_MARK[source])} ${this.counts(counts)}`
              : this.counts(counts),
          ];
        });
        lines.push(`  ${padEnd(label(group), width)}  ${parts.join(' · ')}`);
      }
      lines.push(...this.namedClauses(results, row));
    }
    const failures = results.cases.flatMap((c) =>
      c.checks.filter((k) => k.verdict === 'fail' || k.verdict === 'error'),
    );
    if (failures.length) {
      lines.push(
        '',
        this.p.bold(`Failures (${failures.length} ${failures.length === 1 ? 'check' : 'checks'})`),
      );
      for (const [i, check] of failures.entries()) lines.push('', ...this.failure(check, i + 1));
    }
    if (results.leftovers?.length) lines.push('', ...this.leftovers(results.leftovers));
    if (results.baseline) lines.push('', ...this.baseline(results.baseline));
    for (const line of results.advice ?? []) lines.push('', `${this.p.bold('Note:')} ${line}`);
    const trouble = troubleLine(results);
    if (trouble) lines.push('', `${this.p.bold('Not judged:')} ${trouble}`);
    lines.push('', ...this.totalsSection(results, complete));
    const seconds = (results.durationMs / 1000).toFixed(1);
    lines.push(
      '',
      this.p.dim(
        results.mode === 'proxy' || results.mode === 'judge'
          ? `${results.mode} ${results.runId}, ${results.observed ?? 0} exchanges observed, exit code ${results.exitCode}`
          : `run ${results.runId}, seed ${results.seed}, ${seconds} s, exit code ${results.exitCode}`,
      ),
    );
    if (complete) lines.push(closingLine(results.summary.clauses));
    return lines.join('\n');
  }

  private failure(check: CheckResult, n: number): string[] {
    const [head, ...rest] = renderFailure(check, { paint: this.p, valueLimit: VALUE_LIMIT });
    return [`${n}) ${head}`, ...rest.map((l) => (l ? `   ${l}` : l))];
  }

  /** Last before the totals, where nobody misses it: what the run did not put back, and how to. */
  private leftovers(list: RunResults['leftovers']): string[] {
    const lines = [
      this.p.red(
        this.p.bold(`Left on the target (${list.length}): teardown could not remove or restore these`),
      ),
    ];
    for (const l of list) {
      lines.push(
        `  ${this.p.red('•')} ${oneLine(l.what)}  ${this.p.dim(`(${l.caseId}: ${oneLine(l.error)})`)}`,
      );
      if (l.undo) for (const line of printable(l.undo).split('\n')) lines.push(`      ${this.p.cyan(line)}`);
    }
    lines.push(this.p.dim("  'edgecheck sweep' lists what runs left; --delete removes it"));
    return lines;
  }

  private baseline(b: NonNullable<RunResults['baseline']>): string[] {
    const lines = [this.p.bold(`Baseline ${b.file}`)];
    const list = (ids: string[]) => (ids.length ? ids.join(', ') : 'none');
    lines.push(`  new failures:   ${b.newFailures.length ? this.p.red(list(b.newFailures)) : 'none'}`);
    lines.push(`  fixed:          ${list(b.fixed)}`);
    lines.push(`  still expected: ${list(b.expected)}`);
    return lines;
  }

  /** The verdicts that occurred, e.g. `12 pass, 1 fail, 2 untested`; bad ones coloured. */
  private counts(tally: Tally<ClauseVerdict>): string {
    return ORDER.filter((v) => tally[v])
      .map((v) => {
        const text = `${tally[v]} ${v}`;
        return v === 'fail' || v === 'error'
          ? this.p.red(text)
          : v === 'blocked'
            ? this.p.yellow(text)
            : text;
      })
      .join(', ');
  }

  private totals(tally: Partial<Tally<ClauseVerdict>>): string {
    return ORDER.filter((v) => v in tally)
      .map((v) => `${tally[v] ?? 0} ${v}`)
      .join(', ');
  }
}

/** `5 min`, `90 s`, `1 h`: a window's length as people say it. */
function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

/** The `n` cases that sent the most requests, most first (ties by id); none that sent nothing. */
export function costliest(cases: CaseResult[], n: number): { id: string; requests: number }[] {
  return cases
    .filter((c) => (c.requests ?? 0) > 0)
    .map((c) => ({ id: c.id, requests: c.requests ?? 0 }))
    .sort((a, b) => b.requests - a.requests || a.id.localeCompare(b.id))
    .slice(0, n);
}

/** `N passed, N failed` then the other clause verdicts that occurred. */
export function closingLine(tally: Tally<ClauseVerdict>): string {
  const parts = [`${tally.pass} ${PAST.pass}`, `${tally.fail} ${PAST.fail}`];
  for (const v of ORDER.slice(2)) if (tally[v]) parts.push(`${tally[v]} ${PAST[v]}`);
  return parts.join(', ');
}
