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
  const rows: string[][] = [];
  let differing = 0;
  for (const id of ids) {
    const cells = verdicts.map((v) => v.get(id) ?? ABSENT);
    const differs = cells.some((c) => c !== cells[0]);
    if (differs) differing += 1;
    if (differs || options.all) rows.push([options.all && differs ? `* ${id}` : id, ...cells]);
  }

  const out: string[] = [];
  if (rows.length) {
    out.push(...table(['clause', ...labels], rows), '');
  }
  const what = differing === 1 ? 'clause differs' : 'clauses differ';
  out.push(
    `${differing} of ${ids.length} ${what}` +
      (options.all ? ' (marked *)' : '') +
      (ids.some((id) => verdicts.some((v) => !v.has(id)))
        ? `; ${ABSENT}: the run did not include the clause`
        : ''),
    '',
  );

  const totals = ORDER.map((v) => [v, ...docs.map((d) => String(d.results.summary.clauses[v] ?? 0))]);
  totals.push(['as of', ...docs.map((d) => d.results.asOf)]);
  totals.push(['exit code', ...docs.map((d) => String(d.results.exitCode))]);
  out.push(...table(['totals', ...labels], totals), '');
  for (const d of docs) out.push(`${d.label}: ${closingLine(d.results.summary.clauses)}`);
  return `${out.join('\n')}\n`;
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
  return { labels, verdicts, clauses };
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
  const cell = (v: string | undefined) =>
    `<td class="v">${v === undefined ? `<b class="badge absent">${ABSENT}</b>` : verdictBadge(v)}</td>`;
  const head = `<tr><th>clause</th><th>title</th>${labels.map((l) => `<th>${esc(l)}</th>`).join('')}</tr>`;
  const rows: string[] = [];
  let differing = 0;
  for (const group of groupBySpec(clauses)) {
    rows.push(
      `<tr class="sec"><th colspan="${labels.length + 2}">${esc(`${group.area}: ${group.heading}`)}</th></tr>`,
    );
    for (const c of group.clauses) {
      const cells = verdicts.map((v) => v.get(c.id));
      const differs = cells.some((v) => v !== cells[0]);
      if (differs) differing += 1;
      rows.push(
        `<tr class="${differs ? 'diff' : 'same'}" title="${esc(c.section)}"><td><code>${esc(c.id)}</code></td>` +
          `<td>${esc(c.title)}</td>${cells.map(cell).join('')}</tr>`,
      );
    }
  }
  const what = differing === 1 ? 'clause differs' : 'clauses differ';
  const totals = ORDER.map(
    (v) =>
      `<tr><th>${verdictBadge(v)}</th>${docs.map((d) => `<td>${d.results.summary.clauses[v] ?? 0}</td>`).join('')}</tr>`,
  );
  totals.push(`<tr><th>as of</th>${docs.map((d) => `<td>${esc(d.results.asOf)}</td>`).join('')}</tr>`);
  totals.push(`<tr><th>exit code</th>${docs.map((d) => `<td>${d.results.exitCode}</td>`).join('')}</tr>`);
  const body = [
    `<h1>edgecheck compare: ${esc(labels.join(', '))}</h1>`,
    `<p><b>${differing} of ${clauses.length} ${what}</b> (marked at the left). ${ABSENT}: the run did not include the clause.</p>`,
    `<p><label><input type="checkbox" id="only-diff"${options.all ? '' : ' checked'}> only the clauses that differ</label></p>`,
    `<table class="cmp">${head}\n${rows.join('\n')}</table>`,
    '<h2>Totals</h2>',
    `<table class="totals"><tr><th></th>${labels.map((l) => `<th>${esc(l)}</th>`).join('')}</tr>${totals.join('')}</table>`,
    `<ul>${docs.map((d) => `<li>${esc(`${d.label}: ${closingLine(d.results.summary.clauses)}`)}</li>`).join('')}</ul>`,
  ];
  return htmlPage(`edgecheck compare: ${labels.join(', ')}`, body.join('\n'), COMPARE_SCRIPT);
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
