#!/usr/bin/env node
/**
 * Looks for flaky tests: runs `npm test` again and again in a fresh clone of HEAD (cloned into an
 * empty temporary folder, `npm ci` there once) while something keeps every core busy beside it, and
 * keeps the whole log and `test-output/` of each run that fails. Plain Node, so it needs no build;
 * `npm run test:stress -- --runs 3` runs it (test/README.md, "Looking for flaky tests").
 *
 *   --runs N        runs of the command, one after another (default 10)
 *   --beside WHAT   hog: one spinning process per core (default); clone: the same command, again
 *                   and again, in a second fresh clone; pair: runs two at a time, one in each of
 *                   two fresh clones, each the other's load, both counted; none: nothing
 *   --command CMD   what each run runs in the clone, through sh (default "npm test")
 *   --timeout S     a run still going after S seconds is stopped and counted as failed (default 1200)
 *   --out DIR       where failing runs are kept (default .edgecheck/stress/<timestamp>)
 *
 * Each run prints one line (pass or fail, wall seconds, what ran beside it); the end, a summary.
 * Whatever it starts (the runs, the hog, the second clone's command) is stopped when it ends, on
 * Ctrl-C and on SIGTERM; a hog left without its parent stops itself. Exit 0 when every run passed,
 * 1 when one failed, 2 for bad flags, 130 when interrupted.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BESIDE = ['hog', 'clone', 'pair', 'none'];

/** The flags, or a one-line complaint and exit 2. */
function parseArgs(argv) {
  const opts = { runs: 10, beside: 'hog', command: 'npm test', timeout: 1200, out: undefined };
  const usage = (why) => {
    process.stderr.write(
      `stress: ${why} (flags: --runs N --beside hog|clone|pair|none --command CMD --timeout S --out DIR)\n`,
    );
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    const value = () => inline ?? argv[++i] ?? usage(`${flag} needs a value`);
    if (flag === '--runs' || flag === '--timeout') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) usage(`${flag} takes a whole number above 0`);
      opts[flag.slice(2)] = n;
    } else if (flag === '--beside') {
      opts.beside = value();
      if (!BESIDE.includes(opts.beside)) usage(`--beside takes ${BESIDE.join(', ')}`);
    } else if (flag === '--command') opts.command = value();
    else if (flag === '--out') opts.out = path.resolve(value());
    else usage(`unknown flag ${argv[i]}`);
  }
  opts.out ??= path.join(ROOT, '.edgecheck', 'stress', new Date().toISOString().replace(/[:.]/g, '-'));
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const say = (line) => process.stdout.write(`${line}\n`);
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
/** A folder as the user would type it from here: relative when it is below, else whole. */
const shown = (dir) => {
  const rel = path.relative(process.cwd(), dir);
  return rel && !rel.startsWith('..') ? rel : dir;
};

/** Process groups this script started and has not yet seen end: stopped whatever way it ends. */
const groups = new Set();

/** Starts `file` as the leader of a process group of its own, its output appended to `log`. */
function startGroup(file, args, cwd, env, log) {
  const fd = openSync(log, 'a');
  const child = spawn(file, args, { cwd, env, detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  groups.add(child.pid);
  child.done = new Promise((resolve) => {
    child.on('error', (err) => resolve({ code: null, signal: null, error: err }));
    child.on('exit', (code, signal) => resolve({ code, signal }));
  }).then((end) => {
    groups.delete(child.pid);
    return end;
  });
  return child;
}

/** Sends `signal` to a whole group (the shell and all it started); a group already gone is fine. */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Stops a group: SIGTERM, then SIGKILL if it is still there after `graceMs`. */
async function stopGroup(child, graceMs = 10_000) {
  if (!groups.has(child.pid)) return;
  signalGroup(child.pid, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), graceMs);
  await child.done;
  clearTimeout(timer);
  // What the shell started and left behind it.
  signalGroup(child.pid, 'SIGKILL');
}

/**
 * A process that keeps one core busy: it spins in slices, and between them stops itself once its
 * parent is gone (it was reparented), so that not even a SIGKILL of this script leaves it spinning.
 */
const SPIN = `const parent = process.ppid;
(function spin() {
  const end = Date.now() + 100;
  while (Date.now() < end);
  if (process.ppid !== parent) process.exit(0);
  setImmediate(spin);
})();`;

/** What runs beside each run: started before it, stopped after it. */
function besideOf(base, clones, env) {
  if (opts.beside === 'none') return { what: 'nothing', start: () => async () => {} };
  if (opts.beside === 'pair')
    return { what: `${opts.command} in the other clone at once`, start: () => async () => {} };
  if (opts.beside === 'hog') {
    const n = availableParallelism();
    return {
      what: `${n} spinning process${n === 1 ? '' : 'es'}`,
      start: () => {
        const hogs = Array.from({ length: n }, () =>
          startGroup(process.execPath, ['-e', SPIN], base, env, '/dev/null'),
        );
        return async () => {
          await Promise.all(hogs.map((h) => stopGroup(h, 2000)));
        };
      },
    };
  }
  return {
    what: `${opts.command} in a second clone`,
    start: (n) => {
      // The same command, again and again while the run lasts; its output is kept beside the run's.
      let stopped = false;
      let current;
      const log = path.join(base, `beside-${n}.log`);
      const loop = (async () => {
        while (!stopped) {
          const started = Date.now();
          current = startGroup('sh', ['-c', opts.command], clones.beside, env, log);
          await current.done;
          // A command that ends at once is not restarted in a tight loop.
          if (Date.now() - started < 1000) await new Promise((r) => setTimeout(r, 1000));
        }
      })();
      return async () => {
        stopped = true;
        if (current) await stopGroup(current);
        await loop;
        return log;
      };
    },
  };
}

/** The environment of a newcomer's shell, as scripts/check-fresh.ts gives it: no npm_ or EDGECHECK_ variable. */
function cleanEnv(tmp) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('EDGECHECK_') && !/^npm_/i.test(k) && k !== 'NODE_OPTIONS') env[k] = v;
  }
  return { ...env, TMPDIR: tmp, NO_COLOR: '1' };
}

/** A fresh clone of HEAD at `dir` with `npm ci` run in it; throws, with the log's place, if npm ci fails. */
function freshClone(dir, env, log) {
  execFileSync('git', ['clone', '-q', ROOT, dir], { stdio: 'ignore' });
  const fd = openSync(log, 'a');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  if (r.status !== 0) {
    // Kept: the temporary folder goes when this script ends.
    mkdirSync(opts.out, { recursive: true });
    const kept = path.join(opts.out, path.basename(log));
    cpSync(log, kept);
    throw new Error(
      `npm ci failed in a fresh clone (exit ${r.status ?? r.signal}); its output is in ${kept}`,
    );
  }
}

const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'edgecheck-stress-')));
const results = [];
let interrupted = false;
let stopCurrent;

/** Kills whatever is still running, at once: the last thing done however the process ends. */
process.on('exit', () => {
  for (const pid of groups) signalGroup(pid, 'SIGKILL');
  rmSync(base, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    say(`stress: ${signal === 'SIGINT' ? 'interrupted' : 'terminated'}, stopping what it started`);
    stopCurrent?.();
  });
}

function summary() {
  const failed = results.filter((r) => !r.passed);
  const walls = results.map((r) => r.ms).sort((a, b) => a - b);
  const median = walls.length ? seconds(walls[Math.floor((walls.length - 1) / 2)]) : '-';
  const longest = walls.length ? seconds(walls.at(-1)) : '-';
  say(
    `stress: ${results.length - failed.length} of ${results.length} run${results.length === 1 ? '' : 's'} passed` +
      `${interrupted ? ` (interrupted; ${opts.runs} asked)` : ''}, median ${median}, longest ${longest}` +
      (failed.length ? `; failing runs kept in ${shown(opts.out)}` : ''),
  );
  return interrupted ? 130 : failed.length ? 1 : 0;
}

async function main() {
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).trim();
  say(
    `stress: ${opts.runs} run${opts.runs === 1 ? '' : 's'} of "${opts.command}" in a fresh clone of HEAD ${head}` +
      `${dirty ? ' (uncommitted changes are not part of it)' : ''}, each bounded to ${opts.timeout} s;` +
      ` failing runs go to ${shown(opts.out)}`,
  );
  const clones = { main: path.join(base, 'clone') };
  if (opts.beside === 'clone' || opts.beside === 'pair') clones.beside = path.join(base, 'beside');
  const envs = {};
  for (const [name, dir] of Object.entries(clones)) {
    const tmp = path.join(base, `tmp-${name}`);
    mkdirSync(tmp);
    envs[name] = cleanEnv(tmp);
    const started = Date.now();
    freshClone(dir, envs[name], path.join(base, `setup-${name}.log`));
    say(
      `stress: ${name === 'main' ? 'clone' : 'second clone'} ready (git clone, npm ci: ${seconds(Date.now() - started)})`,
    );
    if (interrupted) return summary();
  }
  const beside = besideOf(base, clones, envs.beside ?? envs.main);
  // A pair is two runs at once, each the other's load: both count.
  const lanes = opts.beside === 'pair' ? ['main', 'beside'] : ['main'];
  for (let n = 1; n <= opts.runs && !interrupted; n += lanes.length) {
    const stopBeside = beside.start(n);
    const runs = lanes
      .map((lane, i) => ({ lane, n: n + i }))
      .filter((r) => r.n <= opts.runs)
      .map((r) => runOnce(r.n, clones[r.lane], envs[r.lane]));
    const ended = await Promise.all(runs);
    const besideLog = await stopBeside();
    if (interrupted) break;
    for (const r of ended) {
      let kept = '';
      if (!r.passed) {
        kept = `  kept in ${shown(r.dir)}`;
        if (besideLog && existsSync(besideLog)) cpSync(besideLog, path.join(r.dir, 'beside.log'));
      }
      results.push({ passed: r.passed, ms: r.ms });
      say(`run ${r.n}/${opts.runs}  ${r.how}  ${seconds(r.ms)}  beside: ${beside.what}${kept}`);
    }
    if (besideLog) rmSync(besideLog, { force: true });
  }
  return summary();
}

/** Stops the runs going on (Ctrl-C, SIGTERM). */
const stopping = new Set();
stopCurrent = () => Promise.all([...stopping].map((stop) => stop()));

/**
 * Run `n` of the command in `clone`, bounded by --timeout; a failing run's whole log and its
 * test-output/ are kept in a folder of its own (`dir`).
 */
async function runOnce(n, clone, env) {
  // Each run's test-output/ is its own.
  rmSync(path.join(clone, 'test-output'), { recursive: true, force: true });
  const log = path.join(base, `run-${n}.log`);
  const started = Date.now();
  const run = startGroup('sh', ['-c', opts.command], clone, env, log);
  const stop = () => stopGroup(run);
  stopping.add(stop);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stopGroup(run);
  }, opts.timeout * 1000);
  const end = await run.done;
  const ms = Date.now() - started;
  clearTimeout(timer);
  stopping.delete(stop);
  if (timedOut) appendFileSync(log, `\nstress: stopped after ${opts.timeout} s (--timeout)\n`);
  const passed = end.code === 0 && !timedOut;
  const how = passed
    ? 'pass'
    : timedOut
      ? `FAIL (stopped after ${opts.timeout} s)`
      : `FAIL (${end.error ? end.error.message : end.signal ? `signal ${end.signal}` : `exit ${end.code}`})`;
  const dir = path.join(opts.out, `run-${n}`);
  if (!passed && !interrupted) {
    mkdirSync(dir, { recursive: true });
    renameOrCopy(log, path.join(dir, 'output.log'));
    const output = path.join(clone, 'test-output');
    if (existsSync(output)) cpSync(output, path.join(dir, 'test-output'), { recursive: true });
  }
  rmSync(log, { force: true });
  return { n, passed, ms, how, dir };
}

/** Moves a file, or copies it where a rename cannot go (another file system). */
function renameOrCopy(from, to) {
  try {
    renameSync(from, to);
  } catch {
    cpSync(from, to);
  }
}

let code;
try {
  code = await main();
} catch (err) {
  process.stderr.write(`stress: ${err.message}\n`);
  code = 1;
}
// The hog and any run still there go with it (the exit handler), and the temporary clones.
process.exit(code);
