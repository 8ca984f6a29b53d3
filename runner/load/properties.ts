import { existsSync, readdirSync, readFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PropertyDef } from '../model/property.ts';
import { errorMessage, InputError } from '../util/errors.ts';
import { BUILT, CODE_ROOT, displayPath, ROOT, SUITES_CODE_DIR, SUITES_DIR } from '../util/paths.ts';

export interface LoadedProperty {
  def: PropertyDef;
  file: string;
  area: string;
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
    // Before tsx registers its own (loadsTypeScript), so that tsx hands these Node's own answers.
    if (codeRoot !== SUITES_CODE_DIR) ensureSuiteHooks();
    for (const file of propertyFiles(dir)) {
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
        out.push({ def, file: displayPath(file), area });
      });
    }
  }
  return out;
}
