import {
  closeSync,
  cpSync,
  existsSync,
  mkdtempSync,
  openSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliOutcome, runBinAsync, runMain, STACK_LINE } from './helpers/cli.ts';

/** Bad input: exit 2, one line on stderr naming `where`, no stack trace, within `withinMs`. */
function expectOneLine(r: CliOutcome, where: string, what: RegExp) {
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(lines[0].startsWith(`edgecheck: ${where}`), lines[0]).toBe(true);
  expect(lines[0]).toMatch(what);
  expect(r.stderr + r.stdout).not.toMatch(STACK_LINE);
  expect(r.stderr).not.toMatch(/internal error/);
}

/**
 * The CPU this process spent on `run` (user + system, ms): a refusal that reads the whole input
 * costs seconds of it, one made where the input goes wrong a fraction, however busy the machine is
 * (wall time on a loaded machine ran past 6 s for a refusal that costs well under one).
 */
async function timed(run: () => Promise<CliOutcome>): Promise<CliOutcome & { cpuMs: number }> {
  const start = process.cpuUsage();
  const r = await run();
  const used = process.cpuUsage(start);
  return { ...r, cpuMs: (used.user + used.system) / 1000 };
}

/** A one-clause suites folder (copied from a lint fixture) beside the bad file under test. */
let dir: string;
let suites: string;
const caseFile = () => path.join(suites, 'mgmt', 'bad.case.yaml');

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-bad-input-'));
  suites = path.join(dir, 'suites');
  for (const name of ['clauses.yaml', 'sections.yaml']) {
    cpSync(`test/fixtures/engine/lint/uncited-clause/mgmt/${name}`, path.join(suites, 'mgmt', name));
  }
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** 65 MB of well-formed cases: the size alone must turn it away. */
function writeHugeCaseFile(file: string): void {
  const one = [
    '  - id: mgmt.huge.case',
    '    title: One of many',
    '    steps:',
    '      - api: { method: GET, path: /zones }',
    '        expect:',
    '          - clauses: [mgmt.lint.one]',
    '            status: 200',
    '',
  ].join('\n');
  const chunk = Buffer.from(one.repeat(Math.ceil((1024 * 1024) / one.length)));
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, 'cases:\n');
    for (let written = 0; written < 65 * 1024 * 1024; written += chunk.length) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
}

/** Billion laughs: ten levels of ten aliases each, a billion strings once expanded. */
const ALIAS_BOMB = [
  'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]',
  ...Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`),
  '',
].join('\n');

describe('case files are bounded: one line naming the file, exit 2, in under 5 s of CPU', () => {
  it('a 65 MB case file is refused from its size, before it is read', async () => {
    writeHugeCaseFile(caseFile());
    const r = await timed(() => runMain(['run', '--suites-dir', suites]));
    expectOneLine(
      r,
      caseFile(),
      /: 65(\.\d+)? MiB, over the 512 KiB allowed for a case file; split its cases across several files/,
    );
    expect(r.cpuMs).toBeLessThan(5000);
  });

  it('a 65 MB case file as a process: the real exit code is 2, not a crash', async () => {
    writeHugeCaseFile(caseFile());
    const r = await runBinAsync(['lint', '--suites-dir', suites]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${caseFile()}: error: 65`);
    expect(r.stderr).toMatch(/ MiB, over the 512 KiB allowed for a case file/);
    expect(r.stderr + r.stdout).not.toMatch(STACK_LINE);
  });

  it('an alias bomb is refused at its first alias, without expanding it', async () => {
    writeFileSync(caseFile(), ALIAS_BOMB);
    const r = await timed(() => runMain(['run', '--suites-dir', suites]));
    expectOneLine(r, `${caseFile()}:2:10`, /aliases from here on expand to more than 100 copies/);
    expect(r.cpuMs).toBeLessThan(5000);
  });

  it('more than 100 aliases, or an alias inside its own anchor, are refused where they stand', async () => {
    writeFileSync(caseFile(), `a: &a 1\nb: [${Array(101).fill('*a').join(', ')}]\n`);
    expectOneLine(
      await runMain(['run', '--suites-dir', suites]),
      `${caseFile()}:2:`,
      /more than 100 YAML aliases; write the values out/,
    );
    writeFileSync(caseFile(), 'a: &loop [1, *loop]\n');
    expectOneLine(
      await runMain(['run', '--suites-dir', suites]),
      `${caseFile()}:1:14`,
      /alias \*loop is inside its own anchor/,
    );
  });

  it('100,000 levels of nesting, flow or block, are refused at the 65th', async () => {
    for (const [text, col] of [
      [`${'['.repeat(100_000)}${']'.repeat(100_000)}\n`, 65],
      [`${'- '.repeat(100_000)}x\n`, 128],
      [`${'{a: '.repeat(100_000)}1${'}'.repeat(100_000)}\n`, 254],
    ] as const) {
      writeFileSync(caseFile(), text);
      const r = await timed(() => runMain(['run', '--suites-dir', suites]));
      expectOneLine(r, `${caseFile()}:1:${col}`, /nested more than 64 levels deep/);
      expect(r.cpuMs).toBeLessThan(5000);
    }
  });

  it('a key written twice is refused at the second, in a map of any size', async () => {
    const keys = Array.from({ length: 30_000 }, (_, i) => `k${i}: ${i}`).join('\n');
    writeFileSync(caseFile(), `${keys}\nk7: again\n`);
    const r = await timed(() => runMain(['run', '--suites-dir', suites]));
    expectOneLine(
      r,
      `${caseFile()}:30001:1`,
      /this key is already set in the same mapping \(line 8\); keep one/,
    );
    expect(r.cpuMs).toBeLessThan(5000);
  });
});

describe('other input files are bounded too', () => {
  it('a config file over 512 KiB, or one that never ends (/dev/zero)', async () => {
    const big = path.join(dir, 'big.yaml');
    writeFileSync(big, `name: x\n${'# padding\n'.repeat(120_000)}`);
    expectOneLine(
      await runMain(['run', '--config', big]),
      big,
      /: 1.14 MiB, over the 512 KiB allowed for a config file; check that --config names the target config$/,
    );
    if (existsSync('/dev/zero')) {
      const r = await timed(() => runMain(['run', '--config', '/dev/zero']));
      expectOneLine(r, '/dev/zero', /: more than 512 KiB, over the 512 KiB allowed for a config file/);
      expect(r.cpuMs).toBeLessThan(5000);
    }
  });

  it('a baseline over 512 KiB, or an alias bomb in one', async () => {
    const big = path.join(dir, 'baseline.yaml');
    truncateSync(writeAndClose(big, 'clauses: {}\n'), 2 * 1024 * 1024);
    expectOneLine(
      await runMain(['run', '--suites-dir', suites, '--baseline', big]),
      big,
      /: 2 MiB, over the 512 KiB allowed for a baseline/,
    );
    writeFileSync(big, ALIAS_BOMB);
    expectOneLine(
      await runMain(['run', '--suites-dir', suites, '--baseline', big]),
      `${big}:2:10`,
      /aliases from here on expand/,
    );
  });

  it('a clauses file over 512 KiB, or nested 100,000 deep', async () => {
    const clauses = path.join(suites, 'mgmt/clauses.yaml');
    truncateSync(clauses, 3 * 1024 * 1024);
    expectOneLine(
      await runMain(['run', '--suites-dir', suites]),
      clauses,
      /: 3 MiB, over the 512 KiB allowed for a clauses file/,
    );
    writeFileSync(clauses, `${'['.repeat(100_000)}\n`);
    expectOneLine(await runMain(['run', '--suites-dir', suites]), `${clauses}:1:65`, /nested more than 64/);
  });

  it('compare: a results document over 32 MiB is refused unread; one nested 100,000 deep at its line', async () => {
    const big = path.join(dir, 'big.json');
    // Sparse: 40 MiB that take no disk, and that would read as zeros if the size were not checked first.
    truncateSync(writeAndClose(big, ''), 40 * 1024 * 1024);
    const r = await timed(() => runMain(['compare', big, big]));
    expectOneLine(r, big, /: 40 MiB, over the 32 MiB allowed for a results document; give a file written by/);
    expect(r.cpuMs).toBeLessThan(5000);
    const deep = path.join(dir, 'deep.json');
    writeFileSync(deep, `{"clauses":\n${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expectOneLine(await runMain(['compare', deep, deep]), `${deep}:2:1000`, /nested more than 1000 levels/);
  });
});

describe('bindings flags', () => {
  it('each misuse is one line naming the flag and what to write', async () => {
    expectOneLine(await runMain(['run', '--bindings', 'workerd']), '--bindings', /miniflare/);
    expectOneLine(
      await runMain(['run', '--bindings', 'miniflare', '--bindings-url', 'https://probe.example.com']),
      '--bindings miniflare',
      /give either it or --bindings-url$/,
    );
    expectOneLine(
      await runMain(['run', '--bindings-bucket', 'b']),
      '--bindings-bucket',
      /give it with --bindings-url URL/,
    );
    expectOneLine(
      await runMain(['run', '--target', 'a=embedded', '--bindings', 'miniflare']),
      '--bindings',
      /describe each target in its config file/,
    );
  });
});

function writeAndClose(file: string, text: string): string {
  writeFileSync(file, text);
  return file;
}
