import { afterEach, describe, expect, it, vi } from 'vitest';
import { REFERENCE_CREDENTIALS } from '../reference/context.ts';
import { ConsoleReporter, closingLine } from '../reporters/console.ts';
import { JsonReporter } from '../reporters/json.ts';
import { JunitReporter } from '../reporters/junit.ts';
import type { RunResults } from '../runner/model/results.ts';
import {
  caseResult,
  check,
  departureResults,
  eventsOf,
  feed,
  memoryStream,
  NASTY,
  runResults,
  sampleResults,
} from './helpers/results-fixture.ts';

async function consoleOutput(
  results: RunResults,
  opts: { tty?: boolean; color?: boolean; verbose?: boolean; live?: boolean; interrupted?: boolean } = {},
): Promise<string> {
  const stream = memoryStream(opts.tty);
  await feed(
    new ConsoleReporter({ stream, color: opts.color, verbose: opts.verbose, live: opts.live }),
    results,
    opts.interrupted,
  );
  return stream.text();
}

const ESC = '\u001b';

/**
 * A console reporter on a 120-column terminal (a live status line) and one writing plain lines,
 * both fed the same events, the run's start already sent.
 */
function liveAndPlain() {
  const live = Object.assign(memoryStream(true), { columns: 120 });
  const plain = memoryStream(false);
  const reporters = [
    new ConsoleReporter({ stream: live, color: false }),
    new ConsoleReporter({ stream: plain, color: false, live: false }),
  ];
  const send = (e: Parameters<ConsoleReporter['onEvent']>[0]) => {
    for (const r of reporters) r.onEvent(e);
  };
  send(eventsOf(sampleResults())[0]);
  return { live, plain, reporters, send };
}

/** The lines a terminal shows for this text: `\r` returns to the line's start, characters overwrite. */
function screen(text: string): string[] {
  const lines = [''];
  let col = 0;
  for (const ch of text) {
    if (ch === '\n') {
      lines.push('');
      col = 0;
    } else if (ch === '\r') col = 0;
    else {
      const line = lines[lines.length - 1];
      lines[lines.length - 1] = line.slice(0, col).padEnd(col) + ch + line.slice(col + 1);
      col += 1;
    }
  }
  return lines;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('console reporter summary', () => {
  it('shows a line per section with its counts, then names only the clauses that did not pass', async () => {
    const out = await consoleOutput(sampleResults());
    const lines = out.split('\n');
    const heading = lines.indexOf('Clauses by SPEC section');
    expect(heading).toBeGreaterThan(0);
    expect(lines.slice(heading + 2, heading + 8).map((l) => l.replace(/ {2,}/g, ' | '))).toEqual([
      ' | management: Resources and their fields | 2 fail',
      ' | management: Errors | 1 error',
      ' | management: Authentication | 1 untested',
      // SPEC's clauses counted apart from those SPEC does not state (s3.list.key-count: Amazon S3's).
      ' | s3: Object storage S3-compatible interface: behaviours | 1 fail, 1 blocked · [S3 habit] 1 pass',
      ' | deprecations: Versioning | 1 skipped',
      '',
    ]);
    const named = lines.indexOf('Clauses that did not pass (5)');
    expect(named).toBe(heading + 8);
    const rows = lines.slice(named + 1).filter((l) => /^ {2}\S/.test(l));
    expect(rows.map((l) => l.trim().split(/\s+/).slice(0, 2).join(' ')).slice(0, 5)).toEqual([
      'fail mgmt.envelope.success',
      'fail mgmt.envelope.errors',
      'error mgmt.dns.error-chain',
      'blocked s3.get.range-inclusive',
      'fail s3.list.nasty',
    ]);
    expect(out).toContain('└ given 2 failed: PutObject returned 500');
    // Passing, skipped and untested clauses are counted, not named.
    for (const id of ['s3.list.key-count', 'dep.dns-locked.present', 'mgmt.auth.secrets']) {
      expect(out).not.toContain(id);
    }
    expect(out.indexOf('Clauses that did not pass')).toBeLessThan(out.indexOf('Failures (3 checks)'));
  });

  it('marks the clauses SPEC does not state, in the section counts and wherever they are named', async () => {
    const results = sampleResults();
    const habit = results.clauses.find((c) => c.id === 's3.list.key-count');
    if (!habit) throw new Error('the sample has no s3.list.key-count');
    habit.verdict = 'fail';
    results.clauses.push({
      ...habit,
      id: 's3.put.service-header',
      title: 'A header of the service',
      source: 'service',
    });
    const out = await consoleOutput(results);
    const lines = out.split('\n').map((l) => l.replace(/ {2,}/g, ' | '));
    expect(lines).toContain(
      ' | s3: Object storage S3-compatible interface: behaviours | 1 fail, 1 blocked · [S3 habit] 1 fail · [service] 1 fail',
    );
    const named = lines.slice(lines.findIndex((l) => l.startsWith('Clauses that did not pass')));
    expect(named.find((l) => l.includes('s3.list.key-count'))).toMatch(
      /s3\.list\.key-count \| \[S3 habit\] Title of/,
    );
    expect(named.find((l) => l.includes('s3.put.service-header'))).toContain(
      '[service] A header of the service',
    );
    expect(named.find((l) => l.includes('s3.list.nasty ')) ?? '').not.toMatch(/\[(S3 habit|service)\]/);
  });

  it('lists every clause grouped by area and SPEC section, each with verdict and title, under verbose', async () => {
    const out = await consoleOutput(sampleResults(), { verbose: true });
    const lines = out.split('\n');
    const at = (text: string) => lines.findIndex((l) => l.includes(text));
    const headers = [
      'management: Resources and their fields',
      'management: Errors',
      'management: Authentication',
      's3: Object storage S3-compatible interface: behaviours',
      'deprecations: Versioning',
    ].map((h) => lines.indexOf(h));
    expect(headers.every((i) => i > 0)).toBe(true);
    expect([...headers].sort((a, b) => a - b)).toEqual(headers);
    const envelope = at('mgmt.envelope.errors ');
    expect(envelope).toBeGreaterThan(headers[0]);
    expect(envelope).toBeLessThan(headers[1]);
    expect(lines[envelope]).toMatch(/^ {2}fail +mgmt\.envelope\.errors +Title of mgmt\.envelope\.errors$/);
    const range = at('s3.get.range-inclusive ');
    expect(range).toBeGreaterThan(headers[3]);
    expect(range).toBeLessThan(headers[4]);
    expect(lines[range]).toMatch(/^ {2}blocked +s3\.get\.range-inclusive/);
    expect(lines[range + 1]).toContain('└ given 2 failed: PutObject returned 500');
    expect(lines[at('dep.dns-locked.present ') + 1]).toContain('outside its date window (until 2024-07-14)');
    expect(lines[at('mgmt.auth.secrets ') + 1]).toContain('untestable: storage of tokens is not observable');
  });

  it('shows each failing check as Hurl does: where, the case lines with a caret, values once, the exchange, the reproduction', async () => {
    const out = await consoleOutput(sampleResults());
    expect(out).toContain('Failures (3 checks)');
    const lines = out.split('\n');
    const first = lines.indexOf('1) fail: json /errors: expected [] but got 1 element');
    expect(first).toBeGreaterThan(0);
    expect(lines.slice(first + 1, first + 10)).toEqual([
      '     --> suites/management/zones.case.yaml:15:26',
      '       | mgmt.zones.get, get-zone: errors is empty on success (mgmt.envelope.errors, mgmt.envelope.success)',
      '    12 |     api: { method: GET, path: /zones/abc }',
      '    13 |     expect:',
      '    14 |       - clauses: [mgmt.envelope.errors, mgmt.envelope.success]',
      '    15 |         json: { /errors: [] }',
      '       |                          ^^',
      '       |',
      '   expected: []',
    ]);
    // Expected and actual once each, not repeated elsewhere in the failure.
    expect(out.split('expected: []').length - 1).toBe(1);
    expect(out.split('actual:   [{"code":1000,"message":"oops"}]').length - 1).toBe(1);
    const request = lines.indexOf('   request:');
    expect(lines.slice(request, request + 10)).toEqual([
      '   request:',
      '     GET http://127.0.0.1:1/client/v4/zones/abc',
      '     accept: application/json',
      '     authorization: [REDACTED]',
      '   response:',
      '     HTTP 200',
      '     content-type: application/json',
      '',
      '     {"success":true,"errors":[{"code":1000,"message":"oops"}]}',
      '   reproduce:',
    ]);
    expect(lines[request + 10]).toBe(
      "     curl -sS -X GET 'http://127.0.0.1:1/client/v4/zones/abc' -H 'Authorization: Bearer <redacted>'",
    );
    expect(out).toContain('2) error: timeout after 30000 ms');
    expect(out).toContain('     --> suites/management/dns.case.yaml:20');
  });

  it('ends with totals and the closing line `N passed, N failed` counting clauses', async () => {
    const results = sampleResults();
    const out = await consoleOutput(results);
    const lines = out.trimEnd().split('\n');
    const last = lines.at(-1)!;
    expect(last).toBe('1 passed, 3 failed, 1 errored, 1 blocked, 1 skipped, 1 untested');
    const m = /^(\d+) passed, (\d+) failed(, \d+ (errored|blocked|skipped|untested))*$/.exec(last)!;
    expect(Number(m[1])).toBe(results.summary.clauses.pass);
    expect(Number(m[2])).toBe(results.summary.clauses.fail);
    expect(out).toContain('  clauses  1 pass, 3 fail, 1 error, 1 blocked, 1 skipped, 1 untested');
    expect(out).toContain('  cases    0 pass, 2 fail, 1 error, 1 blocked, 1 skipped');
    expect(out).toContain('  checks   2 pass, 2 fail, 1 error, 1 blocked, 1 skipped');
  });

  it('keeps the closing line to passed and failed when nothing else occurred', () => {
    expect(closingLine({ pass: 7, fail: 0, error: 0, blocked: 0, skipped: 0, untested: 0 })).toBe(
      '7 passed, 0 failed',
    );
  });

  it('lists what teardown left on the target, each with the command that removes it', async () => {
    const out = await consoleOutput(sampleResults());
    expect(out).toContain(
      'Left on the target (1): teardown could not remove or restore these\n' +
        '  • bucket b  (s3.get.ranges: DeleteBucket returned 409)\n' +
        '      aws s3 rb s3://b --force --endpoint-url http://127.0.0.1:2 --region auto',
    );
    // Last before the totals, where nobody misses it.
    expect(out.indexOf('Left on the target')).toBeGreaterThan(out.indexOf('Failures'));
  });

  it('shows baseline differences', async () => {
    const results = {
      ...sampleResults(),
      baseline: {
        file: 'baselines/ref.yaml',
        newFailures: ['mgmt.envelope.errors'],
        fixed: [],
        expected: ['s3.list.nasty'],
      },
    };
    const out = await consoleOutput(results);
    expect(out).toContain('Baseline baselines/ref.yaml');
    expect(out).toContain('  new failures:   mgmt.envelope.errors');
    expect(out).toContain('  still expected: s3.list.nasty');
  });

  it('says an interrupted run was interrupted, with its exit code 130', async () => {
    const out = await consoleOutput({ ...sampleResults(), interrupted: true, exitCode: 130 });
    expect(out).toContain('run interrupted: checks that had not run are blocked');
    expect(out).toContain('exit code 130');
  });

  it('says a run cut short before its end and prints no closing line without clause verdicts', async () => {
    const out = await consoleOutput(sampleResults(), { interrupted: true });
    expect(out).toContain('run cut short: 5 of 5 cases finished; clause verdicts are unknown');
    expect(out).toContain('  cases    0 pass, 2 fail, 1 error, 1 blocked, 1 skipped');
    expect(out).not.toMatch(/\d+ passed, \d+ failed/);
  });
});

describe('console reporter: where SPEC departs from Amazon S3', () => {
  it('names those failures apart, by the target’s answer, each with what Amazon S3 does, and counts them under the totals', async () => {
    const out = await consoleOutput(departureResults());
    const lines = out.split('\n');
    const notPassing = lines.indexOf('Clauses that did not pass (6)');
    const departing = lines.indexOf('Of them, where SPEC departs from Amazon S3 (4)');
    expect(notPassing).toBeGreaterThan(0);
    expect(departing).toBeGreaterThan(notPassing);
    const shared = lines.slice(notPassing + 1, departing).join('\n');
    expect(shared).toContain('s3.get.range-206');
    // A blocked clause did not pass, but was not judged: it departs from nothing.
    expect(shared).toMatch(/blocked +s3\.mpu\.abort-repeatable/);
    expect(shared).toContain('└ Amazon S3: a repeated abort answers 404 NoSuchUpload\n');
    const apart = lines.slice(departing + 1, lines.indexOf('Failures (5 checks)') - 1);
    const group = (heading: string) => {
      const at = apart.indexOf(heading);
      expect(at, heading).toBeGreaterThanOrEqual(0);
      const next = apart.findIndex((l, i) => i > at && /^ {2}[A-Z]/.test(l));
      return apart.slice(at + 1, next < 0 ? undefined : next).join('\n');
    };
    const asAmazon = group('  Doing as Amazon S3 does (1)');
    expect(asAmazon).toMatch(/fail +s3\.standin\.get-bucket-lifecycle/);
    expect(asAmazon).toContain('└ Amazon S3: 404 NoSuchLifecycleConfiguration; the target does the same');
    const neither = group('  Doing neither what SPEC says nor what Amazon S3 does (1)');
    expect(neither).toMatch(/fail +s3\.standin\.get-bucket-replication/);
    expect(neither).toContain(
      '└ Amazon S3: 404 ReplicationConfigurationNotFoundError; the target does neither',
    );
    const undecided = group("  Not compared with Amazon S3's answer (2)");
    expect(undecided).toMatch(/fail +s3\.region\.auto/);
    expect(undecided).toMatch(/error +s3\.lock\.create-enabled-not-implemented/);
    expect(undecided).toMatch(/└ Amazon S3: creates the bucket with object lock enabled$/m);
    // A passing clause is not named, whatever Amazon S3 does.
    expect(out).not.toContain('404 NoSuchTagSet');
    expect(out).toContain(
      "           3 of the 4 failing and 1 of the 1 erroring clauses are where SPEC departs from Amazon S3: 1 as Amazon S3 does, 1 neither as SPEC says nor as Amazon S3 does, 2 not compared with Amazon S3's answer\n",
    );
  });

  it('says nothing of Amazon S3 when no failing clause departs from it', async () => {
    const out = await consoleOutput(sampleResults());
    expect(out).not.toContain('Amazon S3');
  });
});

describe('console reporter progress', () => {
  it('prints a counter and the failing cases only when the stream is not a terminal', async () => {
    const many = Array.from({ length: 20 }, (_, i) =>
      caseResult(`mgmt.c${i}`, 'management', [
        check({ caseId: `mgmt.c${i}`, clauses: ['mgmt.x.y'], verdict: i === 7 ? 'fail' : 'pass' }),
      ]),
    );
    const out = await consoleOutput(runResults([], many));
    const progress = out.split('\n').filter((l) => l.startsWith('['));
    expect(progress).toContain('[ 8/20] FAIL mgmt.c7: Case mgmt.c7');
    expect(progress.filter((l) => l.includes('cases done')).length).toBe(10);
    expect(progress.at(-1)).toBe('[20/20] cases done: 19 pass, 1 fail');
    expect(out).not.toContain('mgmt.c3');
  });

  it('prints one line per case with verbose', async () => {
    const out = await consoleOutput(sampleResults(), { tty: true, color: false, verbose: true, live: false });
    const progress = out.split('\n').filter((l) => l.startsWith('['));
    expect(progress.length).toBe(5);
    expect(progress[0]).toBe('[1/5] fail     mgmt.zones.get Case mgmt.zones.get 120 ms');
    expect(progress[2]).toContain('blocked  s3.get.ranges Case s3.get.ranges 120 ms (given 2 failed');
  });

  it('keeps to plain lines on a terminal when CI is set', async () => {
    vi.stubEnv('CI', 'true');
    const out = await consoleOutput(sampleResults(), { tty: true, color: false });
    expect(out).not.toContain('\r');
    expect(out).toContain('[1/5] FAIL mgmt.zones.get: Case mgmt.zones.get');
    expect(out).toContain('[5/5] cases done: 2 fail, 1 error, 1 blocked, 1 skipped');
  });

  it('on a terminal outside CI, rewrites one status line in place: cases done, failing, the longest case in flight', async () => {
    vi.stubEnv('CI', '');
    vi.useFakeTimers({ now: 0 });
    try {
      const stream = memoryStream(true);
      const reporter = new ConsoleReporter({ stream, color: false });
      const results = sampleResults();
      const [start, ...events] = eventsOf(results);
      reporter.onEvent(start);
      const starts = events.filter((e) => e.type === 'case-start');
      for (const e of starts) reporter.onEvent(e);
      vi.advanceTimersByTime(12_300);
      // Nothing has finished: the line shows the slowest case and keeps counting its time.
      const frames = () => stream.text().split('\r');
      expect(frames().at(-1)?.trimEnd()).toBe(
        '[0/5] cases done, 0 failing; 5 running, longest 12.3 s: mgmt.zones.get',
      );
      const first = results.cases[0];
      reporter.onEvent({ type: 'case-end', result: first });
      vi.advanceTimersByTime(1000);
      // The failing case is printed as a line of its own, above the status line.
      expect(stream.text()).toMatch(/ \r\[1\/5\] fail {5}mgmt\.zones\.get Case mgmt\.zones\.get 120 ms\n/);
      expect(frames().at(-1)?.trimEnd()).toBe(
        '[1/5] cases done, 1 failing; 4 running, longest 13.3 s: mgmt.dns.create',
      );
      for (const c of results.cases.slice(1)) reporter.onEvent({ type: 'case-end', result: c });
      reporter.onEvent({ type: 'run-end', results });
      await reporter.close();
      const text = stream.text();
      // No counter lines; each frame is padded over the one before; the line is wiped before the summary.
      expect(text).not.toContain('cases done:');
      const before = text.slice(0, text.indexOf('Clauses by SPEC section'));
      expect(before).toMatch(/\r {20,}\r\n$/);
      // What a terminal shows once the summary starts: the header, the failing cases, no status debris.
      expect(screen(before).map((l) => l.trimEnd())).toEqual([
        'edgecheck run r-test01: reference (embedded reference), as of 2025-02-01, profile quick, 5 cases, 8 clauses',
        '[1/5] fail     mgmt.zones.get Case mgmt.zones.get 120 ms',
        '[2/5] error    mgmt.dns.create Case mgmt.dns.create 120 ms',
        '[4/5] fail     s3.list.basic Case s3.list.basic 120 ms',
        '',
        '',
      ]);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('cuts the status line to the terminal width, the time before the case id', async () => {
    vi.stubEnv('CI', '');
    vi.useFakeTimers({ now: 0 });
    const stream = Object.assign(memoryStream(true), { columns: 64 });
    const reporter = new ConsoleReporter({ stream, color: false });
    const [start] = eventsOf(sampleResults());
    reporter.onEvent(start);
    reporter.onEvent({ type: 'case-start', caseId: 'a-very-long-case-id-that-would-wrap', title: 't' });
    vi.advanceTimersByTime(250);
    vi.useRealTimers();
    await reporter.close();
    const frames = stream
      .text()
      .split('\r')
      .filter((f) => f.startsWith('['));
    expect(frames.at(-1)).toMatch(/^\[0\/5\] cases done, 0 failing; 1 running, longest 0\.\d s: a-very-…$/);
    expect(frames.every((f) => f.length <= 63)).toBe(true);
  });

  it('shows the bytes sent of a large upload in flight: on the status line live, as a plain line every ten seconds otherwise', async () => {
    vi.stubEnv('CI', '');
    vi.useFakeTimers({ now: 0 });
    try {
      const GiB = 1024 ** 3;
      const { live, plain, reporters, send } = liveAndPlain();
      send({ type: 'case-start', caseId: 's3.put.large', title: 't' });
      send({ type: 'transfer', caseId: 's3.put.large', sent: 64 * 1024, total: GiB });
      vi.advanceTimersByTime(4000);
      send({ type: 'transfer', caseId: 's3.put.large', sent: GiB / 4, total: GiB });
      vi.advanceTimersByTime(500);
      expect(live.text().split('\r').at(-1)?.trimEnd()).toBe(
        '[0/5] cases done, 0 failing; 1 running, longest 4.5 s: s3.put.large, 256 MiB of 1 GiB sent (25%)',
      );
      vi.advanceTimersByTime(6000);
      send({ type: 'transfer', caseId: 's3.put.large', sent: GiB / 2, total: GiB });
      send({ type: 'transfer', caseId: 's3.put.large', sent: GiB, total: GiB });
      for (const r of reporters) await r.close();
      // The first report, the one ten seconds on, and the end; not the one at four seconds.
      expect(
        plain
          .text()
          .split('\n')
          .filter((l) => l.includes('sent (')),
      ).toEqual([
        '[0/5] s3.put.large: 64 KiB of 1 GiB sent (0%)',
        '[0/5] s3.put.large: 512 MiB of 1 GiB sent (50%)',
        '[0/5] s3.put.large: 1 GiB of 1 GiB sent (100%)',
      ]);
      expect(plain.text()).not.toContain('\r');
    } finally {
      vi.useRealTimers();
    }
  });

  it('says when pacing holds requests back: in the status line live until the pause ends, as one plain line otherwise', async () => {
    vi.stubEnv('CI', '');
    vi.useFakeTimers({ now: Date.parse('2026-11-26T10:00:00Z') });
    try {
      const { live, plain, reporters, send } = liveAndPlain();
      send({ type: 'case-start', caseId: 'mgmt.a', title: 't' });
      send({
        type: 'pacing',
        door: 'management',
        cause: 'rate-cap',
        inWindow: 1000,
        limit: 1000,
        windowMs: 300_000,
        resumeAt: '2026-11-26T10:00:41Z',
      });
      vi.advanceTimersByTime(1000);
      expect(live.text().split('\r').at(-1)?.trimEnd()).toBe(
        '[0/5] paced: 1000 of 1000 management requests in the last 5 min (--rate-limit), next in 40 s',
      );
      // Once the pause is over the line shows the cases again.
      vi.advanceTimersByTime(41_000);
      expect(live.text().split('\r').at(-1)).toMatch(/^\[0\/5\] cases done, 0 failing; 1 running/);
      send({ type: 'pacing', door: 'management', cause: 'retry-after', resumeAt: '2026-11-26T10:00:52Z' });
      for (const r of reporters) await r.close();
      expect(
        plain
          .text()
          .split('\n')
          .filter((l) => l.includes('paced')),
      ).toEqual([
        '[0/5] paced: 1000 of 1000 management requests in the last 5 min (--rate-limit); next request at 10:00:41 UTC (in 41 s)',
        '[0/5] paced: the target answered 429 with Retry-After; next request at 10:00:52 UTC (in 10 s)',
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('starts with the run, target, date and counts', async () => {
    const out = await consoleOutput(sampleResults());
    expect(out.split('\n')[0]).toBe(
      'edgecheck run r-test01: reference (embedded reference), as of 2025-02-01, profile quick, 5 cases, 8 clauses',
    );
  });
});

describe('console reporter colours and escapes', () => {
  it('colours only on a terminal with NO_COLOR unset', async () => {
    vi.stubEnv('NO_COLOR', '');
    expect(await consoleOutput(sampleResults(), { tty: true })).toContain(`${ESC}[31m`);
    expect(await consoleOutput(sampleResults(), { tty: false })).not.toContain(ESC);
    vi.stubEnv('NO_COLOR', '1');
    expect(await consoleOutput(sampleResults(), { tty: true })).not.toContain(ESC);
  });

  it('shows control characters from the target as visible escapes', async () => {
    const out = await consoleOutput(sampleResults());
    expect(out).not.toContain(ESC);
    expect(out).not.toContain('\u0001');
    expect(out).toContain('message a<b>&"c\' \\x01\\x1b[31m]]> ✓');
    expect(NASTY).toContain(ESC);
  });
});

describe('redaction canary', () => {
  it('no reporter prints a credential it was not given, nor any URL absent from the results', async () => {
    const results = sampleResults();
    const outputs: string[] = [await consoleOutput(results, { verbose: true })];
    for (const make of [
      (stream: NodeJS.WritableStream) => new JsonReporter({ stream }),
      (stream: NodeJS.WritableStream) => new JunitReporter({ stream }),
    ]) {
      const stream = memoryStream();
      await feed(make(stream), results);
      outputs.push(stream.text());
    }
    const given = JSON.stringify(results);
    for (const out of outputs) {
      for (const secret of Object.values(REFERENCE_CREDENTIALS)) expect(out).not.toContain(secret);
      expect(out).toMatch(/Bearer (<|&lt;)redacted/);
      for (const url of out.match(/https?:\/\/[\w.:-]+/g) ?? []) expect(given).toContain(url);
    }
  });
});
