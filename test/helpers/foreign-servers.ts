import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { S3Target } from '../../runner/model/target.ts';
import { ROOT } from '../../runner/util/paths.ts';
import { findTool } from './not-run.ts';

/** An S3 server nobody here wrote, started on 127.0.0.1 for a test and stopped by it. */
export interface ForeignServer {
  name: 'moto' | 's3rver';
  /** The target as a run sees it: path-style, region us-east-1 (neither takes auto for CreateBucket). */
  s3: S3Target;
  close(): Promise<void>;
}

/** moto_server 5 (the AWS emulator) is a Python command some machines have; s3rver comes with npm ci. */
export const MOTO_COMMAND = 'moto_server';
export const haveMoto = () => findTool(MOTO_COMMAND) !== undefined;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Resolves when `url` answers any HTTP status, or rejects when the child exits or time runs out. */
async function answering(
  child: ChildProcess,
  url: string,
  what: string,
  stderr: () => string,
): Promise<void> {
  // A bound on a hang: a server that starts in a second alone may take many on a busy machine.
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}: ${stderr()}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  await stop(child);
  throw new Error(`${what} did not answer at ${url} within 120 s: ${stderr()}`);
}

export async function startMoto(): Promise<ForeignServer> {
  const port = await freePort();
  const child = spawn(MOTO_COMMAND, ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d) => {
    err = (err + String(d)).slice(-2000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  await answering(child, `${endpoint}/`, 'moto_server', () => err);
  return {
    name: 'moto',
    s3: {
      endpoint,
      region: 'us-east-1',
      addressing: 'path',
      accessKeyId: 'testing',
      secretAccessKey: 'testing',
    },
    close: () => stop(child),
  };
}

// s3rver 3 on Node 20 needs the legacy OpenSSL provider for the cipher of its list cursors.
const S3RVER_LAUNCH = `
const S3rver = require('s3rver');
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.env.S3RVER_DIR });
server.run().then((a) => process.stdout.write(JSON.stringify({ port: a.port }) + '\\n'));
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
`;

export async function startS3rver(): Promise<ForeignServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-s3rver-'));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', S3RVER_LAUNCH], {
    cwd: ROOT,
    env: { ...process.env, S3RVER_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d) => {
    err = (err + String(d)).slice(-2000);
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`s3rver did not start within 20 s: ${err}`)), 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited with ${code}: ${err}`));
    });
    child.stdout?.once('data', (d) => {
      clearTimeout(timer);
      resolve(JSON.parse(String(d)).port);
    });
  }).catch(async (e) => {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  });
  return {
    name: 's3rver',
    s3: {
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      addressing: 'path',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    },
    close: async () => {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
