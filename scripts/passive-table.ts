/**
 * The README's tables of the clauses observed traffic can judge (`edgecheck proxy`, `edgecheck
 * judge`), between `<!-- passive-table:start -->` and `<!-- passive-table:end -->`: each clause with
 * the exchanges its declared checks select and the check they apply, or the property whose observer
 * judges it; and of those it cannot, each with why, between `<!-- unobservable-table:start -->` and
 * `<!-- unobservable-table:end -->`. `npm run tables` writes them; test/suite-readme-tables.test.ts
 * fails when one is stale.
 */
import type { LoadedSuites } from '../runner/load/suite.ts';
import type { PassiveWhen } from '../runner/model/clause.ts';
import { isJudged, passiveClauses, passiveStandings } from '../runner/passive/index.ts';

export const PASSIVE_START = '<!-- passive-table:start -->';
export const PASSIVE_END = '<!-- passive-table:end -->';
export const UNOBSERVABLE_START = '<!-- unobservable-table:start -->';
export const UNOBSERVABLE_END = '<!-- unobservable-table:end -->';

const code = (s: string) => `\`${s.replace(/\|/g, '\\|')}\``;

/** `when` in words: the door, then each condition as written. */
function selection(w: PassiveWhen): string {
  const parts = [w.door === 's3' ? 'S3' : w.door === 'management' ? 'management' : 'any'];
  if (w.method) parts.push(w.method);
  if (w.path) parts.push(`path ${code(w.path)}`);
  if (w.query) parts.push(`query ${code(w.query)}`);
  if (w.status !== undefined) parts.push(`status ${code(JSON.stringify(w.status))}`);
  for (const [name, m] of Object.entries(w.requestHeaders ?? {}))
    parts.push(`${name} ${code(JSON.stringify(m))}`);
  return parts.join(', ');
}

export function passiveTable(suites: Pick<LoadedSuites, 'clauses' | 'properties'>): string {
  const selects = new Map(suites.properties.map((p) => [p.def.id, p.def.observe?.selects ?? '']));
  const rows = passiveClauses({ clauses: suites.clauses.values(), properties: suites.properties }).flatMap(
    ({ clause, observers }) => [
      ...(clause.passive ?? []).map(
        (p) =>
          `| ${code(clause.id)} | ${selection(p.when)} | ${p.sameAs ? `the check of ${code(p.sameAs)}` : 'the check written in `clauses.yaml`'} |`,
      ),
      ...observers.map(
        (id) => `| ${code(clause.id)} | ${selects.get(id)} | the observer of the property ${code(id)} |`,
      ),
    ],
  );
  return ['| clause | exchanges | judged by |', '| --- | --- | --- |', ...rows].join('\n');
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

/**
 * The counts, then per area (folded, each a long list) the clauses traffic cannot judge, in
 * catalog order, each with the reason its clauses.yaml gives.
 */
export function unobservableTable(suites: Pick<LoadedSuites, 'clauses' | 'properties'>): string {
  const standings = passiveStandings({ clauses: suites.clauses.values(), properties: suites.properties });
  const not = standings.filter((s) => !isJudged(s));
  const judged = standings.length - not.length;
  const areas = [...new Set(not.map((s) => s.clause.area))];
  const count = (n: number) => `${n} clause${n === 1 ? '' : 's'}`;
  return [
    `Of ${standings.length} clauses, ${judged} are judged from observed traffic (the table above) and ${not.length} are not, each for the reason its \`clauses.yaml\` entry gives (\`unobservable\`, or \`untestable\`):`,
    ...areas.map((area) => {
      const rows = not
        .filter((s) => s.clause.area === area)
        .map((s) => `| ${code(s.clause.id)} | ${cell(s.reason ?? 'says neither (edgecheck lint fails)')} |`);
      return [
        `<details><summary><code>${area}</code>: ${count(rows.length)}</summary>`,
        '',
        '| clause | why observed traffic cannot judge it |',
        '| --- | --- |',
        ...rows,
        '',
        '</details>',
      ].join('\n');
    }),
  ].join('\n\n');
}

/** What the README holds between the markers, or undefined when it has none. */
export function betweenMarkers(readme: string, start: string, end: string): string | undefined {
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) return undefined;
  return readme.slice(from + start.length, to).trim();
}

/** The README with the text between the markers replaced. */
export function withBetweenMarkers(readme: string, start: string, end: string, text: string): string {
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md has no ${start} ... ${end} markers`);
  return `${readme.slice(0, from)}${start}\n\n${text}\n\n${readme.slice(to)}`;
}

/** The judged table between its markers, or undefined. */
export const passiveTableIn = (readme: string) => betweenMarkers(readme, PASSIVE_START, PASSIVE_END);

/** The README with the judged table replaced. */
export const withPassiveTable = (readme: string, table: string) =>
  withBetweenMarkers(readme, PASSIVE_START, PASSIVE_END, table);

/** The table of clauses traffic cannot judge between its markers, or undefined. */
export const unobservableTableIn = (readme: string) =>
  betweenMarkers(readme, UNOBSERVABLE_START, UNOBSERVABLE_END);

/** The README with the table of clauses traffic cannot judge replaced. */
export const withUnobservableTable = (readme: string, table: string) =>
  withBetweenMarkers(readme, UNOBSERVABLE_START, UNOBSERVABLE_END, table);
