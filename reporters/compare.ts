import type { RunResults } from '../runner/model/results.ts';
import { CLAUSE_VERDICTS, type ClauseVerdict } from '../runner/model/verdict.ts';
import { InputError } from '../runner/util/errors.ts';
import { closingLine } from './console.ts';
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
  if (docs.length < 2)
    throw new CompareInputError('compare', 'give two or more results documents (--reporter json=PATH)');
  const labels = docs.map((d) => d.label);
  const dup = labels.find((l, i) => labels.indexOf(l) !== i);
  if (dup !== undefined)
    throw new CompareInputError('compare', `the label '${dup}' is used twice; name columns with label=path`);

  const verdicts = docs.map((d) => new Map(d.results.clauses.map((c) => [c.id, c.verdict])));
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const d of docs) {
    for (const c of d.results.clauses) {
      if (!seen.has(c.id)) ids.push(c.id);
      seen.add(c.id);
    }
  }
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

function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : padEnd(c, widths[i])))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}
