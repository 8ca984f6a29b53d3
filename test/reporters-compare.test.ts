import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CompareInputError, compareHtml, compareResults } from '../reporters/compare.ts';
import { ResultsDocumentError, readForCompare, readResultsDocument } from '../reporters/results-document.ts';
import type { RunResults } from '../runner/model/results.ts';
import { runMain } from './helpers/cli.ts';
import { clause, departureResults, runResults, sampleResults } from './helpers/results-fixture.ts';

/** The sample run with some clause verdicts replaced, as another target would answer. */
function variant(name: string, verdicts: Record<string, string>, drop: string[] = []): RunResults {
  const base = sampleResults();
  const clauses = base.clauses
    .filter((c) => !drop.includes(c.id))
    .map((c) => ({ ...c, verdict: (verdicts[c.id] ?? c.verdict) as any }));
  return runResults(clauses, base.cases, { target: { name, embedded: false } });
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('compareResults', () => {
  const reference = variant('reference', {});
  const staging = variant('staging', { 'mgmt.envelope.errors': 'pass', 's3.list.key-count': 'fail' }, [
    'mgmt.auth.secrets',
  ]);

  it('lists only the clauses whose verdicts differ, one column per run', () => {
    const out = compareResults([
      { label: 'reference', results: reference },
      { label: 'staging', results: staging },
    ]);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^clause +reference +staging$/);
    const rows = lines.slice(2, lines.indexOf(''));
    expect(rows).toEqual([
      expect.stringMatching(/^mgmt\.envelope\.errors +fail +pass$/),
      expect.stringMatching(/^mgmt\.auth\.secrets +untested +-$/),
      expect.stringMatching(/^s3\.list\.key-count +pass +fail$/),
    ]);
    expect(out).toContain('3 of 8 clauses differ; -: the run did not include the clause');
    expect(out).not.toMatch(/^s3\.get\.range-inclusive/m);
  });

  it('shows every clause with all, marking those that differ', () => {
    const out = compareResults(
      [
        { label: 'reference', results: reference },
        { label: 'staging', results: staging },
      ],
      { all: true },
    );
    expect(out).toMatch(/^s3\.get\.range-inclusive +blocked +blocked$/m);
    expect(out).toMatch(/^\* s3\.list\.key-count +pass +fail$/m);
    expect(out).toContain('3 of 8 clauses differ (marked *)');
  });

  it('totals clause verdicts per run and ends with the closing line of each run', () => {
    const out = compareResults([
      { label: 'reference', results: reference },
      { label: 'staging', results: staging },
    ]);
    expect(out).toMatch(/^pass +1 +1$/m);
    expect(out).toMatch(/^fail +3 +3$/m);
    expect(out).toMatch(/^untested +1 +0$/m);
    expect(out).toMatch(/^exit code +1 +1$/m);
    expect(out).toContain('reference: 1 passed, 3 failed, 1 errored, 1 blocked, 1 skipped, 1 untested');
    expect(out).toContain('staging: 1 passed, 3 failed, 1 errored, 1 blocked, 1 skipped');
  });

  it('says so when nothing differs', () => {
    const out = compareResults([
      { label: 'a', results: reference },
      { label: 'b', results: variant('b', {}) },
    ]);
    expect(out.startsWith('0 of 8 clauses differ\n')).toBe(true);
  });

  it('compares three runs', () => {
    const third = runResults([clause('s3.extra.only', { verdict: 'pass' })], []);
    const out = compareResults([
      { label: 'a', results: reference },
      { label: 'b', results: staging },
      { label: 'c', results: third },
    ]);
    expect(out).toMatch(/^s3\.extra\.only +- +- +pass$/m);
    expect(out).toContain('9 of 9 clauses differ');
  });

  it('rejects fewer than two runs and duplicate labels in one line', () => {
    expect(() => compareResults([{ label: 'a', results: reference }])).toThrow(CompareInputError);
    expect(() =>
      compareResults([
        { label: 'a', results: reference },
        { label: 'a', results: staging },
      ]),
    ).toThrow("compare: the label 'a' is used twice; name columns with label=path");
  });
});

describe('compare, where SPEC departs from Amazon S3', () => {
  // One run as SPEC says; the other as Amazon S3 does, in a document of an earlier version (no amazon).
  const spec = departureResults();
  const amazonLike = runResults(
    spec.clauses.map(({ amazon: _a, ...c }) => ({
      ...c,
      verdict: c.id === 's3.standin.get-bucket-tagging' ? 'fail' : c.verdict,
    })),
    spec.cases,
    { target: { name: 'amazon-like', embedded: false } },
  );
  const specLike = runResults(
    spec.clauses.map((c) => ({ ...c, verdict: 'pass' as const })),
    spec.cases,
    { target: { name: 'spec-like', embedded: false } },
  );
  const docs = [
    { label: 'spec-like', results: specLike },
    { label: 'amazon-like', results: amazonLike },
  ];

  it('lists apart the differing clauses where SPEC departs, with what Amazon S3 does, and totals them per run', () => {
    const out = compareResults(docs);
    const lines = out.split('\n');
    const apart = lines.indexOf(
      'Where SPEC departs from Amazon S3 (a run that does as Amazon S3 does fails these):',
    );
    expect(apart).toBeGreaterThan(0);
    expect(lines.slice(0, apart).join('\n')).toMatch(/^s3\.get\.range-206 +pass +fail$/m);
    expect(lines.slice(0, apart).join('\n')).not.toContain('s3.standin');
    expect(lines[apart + 1]).toMatch(/^clause +spec-like +amazon-like +Amazon S3$/);
    expect(lines.slice(apart).join('\n')).toMatch(
      /^s3\.standin\.get-bucket-lifecycle +pass +fail +404 NoSuchLifecycleConfiguration$/m,
    );
    // The amazon-like run's document has no amazon; the other run's catalog says where SPEC departs.
    expect(lines.slice(apart).join('\n')).toMatch(
      /^s3\.standin\.get-bucket-tagging +pass +fail +404 NoSuchTagSet$/m,
    );
    expect(out).toContain('7 of 8 clauses differ (6 where SPEC departs from Amazon S3)');
    expect(out).toMatch(/^fail where SPEC departs from Amazon S3 +0 +4$/m);
    expect(out).toMatch(/^error where SPEC departs from Amazon S3 +0 +1$/m);
  });

  it('shows those clauses in a table of their own on the HTML page, with an Amazon S3 column', () => {
    const html = compareHtml(docs);
    const at = html.indexOf('<h2>Where SPEC departs from Amazon S3</h2>');
    expect(at).toBeGreaterThan(0);
    expect(html.slice(0, at)).not.toContain('s3.standin.get-bucket-lifecycle');
    expect(html.slice(at)).toContain('<td class="muted">404 NoSuchLifecycleConfiguration</td>');
    expect(html).toContain('7 of 8 clauses differ</b> (6 where SPEC departs from Amazon S3)');
    expect(
      compareHtml([
        { label: 'a', results: sampleResults() },
        { label: 'b', results: sampleResults() },
      ]),
    ).not.toContain('Amazon S3');
  });
});

describe('compareHtml', () => {
  const reference = variant('reference', {});
  const staging = variant('staging', { 'mgmt.envelope.errors': 'pass', 's3.list.key-count': 'fail' }, [
    'mgmt.auth.secrets',
  ]);
  const docs = [
    { label: 'reference', results: reference },
    { label: 'st<aging>', results: staging },
  ];
  const rows = (html: string) => [...html.matchAll(/<tr class="(diff|same)"[^>]*><td><code>([^<]+)</g)];

  it('is one page with a column per run, every clause by section, the differing rows marked', () => {
    const html = compareHtml(docs);
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<th>reference</th><th>st&lt;aging&gt;</th>');
    expect(html).not.toContain('st<aging>');
    const all = rows(html);
    expect(all.length).toBe(8);
    expect(all.filter((r) => r[1] === 'diff').map((r) => r[2])).toEqual(
      expect.arrayContaining(['mgmt.envelope.errors', 'mgmt.auth.secrets', 's3.list.key-count']),
    );
    expect(all.filter((r) => r[1] === 'diff').length).toBe(3);
    expect(html).toContain('<b class="badge absent">-</b>');
    expect(html).toContain('3 of 8 clauses differ');
    // The rows that agree are behind a checkbox: on by default, off with all.
    expect(html).toContain('<input type="checkbox" id="only-diff" checked>');
    expect(compareHtml(docs, { all: true })).toContain('<input type="checkbox" id="only-diff">');
  });

  it('loads nothing: a policy forbids requests and the page names no external resource', () => {
    const html = compareHtml(docs);
    expect(html).toContain(`content="default-src 'none';`);
    expect(html).not.toMatch(/\b(src|href)="(?!#|data:)/);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('edgecheck compare --html FILE writes the page besides the text table', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edgecheck-compare-html-'));
    dirs.push(dir);
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    await writeFile(a, JSON.stringify(reference));
    await writeFile(b, JSON.stringify(staging));
    const out = join(dir, 'out', 'compare.html');
    const r = await runMain(['compare', a, b, '--html', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('3 of 8 clauses differ');
    expect(await readFile(out, 'utf8')).toContain('<th>reference</th><th>staging</th>');
    const bad = await runMain(['compare', a, b, '--html', '']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--html: give a file in a writable folder');
  });
});

describe('reading results documents for compare', () => {
  it('labels runs by target name, by file name when names clash, and rejects bad files in one line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edgecheck-compare-'));
    dirs.push(dir);
    const write = async (name: string, value: unknown) => {
      const path = join(dir, name);
      await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
      return path;
    };
    const a = await write('ref.json', sampleResults());
    const b = await write('staging-1.json', {
      ...sampleResults(),
      target: { name: 'staging', embedded: false },
    });
    const c = await write('staging-2.json', {
      ...sampleResults(),
      target: { name: 'staging', embedded: false },
    });
    expect(readForCompare([a, b, c]).map((d) => d.label)).toEqual(['reference', 'staging-1', 'staging-2']);
    expect(readForCompare([`before=${b}`, `after=${c}`]).map((d) => d.label)).toEqual(['before', 'after']);
    const odd = await write('x=y.json', sampleResults());
    expect(readForCompare([odd, a])[0].results.runId).toBe('r-test01');
    expect(readResultsDocument(a)).toEqual(sampleResults());

    const cases: [string, RegExp][] = [
      [
        join(dir, 'missing.json'),
        /missing\.json: no such file; give a file written by --reporter json=PATH$/,
      ],
      [await write('broken.json', '{"a":'), /broken\.json: not JSON \(/],
      [
        await write('other.json', { ...sampleResults(), clauses: [{ id: 'x.y', verdict: 'great' }] }),
        /other\.json: not an edgecheck results document \(\/clauses\/0 /,
      ],
    ];
    for (const [path, message] of cases) {
      let error: unknown;
      try {
        readResultsDocument(path);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ResultsDocumentError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('\n');
    }
  });
});
