/**
 * Writes the per-clause table of each suite's README (suites/<area>/README.md, between
 * `<!-- clause-table:start -->` and `<!-- clause-table:end -->`) from the clauses, the checks of
 * the cases and properties that cite them, and the reference's fault catalog. `npm run tables`
 * runs it; test/suite-readme-tables.test.ts fails when a table is not what this would write.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAULTS } from '../reference/faults.ts';
import { clauseAssertions } from '../runner/load/assertions.ts';
import { listAreas } from '../runner/load/clauses.ts';
import { loadSuites } from '../runner/load/suite.ts';
import type { Clause } from '../runner/model/clause.ts';
import { ROOT, SUITES_DIR } from '../runner/util/paths.ts';
import { assertionTable, withAssertionTable } from './assertion-table.ts';
import { passiveTable, unobservableTable, withPassiveTable, withUnobservableTable } from './passive-table.ts';

/** The suites whose README carries a table. */
export const TABLE_AREAS = ['management', 'deprecations', 's3'] as const;

export const readmeFile = (area: string) => path.join(SUITES_DIR, area, 'README.md');

export const TABLE_HEADING = '## Clauses, checks and faults';
export const TABLE_START = '<!-- clause-table:start -->';
export const TABLE_END = '<!-- clause-table:end -->';
/** The README section that names, with the reason, the clauses only one fault proves. */
export const ONE_FAULT_HEADING = '## Clauses proved by one fault';

/** One clause with what checks it and what breaks it. */
export interface ClauseCoverage {
  clause: Clause;
  /** How many checks cite it: `expect` entries of case steps, and properties (one check each). */
  checks: number;
  /** The cases and properties holding those checks, each once, in suite order. */
  holders: string[];
  /** The reference faults whose `breaks` lists it. */
  faults: string[];
}

export interface Coverage {
  /** Every clause of every area, in catalog order. */
  clauses: ClauseCoverage[];
  /** Clause ids a fault lists that no clauses.yaml defines, as `fault: id`. */
  unknownBreaks: string[];
}

/** Loads every suite and the fault catalog; a suite that does not load is an error, not a table. */
export async function loadCoverage(): Promise<Coverage> {
  const areas = listAreas();
  const suites = await loadSuites(areas, areas);
  const errors = suites.problems.filter((p) => p.level === 'error');
  if (errors.length)
    throw new Error(`the suites do not load:\n${errors.map((p) => `${p.where}: ${p.what}`).join('\n')}`);

  const byId = new Map<string, ClauseCoverage>();
  for (const clause of suites.clauses.values())
    byId.set(clause.id, { clause, checks: 0, holders: [], faults: [] });
  const cite = (holder: string, ids: string[]) => {
    for (const id of ids) {
      const row = byId.get(id);
      if (!row) continue;
      row.checks++;
      if (!row.holders.includes(holder)) row.holders.push(holder);
    }
  };
  for (const c of suites.cases) {
    // Teardown steps hold no checks (lint refuses them), so given and steps are all there is.
    for (const step of [...c.given, ...c.steps])
      for (const check of step.expect ?? []) cite(c.id, check.clauses);
  }
  for (const p of suites.properties) if (p.def.run) cite(p.def.id, p.def.clauses);

  const unknownBreaks: string[] = [];
  for (const fault of FAULTS) {
    for (const id of fault.breaks) {
      const row = byId.get(id);
      if (row) row.faults.push(fault.name);
      else unknownBreaks.push(`${fault.name}: ${id}`);
    }
  }
  return { clauses: [...byId.values()], unknownBreaks };
}

/** Testable: not marked untestable and cited by at least one check. */
export const isTestable = (row: ClauseCoverage) => !row.clause.untestable && row.checks > 0;

const code = (text: string) => `\`${text}\``;
const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** How many holders a Checks cell names before it only counts the rest. */
const HOLDERS_SHOWN = 2;

function checksCell(row: ClauseCoverage): string {
  if (row.checks === 0) return '0';
  const shown = row.holders.slice(0, HOLDERS_SHOWN).map(code).join(', ');
  const rest = row.holders.length - HOLDERS_SHOWN;
  return `${row.checks} in ${shown}${rest > 0 ? ` +${rest} more` : ''}`;
}

/** Why or when a clause goes unjudged: untestable, cited by nothing, dated, or feature-bound. */
function notCheckedCell({ clause, checks }: ClauseCoverage): string {
  if (clause.untestable) return `untestable: ${clause.untestable}`;
  const notes: string[] = [];
  if (checks === 0) notes.push('no check cites it');
  // since holds from its day on, until up to the day before (runner/model/clause.ts).
  if (clause.since && clause.until) notes.push(`judged from ${clause.since}, before ${clause.until}`);
  else if (clause.since) notes.push(`judged from ${clause.since}`);
  else if (clause.until) notes.push(`judged before ${clause.until}`);
  if (clause.feature) notes.push(`needs feature ${code(clause.feature)}`);
  return notes.join('; ');
}

/** The Markdown table of one area: one row per clause, in the order of its clauses.yaml. */
export function clauseTable(area: string, coverage: Coverage): string {
  const rows = coverage.clauses
    .filter((row) => row.clause.area === area)
    .map((row) => [
      code(row.clause.id),
      checksCell(row),
      row.faults.length ? row.faults.map(code).join(', ') : '',
      notCheckedCell(row),
    ]);
  if (!rows.length) throw new Error(`suites/${area}: no clauses`);
  const line = (r: string[]) => `| ${r.map(cell).join(' | ')} |`;
  return [
    line(['Clause', 'Checks', 'Faults', 'Not checked']),
    '| --- | --- | --- | --- |',
    ...rows.map(line),
  ].join('\n');
}

/** What the README holds between the markers, or undefined when it has no markers. */
export function tableIn(readme: string): string | undefined {
  const from = readme.indexOf(TABLE_START);
  const to = readme.indexOf(TABLE_END);
  if (from < 0 || to < from) return undefined;
  return readme.slice(from + TABLE_START.length, to).trim();
}

const INTRO = [
  'One row per clause of `clauses.yaml`: the checks citing it (with the cases and properties that hold',
  'them), the reference faults that break it, and why or when it is not judged. `npm run tables`',
  'writes it from those sources; `test/suite-readme-tables.test.ts` fails when it is out of date.',
].join('\n');

/**
 * The README with its table replaced; without markers, the section is added before the one-fault
 * section (they are read together) or else at the end.
 */
export function withTable(readme: string, table: string): string {
  const block = `${TABLE_START}\n\n${table}\n\n${TABLE_END}`;
  const from = readme.indexOf(TABLE_START);
  const to = readme.indexOf(TABLE_END);
  if (from >= 0 && to > from) return readme.slice(0, from) + block + readme.slice(to + TABLE_END.length);
  const section = `${TABLE_HEADING}\n\n${INTRO}\n\n${block}\n`;
  const oneFault = readme.search(new RegExp(`^${ONE_FAULT_HEADING}\\s*$`, 'm'));
  if (oneFault >= 0) return `${readme.slice(0, oneFault)}${section}\n${readme.slice(oneFault)}`;
  return `${readme.trimEnd()}\n\n${section}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const coverage = await loadCoverage();
  const areas = listAreas();
  const suites = await loadSuites(areas, areas);
  const assertions = clauseAssertions(suites);
  for (const area of TABLE_AREAS) {
    const file = readmeFile(area);
    const readme = withTable(readFileSync(file, 'utf8'), clauseTable(area, coverage));
    writeFileSync(file, withAssertionTable(readme, assertionTable(area, assertions)));
  }
  for (const entry of coverage.unknownBreaks) console.warn(`a fault lists an unknown clause: ${entry}`);
  const readme = path.join(ROOT, 'README.md');
  const judged = withPassiveTable(readFileSync(readme, 'utf8'), passiveTable(suites));
  writeFileSync(readme, withUnobservableTable(judged, unobservableTable(suites)));
  console.log(
    `wrote the clause and assertion tables of ${TABLE_AREAS.map((a) => `suites/${a}/README.md`).join(', ')} and README.md's tables of the clauses traffic judges and of those it cannot`,
  );
}
