import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { displayPath, FIXTURES_DIR, ROOT, SCHEMAS_DIR, SUITES_CODE_DIR, SUITES_DIR } from '../util/paths.ts';

/**
 * Suites loaded once into the form the engine runs (clauses, cases, and what each property declares,
 * its module imported only when it runs), kept between runs: a file per content key under
 * node_modules/.cache/edgecheck (the OS temp folder when there is none; EDGECHECK_CACHE_DIR elsewhere,
 * EDGECHECK_CACHE=0 off). The key hashes the content of every file the form is made from (the suites
 * folder, schemas/, the engine's own code), so an edit anywhere is a new key: an entry is never
 * stale, only unused. Entries are JSON, which parses ten times faster than v8's own serialization;
 * a value JSON would not give back as it is (a NaN, a Date, a binary) is not kept. An entry is kept
 * only once lint found no error in what it holds, so a run, which stops on errors alone, need not
 * lint it again.
 */

/** The engine's own code: the loader and what it builds with (runner/ or its build, dist/runner/). */
const ENGINE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Entries kept: a few suites folders (the project's, a test's) and selections side by side. */
const KEEP = 16;

export function cacheDir(): string | undefined {
  if (process.env.EDGECHECK_CACHE === '0') return undefined;
  if (process.env.EDGECHECK_CACHE_DIR) return process.env.EDGECHECK_CACHE_DIR;
  const modules = path.join(ROOT, 'node_modules');
  try {
    if (statSync(modules).isDirectory()) return path.join(modules, '.cache', 'edgecheck');
  } catch {
    // An installed package has no node_modules of its own.
  }
  return ownTempDir(path.join(tmpdir(), `edgecheck-cache-${process.getuid?.() ?? 'user'}`));
}

/**
 * A folder of the shared temp folder, used only when it is this user's alone: an entry another user
 * could write would decide what the run sends.
 */
function ownTempDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    const uid = process.getuid?.();
    if (uid !== undefined && (st.uid !== uid || (st.mode & 0o022) !== 0)) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/** Every file below `dir` (node_modules and dot-folders aside), in a stable order. */
function filesBelow(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return names
    .filter((n) => !/(^|[\\/])(node_modules|\.[^\\/]*)([\\/]|$)/.test(n))
    .sort()
    .map((n) => path.join(dir, n))
    .filter((f) => {
      try {
        return statSync(f).isFile();
      } catch {
        return false;
      }
    });
}

/**
 * The key of what loading `root` for `selection` builds: the content of every source file, and
 * how paths are shown from here (messages name files relative to the working folder).
 */
export function contentKey(root: string, selection: string): string {
  const hash = createHash('sha256');
  hash.update(
    `edgecheck compiled suites 2\0${selection}\0${path.resolve(root)}\0${displayPath(root)}\0${process.version}\0`,
  );
  // The fixtures too: lint, whose clean result an entry stands for, reads their names. The build of
  // the project's suites too, where it is not the suites folder: what their properties declare is kept.
  const code = path.resolve(root) === SUITES_DIR && SUITES_CODE_DIR !== SUITES_DIR ? [SUITES_CODE_DIR] : [];
  for (const dir of [root, ...code, SCHEMAS_DIR, FIXTURES_DIR, ENGINE_DIR]) {
    for (const file of filesBelow(dir)) {
      hash.update(`${path.relative(dir, file)}\0`);
      hash.update(readFileSync(file));
      hash.update('\0');
    }
  }
  return hash.digest('hex').slice(0, 32);
}

/** What an entry holds: compiled suites, or compiled schema validators (runner/schema/registry.ts). */
export type CacheKind = 'suites' | 'validators';

/** The entry under `key`, a fresh copy, or undefined when there is none or it cannot be read. */
export function readCached<T>(key: string, kind: CacheKind = 'suites'): T | undefined {
  const dir = cacheDir();
  if (!dir) return undefined;
  try {
    return JSON.parse(readFileSync(path.join(dir, `${kind}-${key}.json`), 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * Keeps `text` (from `keepable`) under `key`; a cache that cannot be written is only a slower next
 * run.
 */
export function writeCached(key: string, text: string, kind: CacheKind = 'suites'): void {
  const dir = cacheDir();
  if (!dir) return;
  try {
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${kind}-${key}.json`);
    // Written aside and renamed, so a reader never sees half an entry.
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, text);
    renameSync(partial, file);
    prune(dir, kind);
  } catch {
    // Read-only or full: the next run loads from the sources again.
  }
}

/** Drops all but the KEEP newest entries of a kind: old keys are never read again. */
function prune(dir: string, kind: CacheKind): void {
  const entries = readdirSync(dir)
    .filter((n) => n.startsWith(`${kind}-`) && /^[a-z]+-[0-9a-f]+\.json$/.test(n))
    .map((n) => ({ file: path.join(dir, n), at: statSync(path.join(dir, n)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { file } of entries.slice(KEEP)) rmSync(file, { force: true });
}

/**
 * `value` as JSON, or undefined when JSON.parse would not give it back: a number that is not finite,
 * a hole or undefined in an array, or an object JSON flattens (a Date, a Map, a binary). An object's
 * undefined property is left out, as reading it gives the same.
 */
export function keepable(value: unknown): string | undefined {
  let faithful = true;
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key, v) {
    const raw = this[key];
    if (
      (typeof v === 'number' && !Number.isFinite(v)) ||
      (Array.isArray(this) && v === undefined) ||
      typeof v === 'bigint' ||
      (raw !== null &&
        typeof raw === 'object' &&
        !Array.isArray(raw) &&
        Object.getPrototypeOf(raw) !== Object.prototype &&
        Object.getPrototypeOf(raw) !== null)
    )
      faithful = false;
    return typeof v === 'bigint' ? undefined : v;
  });
  return faithful ? text : undefined;
}
