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
import { checksByClause, clauseReason, groupBySection, type SectionGroup } from './clause-checks.ts';
import { type Paint, paint, wantsColor } from './colors.ts';
import { renderFailure } from './failure.ts';
import { EventLog } from './partial.ts';
import { oneLine, padEnd, printable } from './text.ts';

const ORDER = CLAUSE_VERDICTS;
const PAST: Record<ClauseVerdict, string> = {
  pass: 'passed',
  fail: 'failed',
  error: 'errored',
  blocked: 'blocked',
  skipped: 'skipped',
  untested: 'untested',
};
/** Named by default below the section counts; skipped and untested clauses are only counted. */
const NOT_PASSING: readonly ClauseVerdict[] = ['fail', 'error', 'blocked'];
/** Expected and actual values longer than this are cut: the JSON document keeps them whole. */
const VALUE_LIMIT = 600;

/**
 * Human-readable output: live progress while cases finish, then a line per SPEC section with its
 * counts and the clauses that did not pass (every clause with verbose), the failures with
 * expected, actual and a reproduction, and totals. The last line is
 * `N passed, N failed[, ...]` counting clauses, for people and scripts alike.
 */
export class ConsoleReporter implements Reporter {
  private readonly out: NodeJS.WritableStream;
  private readonly p: Paint;
  /** On a terminal (or verbose) a line per case; in CI logs a counter and the failing cases only. */
  private readonly perCase: boolean;
  /** Every clause in the summary, not only those that did not pass. */
  private readonly verbose: boolean;
  private readonly log = new EventLog();
  private total = 0;
  private done = 0;
  private readonly tally: Record<string, number> = {};
  private summarized = false;

  constructor(options: ReporterOptions = {}) {
    this.out = options.stream ?? process.stdout;
    this.p = paint(options.color ?? wantsColor(this.out));
    this.perCase = options.verbose ?? (this.out as { isTTY?: boolean }).isTTY === true;
    this.verbose = options.verbose === true;
  }

  onEvent(event: RunEvent): void {
    this.log.record(event);
    switch (event.type) {
      case 'run-start':
        this.total = event.cases;
        this.write(this.header(event));
        break;
      case 'case-end':
        this.progress(event.result);
        break;
      case 'run-end':
        this.write(this.summary(event.results, true));
        this.summarized = true;
        break;
    }
  }

  async close(): Promise<void> {
    if (!this.summarized) {
      const { results } = this.log.resultsOrPartial();
      this.write(this.summary(results, false));
      this.summarized = true;
    }
    await new Promise<void>((resolve) => this.out.write('', () => resolve()));
  }

  private write(text: string): void {
    this.out.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  private header(event: Extract<RunEvent, { type: 'run-start' }>): string {
    const t = event.target;
    const where = t.embedded ? 'embedded reference' : [t.management, t.s3].filter(Boolean).join(', ');
    const faults = t.faults?.length ? `, faults: ${t.faults.join(', ')}` : '';
    const lines = [
      this.p.bold(
        `edgecheck run ${event.runId}: ${t.name} (${where}${faults}), as of ${event.asOf}, ` +
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
    const count = `[${String(this.done).padStart(String(this.total).length)}/${this.total}]`;
    const bad = result.verdict === 'fail' || result.verdict === 'error';
    if (this.perCase) {
      const why =
        result.verdict !== 'pass' && result.reason ? this.p.dim(` (${oneLine(result.reason)})`) : '';
      this.write(
        `${this.p.dim(count)} ${this.verdict(result.verdict)} ${result.id} ${this.p.dim(
          `${oneLine(result.title)} ${result.durationMs} ms`,
        )}${why}`,
      );
      return;
    }
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
      return [
        `  ${this.verdict(clause.verdict)} ${padEnd(clause.id, idWidth)}  ${oneLine(clause.title)}`,
        ...(reason ? [`  ${' '.repeat(8)} ${this.p.dim(`└ ${oneLine(reason)}`)}`] : []),
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
        const counts = Object.fromEntries(ORDER.map((v) => [v, 0])) as Tally<ClauseVerdict>;
        for (const c of group.clauses) counts[c.verdict] += 1;
        lines.push(`  ${padEnd(label(group), width)}  ${this.counts(counts)}`);
      }
      const notPassing = results.clauses.filter((c) => NOT_PASSING.includes(c.verdict));
      if (notPassing.length) {
        lines.push('', this.p.bold(`Clauses that did not pass (${notPassing.length})`));
        for (const clause of notPassing) lines.push(...row(clause));
      }
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
    lines.push('', this.p.bold('Totals'));
    if (complete) lines.push(`  clauses  ${this.totals(results.summary.clauses)}`);
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
    }
    const seconds = (results.durationMs / 1000).toFixed(1);
    lines.push(
      '',
      this.p.dim(`run ${results.runId}, seed ${results.seed}, ${seconds} s, exit code ${results.exitCode}`),
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

/** `N passed, N failed` then the other clause verdicts that occurred. */
export function closingLine(tally: Tally<ClauseVerdict>): string {
  const parts = [`${tally.pass} ${PAST.pass}`, `${tally.fail} ${PAST.fail}`];
  for (const v of ORDER.slice(2)) if (tally[v]) parts.push(`${tally[v]} ${PAST[v]}`);
  return parts.join(', ');
}
