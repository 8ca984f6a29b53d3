// Module hooks (node:module register) that let a suites folder kept anywhere load its properties.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_JSON = new URL('../package.json', import.meta.url).href;
const KIT = /^edgecheck(?:\/|$)/;
// The `exports` condition under which the package's entries are its TypeScript sources.
const SOURCE = 'edgecheck-source';
let fromSource = false;
/** The build that runs (dist/, or a checkout's own from bin/source-build.mjs) names the files of its entries. */
let entries = {};

/** bin/edgecheck.mjs says whether it runs the sources or the build (dist/). */
export function initialize(data) {
  fromSource = Boolean(data?.fromSource);
  entries = data?.entries ?? {};
}

export async function resolve(specifier, context, nextResolve) {
  if (Object.hasOwn(entries, specifier))
    return { url: entries[specifier], format: 'module', shortCircuit: true };
  // `edgecheck/kit` means this installation's kit, wherever the importing suite lives: resolved as a
  // self-reference from this package, so the package's `exports` still decide what is public; the
  // sources' kit when the sources run, else the build's.
  if (KIT.test(specifier)) {
    const conditions = fromSource ? [SOURCE, ...context.conditions] : context.conditions;
    return nextResolve(specifier, { ...context, conditions, parentURL: PACKAGE_JSON });
  }
  const resolved = await nextResolve(specifier, context);
  // Suites are ES modules, .ts or compiled .js. A copy outside any package (or in one whose
  // package.json names no "type") would otherwise run as CommonJS under tsx.
  if (
    !resolved.format &&
    resolved.url.startsWith('file:') &&
    /\.[jt]s$/.test(resolved.url) &&
    !resolved.url.includes('/node_modules/') &&
    packageType(path.dirname(fileURLToPath(resolved.url))) === undefined
  ) {
    return { ...resolved, format: 'module' };
  }
  return resolved;
}

const typeByDir = new Map();

/** The "type" of the nearest package.json above `dir` (undefined when none says). */
function packageType(dir) {
  if (typeByDir.has(dir)) return typeByDir.get(dir);
  let type;
  try {
    type = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).type;
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
    const parent = path.dirname(dir);
    type = parent === dir ? undefined : packageType(parent);
  }
  typeByDir.set(dir, type);
  return type;
}
