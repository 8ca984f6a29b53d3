import type { ClauseResult, RunResults } from '../runner/model/results.ts';
import { CLAUSE_VERDICTS } from '../runner/model/verdict.ts';
import { InputError } from '../runner/util/errors.ts';
import { closingLine } from './console.ts';
import { esc, groupBySpec, htmlPage, verdictBadge } from './html-page.ts';
import { padEnd } from './text.ts';

export interface CompareOptions {
  /** Every clause, not only those whose verdicts differ. */
  all?: boolean;
}

/** Bad input to compare; the message is one line. */
export class CompareInputError extends InputError {
  override name = 'CompareInputError';
}

const ORDER = CLAUSE_VERDICTS;
/** A clause a run did not include (another suite selection, an older catalog). */
const ABSENT = '-';

/**
 * Side-by-side clause verdicts of several runs (the reference, a staging build, an emulator...):
 * a row per clause whose verdicts differ (all rows with `all`), then totals per run.
 */
export function compareResults(
  docs: { label: string; results: RunResults }[],
  options: CompareOptions = {},
): string {
  const { labels, verdicts, clauses } = columns(docs);
  const ids = clauses.map((c) => c.id);
  // Where SPEC departs from Amazon S3 the rows come apart: there a run may do as Amazon S3 does.
  const shared: string[][] = [];
  const departing: string[][] = [];
  let differing = 0;
  let differingDeparting = 0;
  for (const c of clauses) {
    const cells = verdicts.map((v) => v.get(c.id) ?? ABSENT);
    const differs = cells.some((x) => x !== cells[0]);
    if (differs) differing += 1;
    if (differs && c.amazon !== undefined) differingDeparting += 1;
    if (!differs && !options.all) continue;
    const id = options.all && differs ? `* ${c.id}` : c.id;
    if (c.amazon === undefined) shared.push([id, ...cells]);
    else departing.push([id, ...cells, c.amazon]);
  }

  const out: string[] = [];
  if (shared.length) out.push(...table(['clause', ...labels], shared), '');
  if (departing.length) {
    out.push(
      'Where SPEC departs from Amazon S3 (a run that does as Amazon S3 does fails these):',
      ...table(['clause', ...labels, 'Amazon S3'], departing),
      '',
    );
  }
  const what = differing === 1 ? 'clause differs' : 'clauses differ';
  out.push(
    `${differing} of ${ids.length} ${what}` +
      (differingDeparting ? ` (${differingDeparting} where SPEC departs from Amazon S3)` : '') +
      (options.all ? ' (marked *)' : '') +
      (ids.some((id) => verdicts.some((v) => !v.has(id)))
        ? `; ${ABSENT}: the run did not include the clause`
        : ''),
    '',
  );

  const totals = ORDER.map((v) => [v, ...docs.map((d) => String(d.results.summary.clauses[v] ?? 0))]);
  if (clauses.some((c) => c.amazon !== undefined)) {
    for (const v of ['fail', 'error'] as const)
      totals.push([
        `${v} where SPEC departs from Amazon S3`,
        ...verdicts.map((m) => String(departingCount(m, clauses, v))),
      ]);
  }
  totals.push(['as of', ...docs.map((d) => d.results.asOf)]);
  totals.push(['exit code', ...docs.map((d) => String(d.results.exitCode))]);
  out.push(...table(['totals', ...labels], totals), '');
  for (const d of docs) out.push(`${d.label}: ${closingLine(d.results.summary.clauses)}`);
  return `${out.join('\n')}\n`;
}

/**
 * How many clauses of a run, where SPEC departs from Amazon S3, have verdict `v`. The catalog of
 * any run says which depart, so a document of an earlier version is counted too.
 */
function departingCount(verdicts: Map<string, string>, clauses: ClauseResult[], v: string): number {
  return clauses.filter((c) => c.amazon !== undefined && verdicts.get(c.id) === v).length;
}

/** Labels checked, each run's verdicts by clause, and every clause once, in order of first appearance. */
function columns(docs: { label: string; results: RunResults }[]) {
  if (docs.length < 2)
    throw new CompareInputError('compare', 'give two or more results documents (--reporter json=PATH)');
  const labels = docs.map((d) => d.label);
  const dup = labels.find((l, i) => labels.indexOf(l) !== i);
  if (dup !== undefined)
    throw new CompareInputError('compare', `the label '${dup}' is used twice; name columns with label=path`);
  const verdicts = docs.map((d) => new Map(d.results.clauses.map((c) => [c.id, c.verdict])));
  const clauses: ClauseResult[] = [];
  const seen = new Set<string>();
  for (const d of docs) {
    for (const c of d.results.clauses) {
      if (!seen.has(c.id)) clauses.push(c);
      seen.add(c.id);
    }
  }
  // A document of an earlier version lacks amazon: any run's catalog says where SPEC departs.
  const amazon = new Map<string, string>();
  for (const d of docs)
    for (const c of d.results.clauses)
      if (c.amazon !== undefined && !amazon.has(c.id)) amazon.set(c.id, c.amazon);
  return {
    labels,
    verdicts,
    clauses: clauses.map((c) => (amazon.has(c.id) ? { ...c, amazon: amazon.get(c.id) } : c)),
  };
}

/**
 * `edgecheck compare ... --html FILE`: a self-contained page (html-page.ts) with a table of every
 * clause by SPEC section, one column per run, the rows that differ marked and, unless `all`,
 * the others hidden behind a checkbox; then the totals per run.
 */
export function compareHtml(
  docs: { label: string; results: RunResults }[],
  options: CompareOptions = {},
): string {
  const { labels, verdicts, clauses } = columns(docs);
  // Where SPEC departs from Amazon S3 the rows come apart: there a run may do as Amazon S3 does.
  const shared = compareTable(
    labels,
    verdicts,
    clauses.filter((c) => c.amazon === undefined),
  );
  const departing = compareTable(
    labels,
    verdicts,
    clauses.filter((c) => c.amazon !== undefined),
  );
  const differing = shared.differing + departing.differing;
  const what = differing === 1 ? 'clause differs' : 'clauses differ';
  const totals = ORDER.map(
    (v) =>
      `<tr><th>${verdictBadge(v)}</th>${docs.map((d) => `<td>${d.results.summary.clauses[v] ?? 0}</td>`).join('')}</tr>`,
  );
  if (departing.rows) {
    for (const v of ['fail', 'error'] as const)
      totals.push(
        `<tr><th>${verdictBadge(v)} where SPEC departs from Amazon S3</th>${verdicts.map((m) => `<td>${departingCount(m, clauses, v)}</td>`).join('')}</tr>`,
      );
  }
  totals.push(`<tr><th>as of</th>${docs.map((d) => `<td>${esc(d.results.asOf)}</td>`).join('')}</tr>`);
  totals.push(`<tr><th>exit code</th>${docs.map((d) => `<td>${d.results.exitCode}</td>`).join('')}</tr>`);
  const body = [
    `<h1>edgecheck compare: ${esc(labels.join(', '))}</h1>`,
    `<p><b>${differing} of ${clauses.length} ${what}</b>${departing.differing ? ` (${departing.differing} where SPEC departs from Amazon S3)` : ''} (marked at the left). ${ABSENT}: the run did not include the clause.</p>`,
    `<p><label><input type="checkbox" id="only-diff"${options.all ? '' : ' checked'}> only the clauses that differ</label></p>`,
    shared.rows ? shared.html : '',
  ];
  if (departing.rows) {
    body.push(
      '<h2>Where SPEC departs from Amazon S3</h2>',
      '<p>The last column says what Amazon S3 does instead: a run that does as Amazon S3 does fails these clauses.</p>',
      departing.html,
    );
  }
  body.push(
    '<h2>Totals</h2>',
    `<table class="totals"><tr><th></th>${labels.map((l) => `<th>${esc(l)}</th>`).join('')}</tr>${totals.join('')}</table>`,
    `<ul>${docs.map((d) => `<li>${esc(`${d.label}: ${closingLine(d.results.summary.clauses)}`)}</li>`).join('')}</ul>`,
  );
  return htmlPage(`edgecheck compare: ${labels.join(', ')}`, body.join('\n'), COMPARE_SCRIPT);
}

/** A table of the clauses by SPEC section, a column per run; with an Amazon S3 column when they depart from it. */
function compareTable(
  labels: string[],
  verdicts: Map<string, string>[],
  clauses: ClauseResult[],
): { html: string; rows: number; differing: number } {
  const amazon = clauses.some((c) => c.amazon !== undefined);
  const cell = (v: string | undefined) =>
    `<td class="v">${v === undefined ? `<b class="badge absent">${ABSENT}</b>` : verdictBadge(v)}</td>`;
  const head =
    `<tr><th>clause</th><th>title</th>${labels.map((l) => `<th>${esc(l)}</th>`).join('')}` +
    `${amazon ? '<th>Amazon S3</th>' : ''}</tr>`;
  const rows: string[] = [];
  let differing = 0;
  for (const group of groupBySpec(clauses)) {
    rows.push(
      `<tr class="sec"><th colspan="${labels.length + (amazon ? 3 : 2)}">${esc(`${group.area}: ${group.heading}`)}</th></tr>`,
    );
    for (const c of group.clauses) {
      const cells = verdicts.map((v) => v.get(c.id));
      const differs = cells.some((v) => v !== cells[0]);
      if (differs) differing += 1;
      rows.push(
        `<tr class="${differs ? 'diff' : 'same'}" title="${esc(c.section)}"><td><code>${esc(c.id)}</code></td>` +
          `<td>${esc(c.title)}</td>${cells.map(cell).join('')}` +
          `${amazon ? `<td class="muted">${esc(c.amazon ?? '')}</td>` : ''}</tr>`,
      );
    }
  }
  return {
    html: `<table class="cmp">${head}\n${rows.join('\n')}</table>`,
    rows: clauses.length,
    differing,
  };
}

/** Hides the rows that agree, and the section rows left empty, while the checkbox is on. */
const COMPARE_SCRIPT = `(() => {
  const box = document.getElementById('only-diff');
  const apply = () => {
    let section;
    let any = false;
    const close = () => { if (section) section.hidden = !any; };
    for (const row of document.querySelectorAll('table.cmp tr')) {
      if (row.classList.contains('sec')) { close(); section = row; any = false; continue; }
      if (!row.classList.contains('diff') && !row.classList.contains('same')) continue;
      row.hidden = box.checked && row.classList.contains('same');
      if (!row.hidden) any = true;
    }
    close();
  };
  box.addEventListener('change', apply);
  apply();
})();`;

function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : padEnd(c, widths[i])))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}
