import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../runner/util/paths.ts';
import { measuredRun } from './cpu-run.ts';
import { type ProfileSummary, summarizeProfile } from './profile-summary.ts';

export interface ThreadProfile {
  /** main (the runner), reference (its worker thread), or module hooks (Node's loader thread). */
  thread: string;
  file: string;
  summary: ProfileSummary;
}

/** What a thread's profile shows it ran: the reference's code, or the loader's hooks. */
function threadOf(file: string, first: boolean): string {
  if (first) return 'main (runner)';
  const text = readFileSync(file, 'utf8');
  if (/\/reference\/[\w/-]+\.[jt]s/.test(text)) return 'reference worker';
  return 'module hooks';
}

/**
 * `npm run bench -- --profile`: the full run (every suite, quick, embedded reference) under
 * `node --cpu-prof`, a profile per thread written to `dir`, each summed by module and function.
 */
export async function profileFullRun(
  dir = path.join(ROOT, 'out', 'bench-profile'),
): Promise<ThreadProfile[]> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await measuredRun(['run', '--profile', 'quick', '--reporter', 'json=RESULTS'], {
    nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir],
  });
  // Node names each CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: the main thread is 0.
  const files = readdirSync(dir)
    .filter((n) => n.endsWith('.cpuprofile'))
    .sort((a, b) => Number(a.split('.')[4]) - Number(b.split('.')[4]));
  return files.map((n, i) => {
    const file = path.join(dir, n);
    return { thread: threadOf(file, i === 0), file, summary: summarizeProfile(file) };
  });
}
