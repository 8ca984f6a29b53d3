import type { CaseDef } from '../model/case.ts';
import type { Clause } from '../model/clause.ts';
import { InputError } from '../util/errors.ts';
import { SUITES_DIR } from '../util/paths.ts';
import { cacheDir, contentKey, keepable, readCached, writeCached } from './compiled-cache.ts';
import type { Problem } from './lint.ts';
import { resolvePassiveRefs } from './passive-refs.ts';
import {
  type KeptProperty,
  keptProperties,
  type LazyProperty,
  type LoadedProperty,
  lazyProperties,
  loadProperties,
} from './properties.ts';

export interface LoadedSuites<P extends LazyProperty = LoadedProperty> {
  areas: string[];
  /** Clauses of every area (a case may cite another area's clause); `areas` says which to report. */
  clauses: Map<string, Clause>;
  cases: CaseDef[];
  properties: P[];
  problems: Problem[];
}

export interface LoadOptions {
  /**
   * Only errors matter (a run stops on them; warnings are lint's): a form read from the compiled
   * cache, kept only when its lint found no error, is not linted again.
   */
  errorsOnly?: boolean;
  /**
   * Properties known by what they declare, each module imported when the property is loaded (a
   * run imports those it selects); otherwise every property's module is imported.
   */
  lazyProperties?: boolean;
}

/**
 * Loads clauses of all areas and cases/properties of the selected ones, collecting every
 * problem instead of stopping at the first, so lint can list them all.
 */
export async function loadSuites(
  areas: string[],
  allAreas: string[],
  root: string | undefined,
  options: LoadOptions & { lazyProperties: true },
): Promise<LoadedSuites<LazyProperty>>;
export async function loadSuites(
  areas: string[],
  allAreas: string[],
  root?: string,
  options?: LoadOptions,
): Promise<LoadedSuites>;
export async function loadSuites(
  areas: string[],
  allAreas: string[],
  root = SUITES_DIR,
  options: LoadOptions = {},
): Promise<LoadedSuites<LazyProperty>> {
  for (const a of areas) {
    if (!allAreas.includes(a))
      throw new InputError(`--suite ${a}`, `no such suite; known: ${allAreas.join(', ')}`);
  }
  const problems: Problem[] = [];
  // The suites as the engine runs them, from the compiled cache when no source file changed since.
  // With the cache off (EDGECHECK_CACHE=0, or no folder of this user's), nothing is hashed either.
  const key = cacheDir() ? contentKey(root, `${areas.join(',')}\0${allAreas.join(',')}`) : undefined;
  const cached = key ? fromCache(readCached<Kept>(key)) : undefined;
  const compiled = cached ?? (await compile(areas, allAreas, root, problems));
  // Taken now: resolving passive references below changes the clauses in place.
  const fresh = key && !cached && !problems.length ? keepable(kept(compiled)) : undefined;
  const { clauses, cases } = compiled;
  let properties: LazyProperty[] = compiled.properties;
  if (!options.lazyProperties && cached) {
    try {
      properties = await Promise.all(properties.map(async (p) => ({ ...p, def: await p.load() })));
    } catch (err) {
      collectInto(problems)(err);
    }
  }
  if (!problems.length)
    problems.push(...resolvePassiveRefs(clauses, cases, areas.length === allAreas.length));
  if (!problems.length && !(cached && options.errorsOnly)) {
    const { lintSuites } = await import('./lint.ts');
    problems.push(...lintSuites(clauses, cases, properties));
  }
  if (key && fresh !== undefined && !problems.some((p) => p.level === 'error')) writeCached(key, fresh);
  return { areas, clauses, cases, properties, problems };
}

interface Compiled {
  clauses: Map<string, Clause>;
  cases: CaseDef[];
  properties: LazyProperty[];
}

/** The compiled form as the cache keeps it: JSON, the clauses as entries. */
interface Kept {
  clauses: [string, Clause][];
  cases: CaseDef[];
  properties: KeptProperty[];
}

function fromCache(kept: Kept | undefined): Compiled | undefined {
  return (
    kept && {
      clauses: new Map(kept.clauses),
      cases: kept.cases,
      properties: lazyProperties(kept.properties),
    }
  );
}

/**
 * Clauses of all areas and cases of the selected ones from their YAML, and their properties from
 * their modules, each problem collected. The case loader loads only here, with the case format (TypeBox,
 * two hundred modules) it validates against.
 */
async function compile(
  areas: string[],
  allAreas: string[],
  root: string,
  problems: Problem[],
): Promise<Compiled> {
  const [{ caseFiles, loadCaseFile }, { loadClauses }] = await Promise.all([
    import('./cases.ts'),
    import('./clauses.ts'),
  ]);
  const asProblem = collectInto(problems);
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
  return { clauses, cases, properties };
}

function kept(compiled: Compiled): Kept {
  return {
    clauses: [...compiled.clauses],
    cases: compiled.cases,
    properties: keptProperties(compiled.properties as LoadedProperty[]),
  };
}

/** An InputError as a problem of `problems`; anything else is not the input's, and is thrown. */
function collectInto(problems: Problem[]): (err: unknown) => void {
  return (err) => {
    if (err instanceof InputError) problems.push({ where: err.where, what: err.what, level: 'error' });
    else throw err;
  };
}
