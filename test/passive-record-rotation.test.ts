import { spawn } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunResults } from '../runner/model/results.ts';
import { HarRecorder, type ObservedExchange, readHar } from '../runner/passive/index.ts';
import { BodyCollector } from '../runner/transports/response.ts';
import { VERSION } from '../runner/version.ts';
import { BIN, cleanEnv, outcomeOf, PROJECT_ROOT, runMain } from './helpers/cli.ts';
import { runProxy, startToyTarget } from './helpers/proxy-service.ts';

const origin = { management: 'http://target.test', s3: 'http://s3.target.test' };

function exchange(n: number): ObservedExchange {
  const body = new BodyCollector();
  body.push(
    Buffer.from(
      JSON.stringify({ success: true, errors: [], messages: [], result: { n, pad: 'x'.repeat(400) } }),
    ),
  );
  return {
    door: 'management',
    request: { method: 'GET', target: `/client/v4/zones/${n}`, headers: { accept: 'application/json' } },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: body.done() },
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, n)).toISOString(),
  };
}

/** The zone numbers a recording holds, file by file in the order given. */
async function numbersIn(files: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const f of files)
    for await (const ex of readHar(f)) out.push(Number(ex.request.target.split('/').pop()));
  return out;
}

/** The recording's files, rotated ones (oldest first) then the one being written. */
function recording(dir: string, name = 'traffic'): string[] {
  const files = readdirSync(dir).filter((f) => f.startsWith(`${name}.`) && f.endsWith('.har'));
  const rotated = files.filter((f) => f !== `${name}.har`).sort();
  return [...rotated, ...(files.includes(`${name}.har`) ? [`${name}.har`] : [])].map((f) =>
    path.join(dir, f),
  );
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-rotation-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.useRealTimers());

describe('recordings rotate by size and age, each file a complete HAR', () => {
  it('past --record-max-bytes a file is rotated, the newest N kept, every file whole at every moment', async () => {
    const sub = mkdtempSync(path.join(dir, 'size-'));
    const file = path.join(sub, 'traffic.har');
    const maxBytes = 16 * 1024;
    const recorder = new HarRecorder(file, VERSION, { maxBytes, keep: 2 });
    for (let n = 0; n < 200; n++) {
      recorder.add(exchange(n), origin);
      // Complete after every exchange: a reader, or a proxy killed now, leaves a HAR that parses.
      const doc = JSON.parse(readFileSync(file, 'utf8')) as { log: { entries: unknown[] } };
      expect(doc.log.entries.length).toBeGreaterThan(0);
    }
    recorder.close();
    const files = recording(sub);
    expect(files).toHaveLength(3);
    expect(recorder.rotations).toBeGreaterThan(5);
    for (const f of files) expect(statSync(f).size).toBeLessThanOrEqual(maxBytes);
    // The kept files hold the latest exchanges, in order, with none missing between them.
    const numbers = await numbersIn(files);
    expect(numbers.at(-1)).toBe(199);
    expect(numbers).toEqual(numbers.map((_, i) => 200 - numbers.length + i));
    expect(numbers.length).toBeGreaterThan(25);
  });

  it('rotated many times within one millisecond, the files still sort oldest first and the newest are kept', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const sub = mkdtempSync(path.join(dir, 'same-ms-'));
    const file = path.join(sub, 'traffic.har');
    const recorder = new HarRecorder(file, VERSION, { maxBytes: 16 * 1024, keep: 3 });
    for (let n = 0; n < 200; n++) recorder.add(exchange(n), origin);
    recorder.close();
    vi.useRealTimers();
    expect(recorder.rotations).toBeGreaterThan(10);
    const numbers = await numbersIn(recording(sub));
    expect(numbers.at(-1)).toBe(199);
    expect(numbers).toEqual(numbers.map((_, i) => 200 - numbers.length + i));
  });

  it('past --record-max-age a file is rotated at its next exchange', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const sub = mkdtempSync(path.join(dir, 'age-'));
    const file = path.join(sub, 'traffic.har');
    const recorder = new HarRecorder(file, VERSION, { maxAgeMs: 3_600_000, keep: 5 });
    recorder.add(exchange(0), origin);
    vi.setSystemTime(new Date('2026-01-01T00:59:00Z'));
    recorder.add(exchange(1), origin);
    expect(recorder.rotations).toBe(0);
    vi.setSystemTime(new Date('2026-01-01T01:00:00Z'));
    recorder.add(exchange(2), origin);
    recorder.close();
    const files = recording(sub);
    expect(files.map((f) => path.basename(f))).toEqual([
      'traffic.2026-01-01T01-00-00-000Z.har',
      'traffic.har',
    ]);
    expect(await numbersIn(files)).toEqual([0, 1, 2]);
  });
});

describe('judge reads rotated and large recordings', () => {
  it('a proxy recording with small bounds gives files that judge reads together as one traffic', async () => {
    const target = await startToyTarget();
    const sub = mkdtempSync(path.join(dir, 'proxy-'));
    const file = path.join(sub, 'traffic.har');
    const proxy = await runProxy([
      '--management-url',
      target.url,
      '--s3-endpoint',
      target.url,
      '--record',
      file,
      '--record-max-bytes',
      '8K',
      '--record-keep',
      '100',
      '--reporter',
      `json=${path.join(sub, 'proxy.json')}`,
    ]);
    try {
      const zone = `${proxy.management}/client/v4/zones/${'a'.repeat(32)}`;
      for (let i = 0; i < 30; i++) {
        await (await fetch(i % 3 ? zone : `${zone}/rate_limits`)).text();
        await (await fetch(`${proxy.s3}/b/missing-${i}`)).text();
      }
    } finally {
      await proxy.stop();
      await target.close();
    }
    const files = recording(sub);
    expect(files.length).toBeGreaterThan(3);
    const out = path.join(sub, 'judge.json');
    const judged = await runMain(['judge', ...files, '--reporter', `json=${out}`]);
    expect(judged.code).toBe(1);
    const fromFiles = JSON.parse(readFileSync(out, 'utf8')) as RunResults;
    const live = JSON.parse(readFileSync(path.join(sub, 'proxy.json'), 'utf8')) as RunResults;
    expect(fromFiles.observed).toBe(60);
    const verdicts = (r: RunResults) => Object.fromEntries(r.clauses.map((c) => [c.id, c.verdict]));
    expect(verdicts(fromFiles)).toEqual(verdicts(live));
    expect(fromFiles.target.name).toBe(`${files.length} recordings`);
  }, 30_000);

  it('judge reads a file larger than its memory, entry by entry', async () => {
    // 80 MiB of entries against a 64 MiB heap: a reader holding the file whole cannot.
    const file = path.join(dir, 'large.har');
    const entry = JSON.stringify({
      startedDateTime: '2026-01-01T00:00:00.000Z',
      // Not a zone read, which zone.json would judge: the envelope is what this file is judged on.
      request: { method: 'GET', url: 'http://target.test/client/v4/accounts/a/pad', headers: [] },
      response: {
        status: 200,
        headers: [{ name: 'content-type', value: 'application/json' }],
        content: {
          text: JSON.stringify({
            success: true,
            errors: [],
            messages: [],
            result: { pad: 'x'.repeat(60_000) },
          }),
        },
      },
    });
    const fd = openSync(file, 'w');
    writeSync(fd, `{"log":{"version":"1.2","entries":[\n${entry}`);
    const chunk = `,\n${entry}`.repeat(16);
    let entries = 1;
    while (statSync(file).size < 80 * 1024 * 1024) {
      writeSync(fd, chunk);
      entries += 16;
    }
    writeSync(fd, '\n]}}\n');
    closeSync(fd);
    const out = path.join(dir, 'large.json');
    const child = spawn(
      process.execPath,
      ['--max-old-space-size=64', BIN, 'judge', file, '--reporter', `json=${out}`],
      {
        cwd: PROJECT_ROOT,
        env: cleanEnv(),
      },
    );
    const { code, stderr } = await outcomeOf(child, 120_000);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as RunResults;
    expect(doc.observed).toBe(entries);
    expect(doc.clauses.find((c) => c.id === 'mgmt.envelope.fields')?.verdict).toBe('pass');
    rmSync(file);
  }, 150_000);
});

describe('recording bounds on the command line', () => {
  it('a --record-* bound without --record, or a bad size, is one line saying what to write', async () => {
    const bare = await runMain(['proxy', '--management-url', 'http://127.0.0.1:9', '--record-keep', '3']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/give --record FILE too/);
    const bad = await runMain([
      'proxy',
      '--management-url',
      'http://127.0.0.1:9',
      '--record',
      path.join(dir, 'x.har'),
      '--record-max-bytes',
      '12Q',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/--record-max-bytes 12Q: write a size/);
  });
});
