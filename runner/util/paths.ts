import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: suites/, schemas/ and fixtures/ are found from here, whatever the cwd. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCHEMAS_DIR = path.join(ROOT, 'schemas');
export const SUITES_DIR = path.join(ROOT, 'suites');
export const FIXTURES_DIR = path.join(ROOT, 'fixtures');

/** Paths in messages are relative to the cwd when inside it, so they are clickable. */
export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
}
