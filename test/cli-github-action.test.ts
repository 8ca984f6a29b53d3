import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RunResults } from '../runner/model/results.ts';
import { cleanEnv, outcomeOf, PROJECT_ROOT } from './helpers/cli.ts';

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
}
interface Action {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as Action;

/** `${{ ... }}` as GitHub evaluates the few forms the action uses; anything else is an error here. */
function expand(text: string, context: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    if (!(expr in context)) throw new Error(`action.yml: unknown expression \${{ ${expr} }}`);
    return context[expr];
  });
}

/** GITHUB_OUTPUT's `name=value` lines and `name<<DELIMITER` blocks. */
function readOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const block = /^([^=<]+)<<(.+)$/.exec(lines[i]);
    if (block) {
      const end = lines.indexOf(block[2], i + 1);
      out[block[1]] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (lines[i].includes('=')) {
      out[lines[i].slice(0, lines[i].indexOf('='))] = lines[i].slice(lines[i].indexOf('=') + 1);
    }
  }
  return out;
}

async function bash(
  script: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ code: number; output: string }> {
  // The command line GitHub uses for `shell: bash`.
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env });
  const { code, stdout, stderr } = await outcomeOf(child, 110_000);
  return { code, output: stdout + stderr };
}

let workspace: string;
let summaryFile: string;

/**
 * Runs the action's `run:` steps as GitHub runs a composite action (its `uses:` steps are other
 * actions and are skipped): inputs and their defaults filled into each step's env, each step a
 * bash script in the workspace with a GITHUB_OUTPUT file of its own, then the action's outputs
 * evaluated from the steps' outputs.
 */
async function runAction(inputs: Record<string, string>) {
  for (const name of Object.keys(inputs)) expect(action.inputs, `input ${name}`).toHaveProperty(name);
  const context: Record<string, string> = { 'github.action_path': PROJECT_ROOT };
  for (const [name, spec] of Object.entries(action.inputs)) {
    context[`inputs.${name}`] = inputs[name] ?? spec.default ?? '';
  }
  const steps: Record<string, Record<string, string>> = {};
  let last = { code: 0, output: '' };
  for (const [i, step] of action.runs.steps.entries()) {
    if (!step.run) continue;
    expect(step.shell).toBe('bash');
    const script = join(workspace, `.step-${i}.sh`);
    await writeFile(script, expand(step.run, context));
    const outputFile = join(workspace, `.output-${i}`);
    await writeFile(outputFile, '');
    const env = cleanEnv({
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_ACTION_PATH: PROJECT_ROOT,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      RUNNER_TEMP: tmpdir(),
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(String(v), context)])),
    });
    last = await bash(script, env, workspace);
    if (step.id) steps[step.id] = readOutputs(await readFile(outputFile, 'utf8'));
    if (last.code !== 0) break;
  }
  for (const [id, outputs] of Object.entries(steps)) {
    for (const [name, value] of Object.entries(outputs)) context[`steps.${id}.outputs.${name}`] = value;
  }
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, o]) => [name, expand(o.value, context)]),
  );
  return { ...last, outputs };
}

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'edgecheck-action-'));
  summaryFile = join(workspace, '.step-summary.md');
  await writeFile(summaryFile, '');
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const read = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as RunResults;

describe('the GitHub Action (action.yml)', () => {
  it('is a composite action with the documented inputs and the four report paths as outputs', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining(['config', 'suites', 'as-of', 'baseline', 'shard']),
    );
    expect(Object.keys(action.outputs)).toEqual(['json', 'junit', 'markdown', 'html']);
    // Inputs reach the scripts through env only: no expression is pasted into shell code.
    for (const step of action.runs.steps) expect(step.run ?? '').not.toContain('${{');
  });

  it('runs a shard against the embedded reference and writes its reports where the outputs say', async () => {
    const inputs = { suites: 'management, deprecations', 'as-of': '2025-02-01', args: '--seed 11' };
    const shards = [];
    for (const shard of ['1/2', '2/2']) {
      const r = await runAction({ ...inputs, shard });
      expect(r.code, r.output).toBe(0);
      const slug = shard.replace('/', '-of-');
      expect(r.outputs).toEqual({
        json: join(workspace, 'edgecheck-reports', `edgecheck-shard-${slug}.json`),
        junit: join(workspace, 'edgecheck-reports', `edgecheck-shard-${slug}.junit.xml`),
        markdown: join(workspace, 'edgecheck-reports', `edgecheck-shard-${slug}.md`),
        html: join(workspace, 'edgecheck-reports', `edgecheck-shard-${slug}.html`),
      });
      for (const file of Object.values(r.outputs)) expect(existsSync(file), file).toBe(true);
      const results = await read(r.outputs.json);
      expect(results.selection).toEqual({ suites: ['management', 'deprecations'], shard });
      expect(results.asOf).toBe('2025-02-01');
      expect(results.seed).toBe(11);
      expect(await readFile(r.outputs.junit, 'utf8')).toContain('<testsuites ');
      expect(await readFile(r.outputs.html, 'utf8')).toMatch(/^<!doctype html>/i);
      expect(await readFile(r.outputs.markdown, 'utf8')).toMatch(/^## ✅ edgecheck: reference: /);
      expect(r.output).toMatch(/^\d+ passed, 0 failed/m);
      shards.push(results);
    }
    // Each run also appended its summary to the step summary.
    const summary = await readFile(summaryFile, 'utf8');
    expect(summary.match(/^## ✅ edgecheck/gm)).toHaveLength(2);

    const merged = await runAction({ merge: 'edgecheck-reports/edgecheck-shard-*.json' });
    expect(merged.code, merged.output).toBe(0);
    expect(merged.outputs.json).toBe(join(workspace, 'edgecheck-reports', 'edgecheck-merged.json'));
    for (const file of Object.values(merged.outputs)) expect(existsSync(file), file).toBe(true);
    const whole = await read(merged.outputs.json);
    expect(whole.mergedFrom?.map((m) => m.shard)).toEqual(['1/2', '2/2']);
    expect(whole.cases.length).toBe(shards[0].cases.length + shards[1].cases.length);
    expect(whole.summary.clauses.untested).toBeLessThan(shards[0].summary.clauses.untested);
  });

  it('sets its outputs and fails the step when clauses fail', async () => {
    const r = await runAction({
      suites: 'management',
      'reports-dir': 'failing',
      args: '--case mgmt.auth.* --fault accept-missing-auth',
    });
    expect(r.code).toBe(1);
    expect(r.outputs.json).toBe(join(workspace, 'failing', 'edgecheck.json'));
    for (const file of Object.values(r.outputs)) expect(existsSync(file), file).toBe(true);
    expect(await readFile(r.outputs.markdown, 'utf8')).toMatch(/^\| ❌ fail \| `mgmt\.auth\.missing` /m);
  });
});
