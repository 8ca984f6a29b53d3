import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResults } from '../runner/model/results.ts';
import { BIN, cleanEnv, PROJECT_ROOT } from './helpers/cli.ts';
import { startToyTarget } from './helpers/proxy-service.ts';

/** `edgecheck proxy ARGS` as its own process (signals are a process's), once it listens. */
async function spawnProxy(args: string[]): Promise<{ child: ChildProcess; management: string; s3: string }> {
  const child = spawn(process.execPath, [BIN, 'proxy', ...args], {
    cwd: PROJECT_ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stderr?.on('data', (d) => {
    text += d;
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      text += d;
      if (/Ctrl-C stops it/.test(text)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the proxy exited ${code}: ${text}`)));
  });
  const url = (label: RegExp) => label.exec(text)?.[1] ?? '';
  return {
    child,
    management: url(/management API\s+(http:\/\/\S+)/),
    s3: url(/S3 endpoint\s+(http:\/\/\S+)/),
  };
}

/**
 * Reads `files` over and over until stop(), as a dashboard or a log shipper would: each read must
 * be a whole document (JSON that parses, HTML that ends its page). Counts reads and torn ones.
 */
function pollingReader(files: string[]): { stop(): Promise<{ reads: number; torn: string[] }> } {
  let running = true;
  let reads = 0;
  const torn: string[] = [];
  const loop = (async () => {
    while (running) {
      for (const file of files) {
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch {
          continue; // not written yet
        }
        reads += 1;
        if (file.endsWith('.json')) {
          try {
            JSON.parse(text);
          } catch {
            torn.push(`${file}: ${text.length} bytes`);
          }
        } else if (!text.trimEnd().endsWith('</html>')) torn.push(`${file}: ${text.length} bytes`);
      }
      await tick();
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { reads, torn };
    },
  };
}

/** Waits (bounded) until `file` holds a results document for which `ok` holds. */
async function documentWhere(
  file: string,
  ok: (doc: RunResults) => boolean,
  ms = 15_000,
): Promise<RunResults> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as RunResults;
      if (ok(doc)) return doc;
    } catch {
      // not there yet
    }
    if (Date.now() > deadline) throw new Error(`${file} never held the document awaited`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('reports on a schedule and on SIGHUP, written whole', () => {
  let target: Awaited<ReturnType<typeof startToyTarget>>;
  let dir: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-reports-'));
    target = await startToyTarget();
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await target?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--report-every rewrites every file reporter as traffic passes, and a reader never reads half a file', async () => {
    const json = path.join(dir, 'every.json');
    const html = path.join(dir, 'every.html');
    const { child, management, s3 } = await spawnProxy([
      '--management-url',
      target.url,
      '--s3-endpoint',
      target.url,
      '--report-every',
      '100ms',
      '--reporter',
      `json=${json}`,
      '--reporter',
      `html=${html}`,
    ]);
    children.push(child);
    const reader = pollingReader([json, html]);
    const zone = `${management}/client/v4/zones/${'a'.repeat(32)}`;
    for (let i = 0; i < 40; i++) {
      await (await fetch(i % 2 ? `${zone}/rate_limits` : zone)).text();
      await (await fetch(`${s3}/b/missing-${i}`)).text();
    }
    const doc = await documentWhere(json, (d) => d.observed === 80);
    expect(doc.clauses.find((c) => c.id === 'dep.rate-limits.retired')?.verdict).toBe('fail');
    // Two more schedules, so the reader meets files being replaced.
    const before = readFileSync(json, 'utf8');
    await documentWhere(json, () => readFileSync(json, 'utf8') !== before);
    const { reads, torn } = await reader.stop();
    expect(torn).toEqual([]);
    expect(reads).toBeGreaterThan(50);
    child.kill('SIGINT');
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    // Nothing half-written is left beside the reports.
    expect(
      readdirSync(dir)
        .filter((f) => f.startsWith('every'))
        .sort(),
    ).toEqual(['every.html', 'every.json']);
  }, 60_000);

  it('SIGHUP writes the reports at once and the proxy goes on forwarding and judging', async () => {
    const json = path.join(dir, 'hup.json');
    const { child, management } = await spawnProxy([
      '--management-url',
      target.url,
      '--report-every',
      '1h',
      '--reporter',
      `json=${json}`,
      '--reporter',
      'console',
    ]);
    children.push(child);
    const reader = pollingReader([json]);
    const zone = `${management}/client/v4/zones/${'a'.repeat(32)}`;
    for (let i = 0; i < 3; i++) await (await fetch(zone)).text();
    child.kill('SIGHUP');
    const first = await documentWhere(json, () => true);
    expect(first.observed).toBe(3);
    expect(first.clauses.find((c) => c.id === 'mgmt.envelope.fields')?.verdict).toBe('pass');
    for (let i = 0; i < 2; i++) await (await fetch(`${zone}/rate_limits`)).text();
    child.kill('SIGHUP');
    const second = await documentWhere(json, (d) => d.observed === 5);
    expect(second.clauses.find((c) => c.id === 'dep.rate-limits.retired')?.verdict).toBe('fail');
    expect(child.exitCode).toBe(null);
    expect((await fetch(zone)).status).toBe(200);
    const { torn } = await reader.stop();
    expect(torn).toEqual([]);
    child.kill('SIGINT');
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect((JSON.parse(readFileSync(json, 'utf8')) as RunResults).observed).toBe(6);
  }, 60_000);
});
