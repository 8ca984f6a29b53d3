import type { CaseDef } from '../model/case.ts';
import type { Clause } from '../model/clause.ts';
import { InputError } from '../util/errors.ts';
import { SUITES_DIR } from '../util/paths.ts';
import { caseFiles, loadCaseFile } from './cases.ts';
import { loadClauses } from './clauses.ts';
import { lintSuites, type Problem } from './lint.ts';
import { resolvePassiveRefs } from './passive-refs.ts';
import { type LoadedProperty, loadProperties } from './properties.ts';

export interface LoadedSuites {
  areas: string[];
  /** Clauses of every area (a case may cite another area's clause); `areas` says which to report. */
  clauses: Map<string, Clause>;
  cases: CaseDef[];
  properties: LoadedProperty[];
  problems: Problem[];
}

/**
 * Loads clauses of all areas and cases/properties of the selected ones, collecting every
 * problem instead of stopping at the first, so lint can list them all.
 */
export async function loadSuites(
  areas: string[],
  allAreas: string[],
  root = SUITES_DIR,
): Promise<LoadedSuites> {
  for (const a of areas) {
    if (!allAreas.includes(a))
      throw new InputError(`--suite ${a}`, `no such suite; known: ${allAreas.join(', ')}`);
  }
  const problems: Problem[] = [];
  const asProblem = (err: unknown) => {
    if (err instanceof InputError) problems.push({ where: err.where, what: err.what, level: 'error' });
    else throw err;
  };
  let clauses = new Map<string, Clause>();
  try {
    clauses = loadClauses(allAreas, root);
  } catch (err) {
    asProblem(err);
  }
  const cases: CaseDef[] = [];
  for (const area of areas) {
    for (const file of caseFiles(area, root)) {
      try {
        cases.push(...loadCaseFile(file, area, root));
      } catch (err) {
        asProblem(err);
      }
    }
  }
  let properties: LoadedProperty[] = [];
  try {
    properties = await loadProperties(areas, root);
  } catch (err) {
    asProblem(err);
  }
  if (!problems.length)
    problems.push(...resolvePassiveRefs(clauses, cases, areas.length === allAreas.length));
  if (!problems.length) problems.push(...lintSuites(clauses, cases, properties));
  return { areas, clauses, cases, properties, problems };
}
