import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import path from 'node:path';

/**
 * What a test could not run on this machine, kept for the line `npm test` ends with
 * (test/helpers/not-run-reporter.ts reads the file vitest.config.ts names in EDGECHECK_NOT_RUN_LOG).
 */
export interface NotRun {
  /** What did not run, e.g. "awscli against the reference (test/reference-s3-cli.test.ts)". */
  what: string;
  /** Why, e.g. "no aws on PATH". */
  why: string;
  /** How to run it, e.g. "apt-get install awscli". */
  remedy: string;
}

export function recordNotRun(entry: NotRun): void {
  const log = process.env.EDGECHECK_NOT_RUN_LOG;
  if (log) appendFileSync(log, `${JSON.stringify(entry)}\n`);
}

/** The command's path: a path as given, a bare name looked up on PATH; undefined when absent. */
export function findTool(cmd: string): string | undefined {
  if (cmd.includes('/')) return existsSync(cmd) ? cmd : undefined;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, cmd))) return path.join(dir, cmd);
  }
  return undefined;
}

/** True when `cmd` is there; otherwise records what does not run and how to install it. */
export function haveTool(cmd: string, what: string, install: string): boolean {
  if (findTool(cmd)) return true;
  recordNotRun({ what, why: `no ${cmd} on PATH`, remedy: install });
  return false;
}

/** True when python3 with botocore (AWS's own signer) is there; otherwise records what does not run. */
export function haveBotocore(what: string): boolean {
  const python = spawnSync('python3', ['-c', 'import botocore'], { encoding: 'utf8' });
  if (python.status === 0) return true;
  recordNotRun({
    what,
    why: python.error ? 'no python3 on PATH' : 'python3 has no botocore',
    remedy: 'apt-get install python3-boto3',
  });
  return false;
}

/** True when python3 with boto3 is there; otherwise records what does not run. */
export function haveBoto3(what: string): boolean {
  const python = spawnSync('python3', ['-c', 'import boto3'], { encoding: 'utf8' });
  if (python.status === 0) return true;
  recordNotRun({
    what,
    why: python.error ? 'no python3 on PATH' : 'python3 has no boto3',
    remedy: 'apt-get install python3-boto3',
  });
  return false;
}
