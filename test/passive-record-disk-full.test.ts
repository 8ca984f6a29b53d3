import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readHar } from '../runner/passive/index.ts';
import { BIN, cleanEnv, PROJECT_ROOT } from './helpers/cli.ts';
import { startToyTarget } from './helpers/proxy-service.ts';

/*
 * A disk that fills while the proxy records: the recording stops, complete as far as it went, and
 * the proxy goes on forwarding and judging. The full disk is the kernel's own: the proxy runs under
 * a file-size limit (ulimit -f), so its writes past it fail with EFBIG as writes to a full disk fail
 * with ENOSPC, on the same path through the recorder.
 */

const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-disk-full-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LIMIT_KIB = 24;

describe('a recording whose disk fills', () => {
  it('stops, leaving a complete HAR, while the proxy forwards every exchange after it', async () => {
    const target = await startToyTarget();
    const file = path.join(dir, 'traffic.har');
    // ulimit -f counts 512-byte blocks in sh.
    const child = spawn(
      'sh',
      ['-c', `ulimit -f ${LIMIT_KIB * 2}; exec "$0" "$@"`, process.execPath, BIN, 'proxy'].concat([
        '--management-url',
        target.url,
        '--s3-endpoint',
        target.url,
        '--record',
        file,
        '--status-port',
        '0',
      ]),
      { cwd: PROJECT_ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        const look = () => {
          if (/Ctrl-C stops it/.test(output)) resolve();
        };
        child.stdout.on('data', look);
        exited.then((code) => reject(new Error(`the proxy exited ${code}: ${output}`)));
      });
      const management = /management API\s+(http:\/\/\S+)/.exec(output)?.[1];
      const status = /status\s+(http:\/\/[^/\s]+)/.exec(output)?.[1];
      expect(management).toBeDefined();
      const recordingMetric = async () =>
        /^edgecheck_proxy_recording (\d)$/m.exec(await (await fetch(`${status}/metrics`)).text())?.[1];
      expect(await recordingMetric()).toBe('1');
      const zone = `${management}/client/v4/zones/${'a'.repeat(32)}`;
      const statuses: number[] = [];
      // Each exchange records about 1 KiB: well past the limit.
      for (let i = 0; i < 3 * LIMIT_KIB; i++) {
        const r = await fetch(zone, { headers: { 'x-pad': 'p'.repeat(400) } });
        await r.text();
        statuses.push(r.status);
      }
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(output).toMatch(/recording stopped: .*EFBIG.*; forwarding and judging go on/);
      // What an alert watches: the recording is no longer kept.
      expect(await recordingMetric()).toBe('0');
    } finally {
      child.kill('SIGINT');
      await exited;
      await target.close();
    }
    expect(statSync(file).size).toBeLessThanOrEqual(LIMIT_KIB * 1024);
    // Complete as far as it went: it parses, and judge reads every entry it holds.
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { log: { entries: unknown[] } };
    expect(doc.log.entries.length).toBeGreaterThan(5);
    let read = 0;
    for await (const _ of readHar(file)) read += 1;
    expect(read).toBe(doc.log.entries.length);
  }, 60_000);
});
