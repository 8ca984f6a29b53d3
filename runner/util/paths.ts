import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Whether this is a build rather than the sources (the tests). A build mirrors the sources: the
 * package's in dist/ (dist/runner/util/paths.js), or a checkout's own, made by bin/source-build.mjs
 * under node_modules/.cache/edgecheck.
 */
export const BUILT = import.meta.url.endsWith('.js');

/** The top of the sources or of the build: runner/util/paths.* is two folders down. */
export const CODE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The project root: suites/, schemas/ and fixtures/ are found from here, whatever the cwd. */
export const ROOT = BUILT ? rootOfBuild(CODE_ROOT) : CODE_ROOT;
export const SCHEMAS_DIR = path.join(ROOT, 'schemas');
export const SUITES_DIR = path.join(ROOT, 'suites');
export const FIXTURES_DIR = path.join(ROOT, 'fixtures');
/** The code of the project's suites (their properties): the YAML's folder, or its build. */
export const SUITES_CODE_DIR = BUILT ? path.join(CODE_ROOT, 'suites') : SUITES_DIR;

/**
 * A checkout's build names the checkout it was made from in its package.json; the package's build
 * is dist/, one folder down.
 */
function rootOfBuild(build: string): string {
  try {
    const root = JSON.parse(readFileSync(path.join(build, 'package.json'), 'utf8')).edgecheckRoot;
    if (typeof root === 'string') return root;
  } catch {
    // dist/ has no package.json of its own.
  }
  return path.dirname(build);
}

/** Paths in messages are relative to the cwd when inside it, so they are clickable. */
export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
}
