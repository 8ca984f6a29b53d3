// A checkout's sources as plain JavaScript, made once per content and kept under
// node_modules/.cache/edgecheck: each run then loads them as Node's own modules. Through tsx, every
// import of the process (the reference's worker too) goes through a loader thread: about half a
// second of CPU at each start, which every CLI process paid. Each file is transformed alone with
// esbuild, as tsx itself does, so the code that runs is the code tsx would run.
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** What the build holds: the folders tsconfig.build.json compiles for the package. */
const FOLDERS = ['runner', 'reporters', 'reference', 'cli', 'suites'];
/**
 * The files code loads: modules, and what they read beside themselves (the bindings probe). The
 * suites' YAML is read from the checkout, so an edit to it needs no new build.
 */
const CODE = /\.(ts|mjs|js|json)$/;
/** The package's own entries, which its suites import by name: the build's files instead. */
const ENTRIES = { edgecheck: 'runner/api.js', 'edgecheck/kit': 'runner/kit.js' };
/** Builds kept side by side (checkouts of other branches, edits), the most recently used first. */
const KEEP = 4;

/** Every code file below `dir`, dot-folders and node_modules aside, relative to ROOT, sorted. */
function codeBelow(dir) {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter(
      (n) => CODE.test(n) && !n.endsWith('.d.ts') && !/(^|[\\/])(node_modules|\.[^\\/]*)([\\/]|$)/.test(n),
    )
    .map((n) => path.join(dir, n))
    .filter((f) => statSync(path.join(ROOT, f)).isFile())
    .sort();
}

/** Relative import specifiers of .ts files name the .js the build holds; the package's entries, its files. */
function rewriteImports(code, file) {
  const fromDir = path.posix.dirname(file.split(path.sep).join('/'));
  const entry = (name) => {
    const rel = path.posix.relative(fromDir, ENTRIES[name]);
    return rel.startsWith('.') ? rel : `./${rel}`;
  };
  return code.replace(
    /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])([^"'\n]+)\2/g,
    (whole, lead, quote, spec) => {
      if (/^\.\.?\//.test(spec) && spec.endsWith('.ts'))
        return `${lead}${quote}${spec.slice(0, -3)}.js${quote}`;
      if (spec in ENTRIES) return `${lead}${quote}${entry(spec)}${quote}`;
      return whole;
    },
  );
}

/**
 * The folder of the build of the sources as they are now, made if missing; undefined when it cannot
 * be (caching off, a read-only folder, no esbuild, a file gone while read): the caller then runs
 * the sources through tsx.
 */
export async function sourceBuild() {
  if (process.env.EDGECHECK_CACHE === '0') return undefined;
  // Beside the packages the build imports, which Node finds from where a module is: not in
  // EDGECHECK_CACHE_DIR, which may be anywhere (the compiled suites go there).
  const cache = path.join(ROOT, 'node_modules', '.cache', 'edgecheck');
  let dir;
  let contents;
  try {
    ({ dir, contents } = keyed(cache));
  } catch {
    return undefined;
  }
  try {
    statSync(path.join(dir, 'package.json'));
    // Used now: the last of the builds to be pruned.
    const now = new Date();
    utimesSync(dir, now, now);
    return dir;
  } catch {
    // Not built yet.
  }
  try {
    await build(dir, contents);
  } catch {
    return undefined;
  }
  try {
    prune(cache);
  } catch {
    // Another process pruned at the same moment: this build is made all the same.
  }
  return dir;
}

/** Where the build of the sources as they are now goes, and their content. */
function keyed(cache) {
  const require = createRequire(import.meta.url);
  const esbuildVersion = JSON.parse(readFileSync(require.resolve('esbuild/package.json'), 'utf8')).version;
  const hash = createHash('sha256');
  // The checkout is in the key: the build records it as its project root (runner/util/paths.ts).
  hash.update(`edgecheck source build 2\0${ROOT}\0${process.version}\0${esbuildVersion}\0`);
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  hash.update(readFileSync(path.join(ROOT, 'tsconfig.json')));
  const contents = new Map();
  for (const f of FOLDERS.flatMap(codeBelow)) {
    const text = readFileSync(path.join(ROOT, f));
    contents.set(f, text);
    hash.update(`\0${f}\0`);
    hash.update(text);
  }
  return { dir: path.join(cache, `build-${hash.digest('hex').slice(0, 24)}`), contents };
}

async function build(dir, contents) {
  const { transform } = await import('esbuild');
  // esbuild reads tsconfig's own syntax, comments included.
  const tsconfigRaw = readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8');
  // Written aside and renamed, so that a run beside this one never sees half a build.
  const partial = `${dir}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  await Promise.all(
    [...contents].map(async ([file, text]) => {
      let out = file;
      let body = text;
      if (file.endsWith('.ts')) {
        out = `${file.slice(0, -3)}.js`;
        const { code } = await transform(text.toString('utf8'), {
          loader: 'ts',
          format: 'esm',
          target: 'node20',
          sourcefile: path.join(ROOT, file),
          tsconfigRaw,
        });
        body = rewriteImports(code, file);
      }
      mkdirSync(path.dirname(path.join(partial, out)), { recursive: true });
      writeFileSync(path.join(partial, out), body);
    }),
  );
  // ES modules, and the checkout they were built from, where suites/, schemas/ and fixtures/ are.
  writeFileSync(
    path.join(partial, 'package.json'),
    `${JSON.stringify({ type: 'module', edgecheckRoot: ROOT })}\n`,
  );
  try {
    renameSync(partial, dir);
  } catch {
    rmSync(partial, { recursive: true, force: true });
    // Another process built the same sources first: its build is this one.
    statSync(path.join(dir, 'package.json'));
  }
}

function prune(cache) {
  const builds = readdirSync(cache)
    .filter((n) => /^build-[0-9a-f]+$/.test(n))
    .map((n) => ({ dir: path.join(cache, n), at: statSync(path.join(cache, n)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { dir } of builds.slice(KEEP)) rmSync(dir, { recursive: true, force: true });
}
