import type { ClauseResult, ReporterOptions, RunResults, Tally } from '../runner/model/results.ts';
import { CLAUSE_VERDICTS, type ClauseVerdict, VERDICTS } from '../runner/model/verdict.ts';
import { answerGroups, departureSentence, departures } from './departures.ts';
import { DocumentReporter } from './document-reporter.ts';
import { oneLine } from './text.ts';
import { troubleLine } from './trouble.ts';

/** A step summary is read at a glance (GitHub also caps it at 1 MiB): so many rows, then a count. */
export const MARKDOWN_ROW_LIMIT = 50;
/** Clause ids listed per baseline line before `and N more`. */
const ID_LIMIT = 30;
const TITLE_LIMIT = 120;
const MESSAGE_LIMIT = 200;

export interface MarkdownOptions extends ReporterOptions {
  /** Add to the end of `dest` rather than replace it, as $GITHUB_STEP_SUMMARY expects. */
  append?: boolean;
}

/**
 * A short Markdown summary for a CI step summary or a pull request: totals, the failing and
 * erroring clauses one row each, and the drift from the baseline. Written at close: to `dest`
 * (appended with `append`), else to the stream.
 */
export class MarkdownReporter extends DocumentReporter<MarkdownOptions> {
  protected render(results: RunResults, complete: boolean): string {
    return renderMarkdown(results, complete);
  }

  protected override append(): boolean {
    return this.options.append === true;
  }
}

/**
 * Text from a run (titles, messages from the target) as inert Markdown on one line: whitespace
 * collapsed, control characters shown as `\xNN`, and the characters that would start emphasis,
 * links, HTML, math, mentions or a table cell backslash-escaped.
 */
export function mdText(text: string): string {
  return oneLine(text).replace(/[\\`*_{}[\]()<>#+!|~@$&^]/g, (c) => `\\${c}`);
}

/** A clause or case id in a code span; ids hold no backquote, but a stray one is dropped. */
function code(id: string): string {
  return `\`${oneLine(id).replace(/`/g, '').replace(/\|/g, '\\|')}\``;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n').find((l) => l.trim()) ?? '';
}

const ICON: Record<string, string> = { pass: '✅', fail: '❌', error: '⚠️' };

/** The Markdown document for a run; `complete` false says it was cut short before its verdicts. */
export function renderMarkdown(results: RunResults, complete = true): string {
  const lines: string[] = [];
  const c = results.summary.clauses;
  const ok = results.exitCode === 0;
  const headline = complete
    ? CLAUSE_VERDICTS.filter((v) => v === 'pass' || v === 'fail' || c[v])
        .map((v) => `${c[v]} ${v}`)
        .join(', ')
    : `cut short after ${results.cases.length} cases`;
  lines.push(`## ${ok ? ICON.pass : ICON.fail} edgecheck: ${mdText(results.target.name)}: ${headline}`, '');
  const where = results.target.embedded
    ? 'embedded reference'
    : [results.target.management, results.target.s3].filter(Boolean).join(', ');
  const faults = results.target.faults?.length ? `, faults ${results.target.faults.join(', ')}` : '';
  const passive = results.mode === 'proxy' || results.mode === 'judge';
  lines.push(
    passive
      ? `${results.mode === 'proxy' ? 'Proxy' : 'Judge'} ${code(results.runId)}: ${results.observed ?? 0} observed ` +
          `exchanges of ${mdText(results.target.name)} judged, as of ${results.asOf}, no request of edgecheck's own, ` +
          `exit code ${results.exitCode}.`
      : `Run ${code(results.runId)} against ${mdText(where)}${mdText(faults)}, as of ${results.asOf}, ` +
          `profile ${results.profile}, seed ${results.seed}, ${(results.durationMs / 1000).toFixed(1)} s, ` +
          `exit code ${results.exitCode}.`,
    '',
  );
  const trouble = troubleLine(results);
  if (trouble) lines.push(`Not judged: ${mdText(trouble)}`, '');
  if (!complete) {
    lines.push('> [!WARNING]', '> The run was cut short: clause verdicts are unknown.', '');
  } else if (results.interrupted) {
    const by = results.stoppedBy ? ` (${mdText(results.stoppedBy)})` : '';
    lines.push('> [!WARNING]', `> The run was interrupted${by}: checks that had not run are blocked.`, '');
  }
  lines.push(...totals(results, complete), '');
  const sentence = complete ? departureSentence(results) : undefined;
  if (sentence) lines.push(`${mdText(sentence)}.`, '');
  // Failures where SPEC departs from Amazon S3 apart, by the target's answer (departures(), as
  // every report counts them).
  const split = departures(results.clauses);
  if (split.shared.length) lines.push(...failing(split.shared), '');
  if (split.all.length) {
    lines.push(
      `### Failing and erroring where SPEC departs from Amazon S3 (${split.all.length})`,
      '',
      'Here the target may be doing as Amazon S3 does; its answer says whether it does.',
      '',
    );
    for (const group of answerGroups(split)) lines.push(...failing(group.clauses, group.heading), '');
  }
  const partial = results.clauses.filter((k) => k.verdict === 'pass' && k.unexercised?.length);
  if (partial.length) lines.push(...notExercised(partial), '');
  if (results.baseline) lines.push(...baseline(results.baseline), '');
  if (results.leftovers.length) {
    lines.push(
      `**Left on the target: ${results.leftovers.length}** (teardown could not remove or restore ` +
        `them; the console lists each with the command that removes it, and \`edgecheck sweep\` finds them).`,
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

function totals(results: RunResults, complete: boolean): string[] {
  const s = results.summary;
  const count = (t: Partial<Tally<ClauseVerdict>>, v: ClauseVerdict) => (v in t ? String(t[v]) : '');
  const rows = [
    '| | clauses | cases | checks |',
    '| --- | ---: | ---: | ---: |',
    ...CLAUSE_VERDICTS.map(
      (v) =>
        `| ${v} | ${complete ? count(s.clauses, v) : '?'} | ${VERDICTS.includes(v as never) ? count(s.cases, v) : ''} | ${VERDICTS.includes(v as never) ? count(s.checks, v) : ''} |`,
    ),
  ];
  return rows;
}

/**
 * The failing and erroring clauses; with `answer` (a heading), those where SPEC departs from Amazon
 * S3 whose failing answer was that one, with what Amazon S3 does.
 */
function failing(bad: ClauseResult[], answer?: string): string[] {
  const departing = answer !== undefined;
  const lines = departing
    ? [
        `#### ${mdText(answer)} (${bad.length})`,
        '',
        '| | clause | title | first message | Amazon S3 |',
        '| --- | --- | --- | --- | --- |',
      ]
    : [
        `### Failing and erroring clauses (${bad.length})`,
        '',
        '| | clause | title | first message |',
        '| --- | --- | --- | --- |',
      ];
  for (const k of bad.slice(0, MARKDOWN_ROW_LIMIT)) {
    const amazon = departing ? ` ${mdText(k.amazon ?? '')} |` : '';
    lines.push(
      `| ${ICON[k.verdict]} ${k.verdict} | ${code(k.id)} | ${mdText(cut(oneLine(k.title), TITLE_LIMIT))} | ${mdText(
        cut(oneLine(firstLine(k.message)), MESSAGE_LIMIT),
      )} |${amazon}`,
    );
  }
  if (bad.length > MARKDOWN_ROW_LIMIT) {
    lines.push(
      '',
      `…and ${bad.length - MARKDOWN_ROW_LIMIT} more; the JSON, JUnit and HTML reports list every clause.`,
    );
  }
  return lines;
}

/** Passing clauses that rest on part of their checks, with why the others were not exercised. */
function notExercised(partial: ClauseResult[]): string[] {
  const lines = [
    `### Passing clauses with checks not exercised (${partial.length})`,
    '',
    '| clause | title | checks not exercised |',
    '| --- | --- | --- |',
  ];
  for (const k of partial.slice(0, MARKDOWN_ROW_LIMIT)) {
    lines.push(
      `| ${code(k.id)} | ${mdText(cut(oneLine(k.title), TITLE_LIMIT))} | ${mdText(cut(oneLine(firstLine(k.message)), MESSAGE_LIMIT))} |`,
    );
  }
  if (partial.length > MARKDOWN_ROW_LIMIT)
    lines.push(
      '',
      `…and ${partial.length - MARKDOWN_ROW_LIMIT} more; the JSON and HTML reports list every clause.`,
    );
  return lines;
}

function ids(list: string[]): string {
  if (!list.length) return 'none';
  const shown = list.slice(0, ID_LIMIT).map(code).join(', ');
  return list.length > ID_LIMIT ? `${shown} and ${list.length - ID_LIMIT} more` : shown;
}

function baseline(b: NonNullable<RunResults['baseline']>): string[] {
  const lines = [`### Baseline ${code(b.file)}`, ''];
  if (!b.newFailures.length && !b.fixed.length) {
    lines.push(`The run matches its baseline: ${b.expected.length} known failures, no new ones, none fixed.`);
    return lines;
  }
  lines.push(`- **New failures (${b.newFailures.length})**: ${ids(b.newFailures)}`);
  const fix = b.fixed.length ? ' (they pass now: remove them from the baseline)' : '';
  lines.push(`- **Fixed (${b.fixed.length})**: ${ids(b.fixed)}${fix}`);
  lines.push(`- Still expected: ${b.expected.length}`);
  return lines;
}
