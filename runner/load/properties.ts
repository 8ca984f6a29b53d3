import { existsSync, readdirSync, readFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PropertyDef, PropertyMeta } from '../model/property.ts';
import { errorMessage, InputError } from '../util/errors.ts';
import { BUILT, CODE_ROOT, displayPath, ROOT, SUITES_CODE_DIR, SUITES_DIR } from '../util/paths.ts';

/** A property known by what it declares; its module is imported by load(), once. */
export interface LazyProperty {
  def: PropertyMeta;
  /** Its file as messages show it. */
  file: string;
  area: string;
  /** Its module (absolute) and its place in the module's default export. */
  module: string;
  index: number;
  load(): Promise<PropertyDef>;
}

/** A property whose module is imported. */
export interface LoadedProperty extends LazyProperty {
  def: PropertyDef;
}

/** A property as the compiled suites keep it: where it is, and what it declares. */
export interface KeptProperty {
  module: string;
  index: number;
  area: string;
  def: PropertyMeta;
}

/**
 * The property files of a folder: *.property.ts, or *.property.js (compiled, or written so).
 * Where a name has both, the sources run the .ts and the build the .js.
 */
function propertyFiles(dir: string): string[] {
  const names = readdirSync(dir).filter((n) => /\.property\.[jt]s$/.test(n));
  const preferred = BUILT ? '.js' : '.ts';
  return names
    .filter((n) => n.endsWith(preferred) || !names.includes(n.slice(0, -3) + preferred))
    .sort()
    .map((n) => path.join(dir, n));
}

/** Set by whoever registers bin/suite-hooks.mjs (bin/edgecheck.mjs does from the sources). */
const SUITE_HOOKS = Symbol.for('edgecheck.suite-hooks');

/**
 * The build registers the suite hooks (bin/suite-hooks.mjs) only when it loads suites kept outside
 * the package, whose `edgecheck/kit` and module format need them: once registered, every import
 * of the process goes through a loader thread, a third of a second of CPU at each start.
 * The project's own suites import the kit as the package's self-reference, which needs none.
 */
function ensureSuiteHooks(): void {
  const global = globalThis as Record<symbol, unknown>;
  if (!BUILT || global[SUITE_HOOKS]) return;
  global[SUITE_HOOKS] = true;
  // The entries of the build that runs: the package's dist/, or a checkout's (bin/source-build.mjs).
  const entries = {
    edgecheck: pathToFileURL(path.join(CODE_ROOT, 'runner', 'api.js')).href,
    'edgecheck/kit': pathToFileURL(path.join(CODE_ROOT, 'runner', 'kit.js')).href,
  };
  module.register(pathToFileURL(path.join(ROOT, 'bin', 'suite-hooks.mjs')).href, {
    data: { fromSource: false, entries },
  });
}

let typeScript: Promise<boolean> | undefined;

/**
 * From the sources, TypeScript already loads (tsx, vitest). The build loads a suites folder's .ts
 * properties through tsx when it is installed beside the suites, in the working folder or beside
 * edgecheck; it is not a dependency of the package.
 */
function loadsTypeScript(dir: string): Promise<boolean> {
  if (!BUILT) return Promise.resolve(true);
  typeScript ??= (async () => {
    for (const from of [dir, process.cwd(), import.meta.dirname]) {
      let manifest: string;
      try {
        manifest = createRequire(path.join(from, 'noop.js')).resolve('tsx/package.json');
      } catch {
        continue;
      }
      // The ES module entry of tsx/esm/api (its CommonJS one registers nothing when imported).
      const entry = JSON.parse(readFileSync(manifest, 'utf8')).exports?.['./esm/api']?.import;
      const file = typeof entry === 'string' ? entry : entry?.default;
      if (typeof file !== 'string') continue;
      const { register } = await import(pathToFileURL(path.join(path.dirname(manifest), file)).href);
      register();
      return true;
    }
    return false;
  })();
  return typeScript;
}

/** suites/<area>/properties/*.property.ts: each default-exports PropertyDef[]. */
export async function loadProperties(areas: string[], root = SUITES_DIR): Promise<LoadedProperty[]> {
  // The project's own properties run from their build when this is the build.
  const codeRoot = path.resolve(root) === SUITES_DIR ? SUITES_CODE_DIR : root;
  const out: LoadedProperty[] = [];
  for (const area of areas) {
    const dir = path.join(codeRoot, area, 'properties');
    if (!existsSync(dir)) continue;
    for (const module of propertyFiles(dir)) {
      const defs = await importProperties(module);
      defs.forEach((def, index) => {
        out.push({ def, file: displayPath(module), area, module, index, load: async () => def });
      });
    }
  }
  return out;
}

/** The module's properties, each checked to be one. */
async function importProperties(file: string): Promise<PropertyDef[]> {
  const dir = path.dirname(file);
  // Before tsx registers its own (loadsTypeScript), so that tsx hands these Node's own answers.
  if (!file.startsWith(SUITES_CODE_DIR + path.sep)) ensureSuiteHooks();
  if (file.endsWith('.ts') && !(await loadsTypeScript(dir))) {
    throw new InputError(
      displayPath(file),
      'TypeScript properties need tsx: install it (npm install tsx) beside the suites, or compile them to .property.js',
    );
  }
  let mod: { default?: unknown };
  try {
    mod = await import(pathToFileURL(file).href);
  } catch (err) {
    throw new InputError(displayPath(file), `cannot load: ${errorMessage(err).split('\n')[0]}`);
  }
  const defs = mod.default;
  if (!Array.isArray(defs)) {
    throw new InputError(
      displayPath(file),
      'the default export must be an array of properties (PropertyDef[])',
    );
  }
  defs.forEach((def: PropertyDef, i) => {
    if (
      !def ||
      typeof def.id !== 'string' ||
      !Array.isArray(def.clauses) ||
      (typeof def.run !== 'function' && typeof def.observe?.observer !== 'function')
    ) {
      throw new InputError(
        `${displayPath(file)} [${i}]`,
        'a property needs id, title, clauses and run(ctx), or observe where it only judges traffic',
      );
    }
  });
  return defs;
}

/** What the compiled suites keep of loaded properties: no function, so no module, is kept. */
export function keptProperties(properties: LoadedProperty[]): KeptProperty[] {
  return properties.map(({ def, module, index, area }) => {
    const { run, observe, ...declared } = def;
    const meta: PropertyMeta = {
      ...declared,
      ...(run ? { run: true as const } : {}),
      ...(observe ? { observe: { selects: observe.selects } } : {}),
    };
    return { module, index, area, def: meta };
  });
}

/**
 * Kept properties, each module imported when one of its properties is first loaded: a run selecting
 * one clause imports no other property's module (their generators, fast-check).
 */
export function lazyProperties(kept: KeptProperty[]): LazyProperty[] {
  const modules = new Map<string, Promise<PropertyDef[]>>();
  return kept.map(({ module, index, area, def }) => {
    let loaded: Promise<PropertyDef> | undefined;
    const load = () => {
      loaded ??= (async () => {
        if (!modules.has(module)) modules.set(module, importProperties(module));
        const found = (await modules.get(module)!)[index];
        // The key of the compiled suites covers this module: a mismatch is a file changed meanwhile.
        if (found?.id !== def.id)
          throw new InputError(
            displayPath(module),
            `property '${def.id}' is no longer at [${index}]: run again`,
          );
        return found;
      })();
      return loaded;
    };
    return { def, file: displayPath(module), area, module, index, load };
  });
}
