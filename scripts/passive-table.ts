/**
 * The README's table of the clauses observed traffic can judge (`edgecheck proxy`, `edgecheck
 * judge`), between `<!-- passive-table:start -->` and `<!-- passive-table:end -->`: each clause with
 * the exchanges its declared checks select and the check they apply, or the property whose observer
 * judges it. `npm run tables` writes it; test/suite-readme-tables.test.ts fails when it is stale.
 */
import type { LoadedSuites } from '../runner/load/suite.ts';
import type { PassiveWhen } from '../runner/model/clause.ts';
import { passiveClauses } from '../runner/passive/index.ts';

export const PASSIVE_START = '<!-- passive-table:start -->';
export const PASSIVE_END = '<!-- passive-table:end -->';

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

/** What the README holds between the markers, or undefined when it has none. */
export function passiveTableIn(readme: string): string | undefined {
  const from = readme.indexOf(PASSIVE_START);
  const to = readme.indexOf(PASSIVE_END);
  if (from < 0 || to < from) return undefined;
  return readme.slice(from + PASSIVE_START.length, to).trim();
}

/** The README with the table between its markers replaced. */
export function withPassiveTable(readme: string, table: string): string {
  const from = readme.indexOf(PASSIVE_START);
  const to = readme.indexOf(PASSIVE_END);
  if (from < 0 || to < from) throw new Error(`README.md has no ${PASSIVE_START} ... ${PASSIVE_END} markers`);
  return `${readme.slice(0, from)}${PASSIVE_START}\n\n${table}\n\n${readme.slice(to)}`;
}
