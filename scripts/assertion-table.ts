/**
 * The section of each suite's README (suites/<area>/README.md, between `<!-- assertion-table:start -->`
 * and `<!-- assertion-table:end -->`) listing, for every clause, the assertions that cite it and
 * the statement each proves, or why none does: what `edgecheck lint --assertions` prints, by
 * family of clauses. `npm run tables` writes it; test/suite-readme-tables.test.ts fails when stale.
 */
import type { Assertion, ClauseAssertions } from '../runner/load/assertions.ts';

export const ASSERTION_HEADING = '## Assertions by clause';
export const ASSERTION_START = '<!-- assertion-table:start -->';
export const ASSERTION_END = '<!-- assertion-table:end -->';

const INTRO = [
  'Every clause with the assertions that cite it, by family: each case check (case, step, file and',
  'line) with the statement it proves (its title, else its matchers in words), each property with its',
  'own, each check of observed traffic written in `clauses.yaml` with the exchanges it judges; and why',
  'a clause no check cites is not judged. `edgecheck lint --assertions` prints the same;',
  '`npm run tables` writes this section and `test/suite-readme-tables.test.ts` fails when it is stale.',
].join('\n');

/** Text as inert Markdown: what would start emphasis, a link, HTML or a code span is escaped. */
const md = (text: string) => text.replace(/\s+/g, ' ').replace(/[\\`*_[\]<>|]/g, (c) => `\\${c}`);
/** A code span; a backquote inside would end it. */
const code = (text: string) => `\`${text.replace(/\s+/g, ' ').replace(/`/g, "'")}\``;

/** The family of a clause: its id up to the second dot (`s3.get`, `mgmt.dns`). */
const family = (id: string) => id.split('.').slice(0, 2).join('.');

function item(a: Assertion, area: string): string {
  const where = a.origin.replace(`suites/${area}/`, '');
  const who =
    a.kind === 'property'
      ? `property ${code(a.holder)}`
      : a.kind === 'traffic'
        ? a.holder === 'clauses.yaml'
          ? 'traffic check'
          : `traffic check ${code(a.holder)}`
        : `${code(a.holder)} step ${code(a.step ?? '')}`;
  const what = a.titled ? md(a.statement) : code(a.statement);
  return `  - ${who} (${md(where)}): ${what}`;
}

/** The section body of one area: a heading per family, a list item per clause with its assertions. */
export function assertionTable(area: string, entries: readonly ClauseAssertions[]): string {
  const out: string[] = [];
  let current = '';
  for (const { clause, assertions } of entries) {
    if (clause.area !== area) continue;
    if (family(clause.id) !== current) {
      current = family(clause.id);
      out.push(...(out.length ? [''] : []), `### ${current}`, '');
    }
    const amazon =
      clause.amazon === undefined
        ? ''
        : ` (SPEC departs from Amazon S3 here; Amazon S3: ${md(clause.amazon.says)})`;
    out.push(`- ${code(clause.id)}: ${md(clause.title)}${amazon}`);
    if (clause.untestable) out.push(`  - untestable: ${md(clause.untestable)}`);
    else if (!assertions.length) out.push('  - untested: no check cites it');
    for (const a of assertions) out.push(item(a, area));
  }
  if (!out.length) throw new Error(`suites/${area}: no clauses`);
  return out.join('\n');
}

/** What the README holds between the markers, or undefined when it has none. */
export function assertionTableIn(readme: string): string | undefined {
  const from = readme.indexOf(ASSERTION_START);
  const to = readme.indexOf(ASSERTION_END);
  if (from < 0 || to < from) return undefined;
  return readme.slice(from + ASSERTION_START.length, to).trim();
}

/** The README with the section replaced; without markers, the section is added at the end. */
export function withAssertionTable(readme: string, table: string): string {
  const block = `${ASSERTION_START}\n\n${table}\n\n${ASSERTION_END}`;
  const from = readme.indexOf(ASSERTION_START);
  const to = readme.indexOf(ASSERTION_END);
  if (from >= 0 && to > from) return readme.slice(0, from) + block + readme.slice(to + ASSERTION_END.length);
  return `${readme.trimEnd()}\n\n${ASSERTION_HEADING}\n\n${INTRO}\n\n${block}\n`;
}
