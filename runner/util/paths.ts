import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Whether this is the build (dist/, what the published package runs) rather than the sources
 * (a checkout, the tests). The build mirrors the sources one folder down: dist/runner/util/paths.js.
 */
export const BUILT = import.meta.url.endsWith('.js');

/** The project root: suites/, schemas/ and fixtures/ are found from here, whatever the cwd. */
export const ROOT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  ...(BUILT ? ['..', '..', '..'] : ['..', '..']),
);
export const SCHEMAS_DIR = path.join(ROOT, 'schemas');
export const SUITES_DIR = path.join(ROOT, 'suites');
export const FIXTURES_DIR = path.join(ROOT, 'fixtures');
/** The code of the project's suites (their properties): the YAML's folder, or its build in dist/. */
export const SUITES_CODE_DIR = BUILT ? path.join(ROOT, 'dist', 'suites') : SUITES_DIR;

/** Paths in messages are relative to the cwd when inside it, so they are clickable. */
export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
}
