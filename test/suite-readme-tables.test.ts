import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clauseAssertions } from '../runner/load/assertions.ts';
import { listAreas } from '../runner/load/clauses.ts';
import { loadSuites } from '../runner/load/suite.ts';
import { ROOT } from '../runner/util/paths.ts';
import { assertionTable, assertionTableIn } from '../scripts/assertion-table.ts';
import {
  type Coverage,
  clauseTable,
  isTestable,
  loadCoverage,
  ONE_FAULT_HEADING,
  readmeFile,
  TABLE_AREAS,
  tableIn,
} from '../scripts/clause-tables.ts';
import {
  passiveTable,
  passiveTableIn,
  unobservableTable,
  unobservableTableIn,
} from '../scripts/passive-table.ts';

/*
 * Each suite's README shows, per clause, the checks that cite it and the faults that break it
 * (scripts/clause-tables.ts writes the table). A fault proves a check notices a broken behaviour;
 * one fault alone may prove a check that notices only that one way of breaking it, so a testable
 * clause has two faults, or its README says why one suffices.
 */

const coverage: Coverage = await loadCoverage();
const areas = listAreas();
const suites = await loadSuites(areas, areas);
const readme = (area: string) => readFileSync(readmeFile(area), 'utf8');

/** The clause ids listed as "- `id`: reason" under the one-fault heading, up to the next heading. */
function provedByOneFault(text: string): Set<string> {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.trim() === ONE_FAULT_HEADING);
  const ids = new Set<string>();
  if (at < 0) return ids;
  for (const line of lines.slice(at + 1)) {
    if (/^#{1,2} /.test(line)) break;
    const m = /^- `([^`]+)`:\s*\S/.exec(line);
    if (m) ids.add(m[1]);
  }
  return ids;
}

describe("README.md's table of the clauses traffic can judge", () => {
  it('is the table the clauses and properties give', () => {
    const written = passiveTableIn(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    expect(written, 'README.md has no passive table markers').toBeDefined();
    expect(
      written,
      "README.md's table of clauses judged from traffic is out of date: run `npm run tables`",
    ).toBe(passiveTable(suites));
  });

  it('is followed by the table of the clauses traffic cannot judge, each with why, and the counts', () => {
    const written = unobservableTableIn(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    expect(written, 'README.md has no unobservable table markers').toBeDefined();
    expect(
      written,
      "README.md's table of clauses traffic cannot judge is out of date: run `npm run tables`",
    ).toBe(unobservableTable(suites));
  });
});

describe('the clause tables of the suite READMEs', () => {
  it.each(TABLE_AREAS)('suites/%s/README.md holds the table the sources give', (area) => {
    const written = tableIn(readme(area));
    expect(written, `suites/${area}/README.md has no clause table: run \`npm run tables\``).toBeDefined();
    expect(written, `suites/${area}/README.md's clause table is out of date: run \`npm run tables\``).toBe(
      clauseTable(area, coverage),
    );
  });

  it.each(TABLE_AREAS)(
    'suites/%s/README.md lists every clause with the assertions citing it and what each proves',
    (area) => {
      const written = assertionTableIn(readme(area));
      expect(
        written,
        `suites/${area}/README.md has no assertion table: run \`npm run tables\``,
      ).toBeDefined();
      expect(
        written,
        `suites/${area}/README.md's assertion table is out of date: run \`npm run tables\``,
      ).toBe(assertionTable(area, clauseAssertions(suites)));
    },
  );

  it('every testable clause has two faults, or its README says why one suffices', () => {
    const lacking: string[] = [];
    for (const area of TABLE_AREAS) {
      const excused = provedByOneFault(readme(area));
      for (const row of coverage.clauses) {
        if (row.clause.area !== area || !isTestable(row) || row.faults.length >= 2) continue;
        if (excused.has(row.clause.id)) continue;
        lacking.push(
          `${row.clause.id} (${area}): ${row.faults.length ? `only ${row.faults.join(', ')}` : 'no fault'}`,
        );
      }
    }
    expect(
      lacking,
      `${lacking.length} testable clauses have fewer than two faults and no line "- \`id\`: reason" under "${ONE_FAULT_HEADING}" in their suite's README`,
    ).toEqual([]);
  });
});
