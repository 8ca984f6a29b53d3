import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { githubStepSummary } from '../cli/step-summary.ts';
import { runMain } from './helpers/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgecheck-step-summary-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const RUN = [
  'run',
  '--suite',
  'management',
  '--case',
  'mgmt.auth.*',
  '--fault',
  'accept-missing-auth',
  '--as-of',
  '2025-02-01',
  '--seed',
  '7',
];

describe('GitHub step summary', () => {
  it('appends the markdown summary to $GITHUB_STEP_SUMMARY besides the reporters asked for', async () => {
    const summary = join(dir, 'step_summary');
    await writeFile(summary, '## an earlier step\n');
    vi.stubEnv('GITHUB_STEP_SUMMARY', summary);
    const json = join(dir, 'results.json');
    const r = await runMain([...RUN, '--reporter', 'console', '--reporter', `json=${json}`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^\d+ passed, [1-9]\d* failed/m);
    expect(existsSync(json)).toBe(true);
    const text = await readFile(summary, 'utf8');
    expect(text.startsWith('## an earlier step\n## ❌ edgecheck: reference: ')).toBe(true);
    expect(text).toMatch(/^\| ❌ fail \| `mgmt\.auth\.missing` \| .+ \| mgmt\.auth\.refused-missing /m);
    // Nothing of the summary reaches standard output.
    expect(r.stdout).not.toContain('## ');
  });

  it('writes nothing without the variable, and once when --reporter markdown names the same file', async () => {
    expect(githubStepSummary(['console'], {})).toBeUndefined();
    expect(githubStepSummary(['console'], { GITHUB_STEP_SUMMARY: ' ' })).toBeUndefined();
    expect(githubStepSummary(['console'], { GITHUB_STEP_SUMMARY: '/tmp/s' })).toBe('/tmp/s');
    expect(githubStepSummary(['markdown=/tmp/other.md'], { GITHUB_STEP_SUMMARY: '/tmp/s' })).toBe('/tmp/s');
    expect(githubStepSummary(['markdown=/tmp/../tmp/s'], { GITHUB_STEP_SUMMARY: '/tmp/s' })).toBeUndefined();
    const summary = join(dir, 'same');
    vi.stubEnv('GITHUB_STEP_SUMMARY', summary);
    const r = await runMain([...RUN, '--reporter', `markdown=${summary}`]);
    expect(r.code).toBe(1);
    const text = await readFile(summary, 'utf8');
    expect(text.match(/^## /gm)).toHaveLength(1);
  });
});
