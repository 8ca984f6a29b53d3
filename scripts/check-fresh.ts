/**
 * Does what a newcomer does, in a place that has nothing this machine gathered by hand: clones
 * the committed tree into an empty temporary folder (no node_modules above it, no ../shared beside
 * it, a temp folder of its own so the browser unpacks afresh), then runs `npm ci`, the type-check,
 * the lint, the browser test and `npm start` there. Any step that fails names itself and exits 1.
 * `npm run check:fresh` runs it; `.ci/run` runs it after `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The environment of a newcomer's shell: none of edgecheck's own variables. */
function newcomerEnv(tmp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('EDGECHECK_') && !k.startsWith('npm_') && k !== 'NODE_OPTIONS') env[k] = v;
  }
  return { ...env, TMPDIR: tmp };
}

/** The first folder above `dir` that holds a node_modules, which Node would resolve packages from. */
function nodeModulesAbove(dir: string): string | undefined {
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    if (existsSync(path.join(d, 'node_modules'))) return path.join(d, 'node_modules');
    if (path.dirname(d) === d) return undefined;
  }
}

function step(name: string, cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): void {
  const started = Date.now();
  process.stdout.write(`check:fresh: ${name} ...\n`);
  const r = spawnSync(cmd, args, { cwd, env, stdio: 'inherit', timeout: 600_000 });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status !== 0) {
    const how = r.error ? r.error.message : r.signal ? `signal ${r.signal}` : `exit ${r.status}`;
    throw new Error(`${name} failed in a fresh clone (${how}, ${seconds} s)`);
  }
  process.stdout.write(`check:fresh: ${name} ok (${seconds} s)\n`);
}

function main(): number {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'edgecheck-fresh-')));
  const clone = path.join(base, 'edgecheck');
  const tmp = path.join(base, 'tmp');
  mkdirSync(tmp);
  try {
    const above = nodeModulesAbove(clone);
    if (above)
      throw new Error(`${above} is above the clone and would be found by Node: remove it or set TMPDIR`);
    const dirty = spawnSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).stdout;
    if (dirty?.trim()) process.stdout.write('check:fresh: uncommitted changes are not part of the check\n');
    step('git clone', 'git', ['clone', '-q', ROOT, clone], base, process.env);
    if (existsSync(path.join(base, 'shared'))) throw new Error(`${base}/shared exists beside the clone`);
    const env = newcomerEnv(tmp);
    step('npm ci', 'npm', ['ci', '--no-audit', '--no-fund'], clone, env);
    step('type-check', 'npm', ['run', '--silent', 'typecheck'], clone, env);
    step('lint', 'npm', ['run', '--silent', 'lint'], clone, env);
    step(
      'browser and section tests',
      'npx',
      ['vitest', 'run', 'test/reporters-html.test.ts', 'test/runner-registries.test.ts'],
      clone,
      env,
    );
    step('npm start', 'npm', ['start', '--silent'], clone, { ...env, CI: 'true' });
    process.stdout.write('check:fresh: a fresh clone installs, checks and runs with nothing else\n');
    return 0;
  } catch (err) {
    process.stderr.write(`check:fresh: ${(err as Error).message}\n`);
    return 1;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

process.exitCode = main();
