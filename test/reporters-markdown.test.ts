import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKDOWN_ROW_LIMIT, MarkdownReporter, mdText, renderMarkdown } from '../reporters/markdown.ts';
import { createReporter } from '../reporters/registry.ts';
import type { RunResults } from '../runner/model/results.ts';
import {
  caseResult,
  clause,
  departureResults,
  feed,
  memoryStream,
  NASTY,
  runResults,
  sampleResults,
} from './helpers/results-fixture.ts';

/** The cells of a table row, split at the pipes Markdown would split at (not at `\|`). */
function cells(row: string): string[] {
  return row
    .replace(/\\\\/g, '')
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((c) => c.trim());
}

function rowOf(md: string, id: string): string {
  const row = md.split('\n').find((l) => l.startsWith('|') && l.includes(`\`${id}\``));
  if (!row) throw new Error(`no row for ${id}`);
  return row;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgecheck-markdown-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('markdown summary', () => {
  it('says the outcome and totals of clauses, cases and checks', () => {
    const md = renderMarkdown(sampleResults());
    const lines = md.split('\n');
    expect(lines[0]).toBe(
      '## ❌ edgecheck: reference: 1 pass, 3 fail, 1 error, 1 blocked, 1 skipped, 1 untested',
    );
    expect(md).toContain('Run `r-test01` against embedded reference, as of 2025-02-01');
    expect(md).toContain('exit code 1.');
    expect(lines).toContain('| fail | 3 | 2 | 2 |');
    expect(lines).toContain('| untested | 1 |  |  |');
  });

  it('lists the failing and erroring clauses one row each: id, title, first line of the message', () => {
    const results = sampleResults();
    const dns = results.clauses.find((c) => c.id === 'mgmt.dns.error-chain')!;
    dns.message = 'mgmt.dns.create (create): timeout after 30000 ms\n  at the second line';
    const md = renderMarkdown(results);
    expect(md).toContain('### Failing and erroring clauses (4)');
    expect(cells(rowOf(md, 'mgmt.envelope.errors'))).toEqual([
      '❌ fail',
      '`mgmt.envelope.errors`',
      'Title of mgmt.envelope.errors',
      'json /errors: expected \\[\\] but got 1 element',
    ]);
    expect(cells(rowOf(md, 'mgmt.dns.error-chain'))).toEqual([
      '⚠️ error',
      '`mgmt.dns.error-chain`',
      'Title of mgmt.dns.error-chain',
      'mgmt.dns.create \\(create\\): timeout after 30000 ms',
    ]);
    // Blocked, skipped and untested clauses are counted, not listed.
    for (const id of ['s3.get.range-inclusive', 'dep.dns-locked.present', 'mgmt.auth.secrets']) {
      expect(md).not.toContain(id);
    }
  });

  it('puts the failures where SPEC departs from Amazon S3 in tables of their own, by the target’s answer, with what Amazon S3 does', () => {
    const md = renderMarkdown(departureResults());
    const lines = md.split('\n');
    const shared = lines.indexOf('### Failing and erroring clauses (1)');
    const apart = lines.indexOf('### Failing and erroring where SPEC departs from Amazon S3 (4)');
    expect(shared).toBeGreaterThan(0);
    expect(apart).toBeGreaterThan(shared);
    expect(lines.slice(shared, apart).join('\n')).toContain('`s3.get.range-206`');
    expect(lines.slice(shared, apart).join('\n')).not.toContain('lifecycle');
    const asAmazon = lines.indexOf('#### Doing as Amazon S3 does (1)');
    const neither = lines.indexOf('#### Doing neither what SPEC says nor what Amazon S3 does (1)');
    const undecided = lines.indexOf("#### Not compared with Amazon S3's answer (2)");
    expect([apart, asAmazon, neither, undecided]).toEqual(
      [...[apart, asAmazon, neither, undecided]].sort((a, b) => a - b),
    );
    expect(lines.slice(asAmazon, neither)).toContain(
      '| ❌ fail | `s3.standin.get-bucket-lifecycle` | Title of s3.standin.get-bucket-lifecycle | status: expected 200, got 404 | 404 NoSuchLifecycleConfiguration |',
    );
    expect(lines.slice(neither, undecided).join('\n')).toContain('`s3.standin.get-bucket-replication`');
    expect(lines.slice(undecided).join('\n')).toContain('`s3.region.auto`');
    expect(lines.slice(undecided).join('\n')).toContain('`s3.lock.create-enabled-not-implemented`');
    // A blocked clause is no departure, and this summary names only failures.
    expect(md).not.toContain('abort-repeatable');
    expect(md).toContain(
      "3 of the 4 failing and 1 of the 1 erroring clauses are where SPEC departs from Amazon S3: 1 as Amazon S3 does, 1 neither as SPEC says nor as Amazon S3 does, 2 not compared with Amazon S3's answer.",
    );
    expect(md).not.toContain('NoSuchTagSet');
  });

  it('escapes text from the target so that it stays one inert table cell', () => {
    const md = renderMarkdown(sampleResults());
    const row = rowOf(md, 's3.list.nasty');
    expect(cells(row)).toHaveLength(4);
    expect(row).not.toMatch(/[\u0000-\u001f]/);
    expect(row).not.toMatch(/(?<!\\)[<>[\]&]/);
    expect(mdText('a | b\nc')).toBe('a \\| b c');
    expect(mdText('<img src=x onerror=alert(1)>')).toBe('\\<img src=x onerror=alert\\(1\\)\\>');
    expect(mdText('*bold* _it_ `code` [link](http://x) @team $x$ ~~s~~ # h')).toBe(
      '\\*bold\\* \\_it\\_ \\`code\\` \\[link\\]\\(http://x\\) \\@team \\$x\\$ \\~\\~s\\~\\~ \\# h',
    );
    expect(NASTY).toContain('\u001b');
  });

  it(`keeps to ${MARKDOWN_ROW_LIMIT} rows and says how many more failed`, () => {
    const n = MARKDOWN_ROW_LIMIT + 7;
    const ids = Array.from({ length: n }, (_, i) => `mgmt.many.c${i}`);
    const cases = ids.map((id) =>
      caseResult(id, 'management', [
        { step: 's', clauses: [id], verdict: 'fail', message: `broke ${id}`, origin: 'x:1' },
      ]),
    );
    const md = renderMarkdown(
      runResults(
        ids.map((id) => clause(id)),
        cases,
      ),
    );
    const rows = md.split('\n').filter((l) => l.startsWith('| ❌'));
    expect(rows).toHaveLength(MARKDOWN_ROW_LIMIT);
    expect(md).toContain(`### Failing and erroring clauses (${n})`);
    expect(md).toContain('…and 7 more;');
    expect(md.length).toBeLessThan(12_000);
  });

  it('shows the drift from the baseline: new failures and fixed clauses', () => {
    const results: RunResults = {
      ...sampleResults(),
      baseline: {
        file: 'baselines/ref.yaml',
        newFailures: ['mgmt.envelope.errors', 'mgmt.dns.error-chain'],
        fixed: ['s3.list.key-count'],
        expected: ['s3.list.nasty', 'mgmt.envelope.success'],
      },
    };
    const md = renderMarkdown(results);
    expect(md).toContain('### Baseline `baselines/ref.yaml`');
    expect(md).toContain('- **New failures (2)**: `mgmt.envelope.errors`, `mgmt.dns.error-chain`');
    expect(md).toContain(
      '- **Fixed (1)**: `s3.list.key-count` (they pass now: remove them from the baseline)',
    );
    expect(md).toContain('- Still expected: 2');
    const matching = renderMarkdown({
      ...results,
      baseline: { file: 'b.yaml', newFailures: [], fixed: [], expected: ['s3.list.nasty'] },
    });
    expect(matching).toContain('The run matches its baseline: 1 known failures, no new ones, none fixed.');
  });

  it('says when a run was cut short or interrupted, and what it left on the target', async () => {
    const stream = memoryStream();
    await feed(new MarkdownReporter({ stream }), sampleResults(), true);
    const partial = stream.text();
    expect(partial.split('\n')[0]).toBe('## ❌ edgecheck: reference: cut short after 5 cases');
    expect(partial).toContain('The run was cut short: clause verdicts are unknown.');
    const interrupted = renderMarkdown({
      ...sampleResults(),
      interrupted: true,
      stoppedBy: 'interrupted by SIGINT',
    });
    expect(interrupted).toContain('The run was interrupted (interrupted by SIGINT)');
    expect(interrupted).toContain('**Left on the target: 1**');
    const clean = renderMarkdown(
      runResults(
        [clause('mgmt.a.b')],
        [
          caseResult('mgmt.a', 'management', [
            { step: 's', clauses: ['mgmt.a.b'], verdict: 'pass', origin: 'x:1' },
          ]),
        ],
      ),
    );
    expect(clean.split('\n')[0]).toBe('## ✅ edgecheck: reference: 1 pass, 0 fail');
    expect(clean).not.toContain('Failing');
  });

  it('is registered as markdown[=FILE]; a file is replaced, or appended to with append', async () => {
    const file = join(dir, 'out', 'summary.md');
    await feed(createReporter(`markdown=${file}`), sampleResults());
    const once = await readFile(file, 'utf8');
    expect(once).toBe(renderMarkdown(sampleResults()));
    await feed(createReporter(`markdown=${file}`), sampleResults());
    expect(await readFile(file, 'utf8')).toBe(once);
    const summary = join(dir, 'step-summary.md');
    await writeFile(summary, '# an earlier step\n');
    await feed(new MarkdownReporter({ dest: summary, append: true }), sampleResults());
    expect(await readFile(summary, 'utf8')).toBe(`# an earlier step\n${once}`);
    const stream = memoryStream();
    await feed(createReporter('markdown', { stream }), sampleResults());
    expect(stream.text()).toBe(once);
  });
});
