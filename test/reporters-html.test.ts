import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_CREDENTIALS } from '../reference/context.ts';
import { renderHtml } from '../reporters/html.ts';
import type { CheckResult, RunResults } from '../runner/model/results.ts';
import { launchBrowser } from './helpers/browser.ts';
import { PROJECT_ROOT, runBinAsync } from './helpers/cli.ts';
import { recordNotRun } from './helpers/not-run.ts';
import {
  caseResult,
  clause,
  departureResults,
  NASTY,
  runResults,
  sampleResults,
} from './helpers/results-fixture.ts';

/** EDGECHECK_NO_BROWSER=1 skips the browser tests, nothing else does (helpers/browser.ts finds one). */
const NO_BROWSER = process.env.EDGECHECK_NO_BROWSER === '1';
if (NO_BROWSER) {
  recordNotRun({
    what: 'the HTML report in a browser (test/reporters-html.test.ts)',
    why: 'EDGECHECK_NO_BROWSER=1',
    remedy: 'unset EDGECHECK_NO_BROWSER',
  });
}
/** Screenshots of the report (ignored by git); docs/html-report.png is a copy of one. */
const OUTPUT = join(PROJECT_ROOT, 'test-output');
/** Fails mgmt.auth.legacy: the refused request carries the reference's legacy key, a secret. */
const FAULT = 'reject-legacy-auth';
const FAILING = 'mgmt.auth.legacy';
/**
 * What the run authenticates with: the embedded reference's own credentials. The token and the
 * legacy key go out in every management request, the S3 pair signs every S3 one. (The legacy
 * email is an identifier, shown like the account id, not a secret.)
 */
const SECRETS = [
  REFERENCE_CREDENTIALS.token,
  REFERENCE_CREDENTIALS.legacyKey,
  REFERENCE_CREDENTIALS.accessKeyId,
  REFERENCE_CREDENTIALS.secretAccessKey,
];

const runCli = (args: string[]) => runBinAsync(args, {}, 90_000);

describe.skipIf(NO_BROWSER)('the HTML report of a real run, in headless Chromium', () => {
  let dir: string;
  let file: string;
  let html: string;
  let results: RunResults;
  let browser: Browser | undefined;
  let page: Page;
  const requests: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgecheck-html-'));
    file = join(dir, 'report.html');
    const json = join(dir, 'results.json');
    const run = await runCli([
      'run',
      '--suite',
      'management',
      '--fault',
      FAULT,
      '--reporter',
      `html=${file}`,
      '--reporter',
      `json=${json}`,
    ]);
    expect(run.code, run.stderr).toBe(1);
    html = await readFile(file, 'utf8');
    results = JSON.parse(await readFile(json, 'utf8'));
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the run failed the clause its fault breaks, in a request that carried a secret', () => {
    const failing = results.clauses.filter((c) => c.verdict === 'fail').map((c) => c.id);
    expect(failing).toEqual([FAILING]);
    const check = results.cases
      .flatMap((c) => c.checks)
      .find((k) => k.verdict === 'fail' && k.clauses.includes(FAILING));
    // The legacy key went out in this request; the engine redacted it in what the report got.
    expect(check?.exchange?.request?.headers['x-auth-key']).toBe('[REDACTED]');
  });

  it('shows the failing clause under its SPEC section heading, and its checks when opened', async () => {
    const clauseBox = page.locator(`details.clause[id="c-${FAILING}"]`);
    await expect.poll(() => clauseBox.isVisible()).toBe(true);
    expect(await clauseBox.getAttribute('data-v')).toBe('fail');
    expect(await page.locator('details.clause.fail').count()).toBe(1);
    const heading = await clauseBox.evaluate((el) => el.closest('section')?.querySelector('h3')?.textContent);
    expect(heading).toBe('management: Authentication');

    await clauseBox.locator('summary').click();
    const body = clauseBox.locator('.f');
    await expect.poll(() => body.isVisible()).toBe(true);
    const text = (await body.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('--> suites/management/auth.case.yaml:');
    expect(text).toContain('x-auth-key: [REDACTED]');
    expect(text).toMatch(/response: HTTP 4\d\d/);
    expect(text).toContain('reproduce');
    expect(text).toContain('X-Auth-Key: $EDGECHECK_AUTH_KEY');

    await mkdir(OUTPUT, { recursive: true });
    await clauseBox.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await page.evaluate('window.scrollBy(0, -100)');
    await page.screenshot({ path: join(OUTPUT, 'html-report-failure.png') });
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(OUTPUT, 'html-report.png') });
  });

  it('hides passing clauses when their verdict is unticked, and filters by search', async () => {
    const passing = page.locator('details.clause[data-v="pass"]');
    expect(await passing.count()).toBe(results.summary.clauses.pass);
    await expect.poll(() => passing.first().isVisible()).toBe(true);
    const failing = page.locator(`details.clause[id="c-${FAILING}"]`);

    await page.locator('#filters input[name="v"][value="pass"]').click();
    await expect.poll(() => passing.evaluateAll((els) => els.filter((e) => !e.hidden).length)).toBe(0);
    expect(await passing.first().isVisible()).toBe(false);
    expect(await failing.isVisible()).toBe(true);
    expect(await page.locator('#shown').innerText()).toBe(
      `${results.clauses.length - results.summary.clauses.pass} of ${results.clauses.length} clauses shown`,
    );
    await page.screenshot({ path: join(OUTPUT, 'html-report-filtered.png') });

    await page.locator('#filters input[name="v"][value="pass"]').click();
    await expect.poll(() => passing.first().isVisible()).toBe(true);

    await page.locator('#q').fill('legacy key pair');
    await expect
      .poll(() => page.locator('details.clause:not([hidden])').evaluateAll((els) => els.map((e) => e.id)))
      .toContain(`c-${FAILING}`);
    const shown = await page.locator('details.clause:not([hidden])').count();
    expect(shown).toBeLessThan(results.clauses.length);
    await page.locator('#q').fill('');
  });

  it('lists every case with the requests it sent, costliest first, and sorts by a heading when clicked', async () => {
    const table = page.locator('table.cost');
    const column = (n: number) =>
      table.locator('tbody tr').evaluateAll((rows, i) => rows.map((r) => r.children[i].textContent ?? ''), n);
    const byId = new Map(results.cases.map((c) => [c.id, c.requests]));
    const ids = await column(0);
    expect(ids.length).toBe(results.cases.length);
    const counts = (await column(2)).map(Number);
    expect(counts).toEqual(ids.map((id) => byId.get(id)));
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(counts[0]).toBeGreaterThan(counts[counts.length - 1]);

    await table.locator('th', { hasText: 'requests' }).locator('button').click();
    await expect.poll(async () => (await column(2)).map(Number)).toEqual([...counts].sort((a, b) => a - b));
    await table.locator('th', { hasText: 'case' }).locator('button').click();
    await expect.poll(() => column(0)).toEqual([...ids].sort((a, b) => b.localeCompare(a)));
  });

  it('requested nothing but the file itself, and logged no error', () => {
    expect(requests).toEqual([pathToFileURL(file).href]);
    expect(errors).toEqual([]);
  });

  it('holds no secret of the run', () => {
    for (const secret of SECRETS) expect(html).not.toContain(secret);
    expect(html).toContain('x-auth-key: [REDACTED]');
  });

  it('is the screenshot the README shows (docs/html-report.png is a copy of test-output/html-report.png)', async () => {
    // Refreshes the README's copy only when asked: a test run leaves the tracked file alone.
    if (process.env.EDGECHECK_UPDATE_SCREENSHOT === '1') {
      await copyFile(join(OUTPUT, 'html-report.png'), join(PROJECT_ROOT, 'docs', 'html-report.png'));
    }
    expect(existsSync(join(PROJECT_ROOT, 'docs', 'html-report.png'))).toBe(true);
  });
});

describe('renderHtml', () => {
  const property: CheckResult = {
    caseId: 's3.props.keys',
    step: 'property',
    index: 0,
    clauses: ['s3.keys.roundtrip'],
    verdict: 'fail',
    origin: 'suites/s3/properties/keys.property.ts',
    message:
      'Property failed after 4 tests\n{ seed: 1234, path: "3:0", endOnFailure: true }\n' +
      'Counterexample: ["a</pre><script>x()</script>"]\nShrunk 2 time(s) (replay: --seed 1234)',
  };
  const binary: CheckResult = {
    caseId: 's3.get.bytes',
    step: 'get',
    index: 0,
    clauses: ['s3.get.bytes'],
    verdict: 'fail',
    origin: 'suites/s3/get.case.yaml:4:9',
    message: 'body: expected 10 bytes, got 9',
    exchange: {
      request: { method: 'GET', url: 'http://127.0.0.1:2/b/k', headers: { authorization: '[REDACTED]' } },
      response: { status: 200, headers: {}, body: { size: 9, sha256: 'ab'.repeat(32) } },
    },
  };

  it('escapes every text from the run: no markup of a target gets through', () => {
    const html = renderHtml(sampleResults());
    expect(html).not.toContain(NASTY);
    expect(html).not.toContain('<b>&');
    expect(html).not.toContain('\u001b');
    expect(html).toContain('a&lt;b&gt;&amp;&quot;c&#39; \\x01\\x1b[31m]]&gt; ✓');
    expect(html.match(/<script/g)?.length).toBe(1);
  });

  it("shows a property's seed and shrunk counterexample, and a binary body as size and digest", () => {
    const results = runResults(
      [clause('s3.keys.roundtrip', { section: 'Object storage S3-compatible interface: behaviours / 2' })],
      [caseResult('s3.props.keys', 's3', [property]), caseResult('s3.get.bytes', 's3', [binary])],
    );
    const html = renderHtml(results);
    expect(html).toContain('{ seed: 1234, path: &quot;3:0&quot;, endOnFailure: true }');
    expect(html).toContain('Counterexample: [&quot;a&lt;/pre&gt;&lt;script&gt;x()&lt;/script&gt;&quot;]');
    expect(html.match(/<script/g)?.length).toBe(1);
    const bytes = renderHtml(
      runResults([clause('s3.get.bytes')], [caseResult('s3.get.bytes', 's3', [binary])]),
    );
    expect(bytes).toContain(`&lt;9 bytes of binary data, sha256 ${'ab'.repeat(32)}&gt;`);
  });

  it('groups sections by SPEC heading in SPEC order, and offers a baseline filter with a baseline', () => {
    const results = runResults(
      [
        clause('mgmt.a', { section: 'Limits (per_page)', verdict: 'pass' }),
        clause('mgmt.b', { section: 'Errors / 1', verdict: 'pass' }),
        clause('mgmt.c', { section: 'Resources and their fields / Rule', verdict: 'fail' }),
        clause('mgmt.d', { section: 'Limits (custom log fields)', verdict: 'pass' }),
      ],
      [],
      { baseline: { file: 'baselines/x.yaml', newFailures: [], fixed: [], expected: ['mgmt.c'] } },
    );
    const html = renderHtml(results);
    const headings = [...html.matchAll(/<section class="group" id="s-\d+"><h3>([^<]+)<\/h3>/g)].map(
      (m) => m[1],
    );
    expect(headings).toEqual([
      'management: Resources and their fields',
      'management: Errors',
      'management: Limits',
    ]);
    expect(html).toContain('<select id="f-baseline">');
    expect(html).toMatch(/id="c-mgmt\.c" data-v="fail"[^>]* data-baseline="expected"/);
    expect(html).toMatch(/id="c-mgmt\.a" data-v="pass"[^>]* data-baseline="-"/);
  });

  it('lists apart the failures where SPEC departs from Amazon S3, by the target’s answer, marks those clauses, and filters by it', () => {
    const html = renderHtml(departureResults());
    const apart = html.slice(html.indexOf('<h3>Where SPEC departs from Amazon S3 (4)</h3>'));
    expect(apart.length).toBeLessThan(html.length);
    const section = apart.slice(
      0,
      apart.lastIndexOf('</ul>', apart.indexOf("Not compared with Amazon S3's answer") + 400),
    );
    expect(section).toContain(
      '3 of the 4 failing and 1 of the 1 erroring clauses are where SPEC departs from Amazon S3: 1 as Amazon S3 does, 1 neither as SPEC says nor as Amazon S3 does, 2 not compared with Amazon S3&#39;s answer',
    );
    const group = (heading: string) => {
      const at = apart.indexOf(`<h4>${heading}</h4>`);
      expect(at, heading).toBeGreaterThan(0);
      return apart.slice(at, apart.indexOf('</ul>', at));
    };
    expect(group('Doing as Amazon S3 does (1)')).toContain(
      '<a href="#c-s3.standin.get-bucket-lifecycle"><code>s3.standin.get-bucket-lifecycle</code></a> <span class="muted">Amazon S3: 404 NoSuchLifecycleConfiguration; the target does the same</span>',
    );
    expect(group('Doing neither what SPEC says nor what Amazon S3 does (1)')).toContain(
      'Amazon S3: 404 ReplicationConfigurationNotFoundError; the target does neither',
    );
    const undecided = group('Not compared with Amazon S3&#39;s answer (2)');
    expect(undecided).toContain('s3.region.auto');
    expect(undecided).toContain('s3.lock.create-enabled-not-implemented');
    const list = apart.slice(0, apart.indexOf('</ul>', apart.indexOf('<h4>Not compared')));
    expect(list).not.toContain('s3.get.range-206');
    // A blocked clause is no departure.
    expect(list).not.toContain('abort-repeatable');
    expect(list).not.toContain('NoSuchTagSet');
    expect(html).toMatch(/id="c-s3\.region\.auto" [^>]*data-amazon="departs"/);
    expect(html).toMatch(/id="c-s3\.get\.range-206" [^>]*data-amazon="shared"/);
    // Every clause that departs says what Amazon S3 does, passing ones too.
    expect(html).toContain('source: spec · Amazon S3: 404 NoSuchTagSet');
    expect(html).toContain('<select id="f-amazon">');
    expect(renderHtml(sampleResults())).not.toContain('Amazon S3');
  });

  it('tags the clauses SPEC does not state, and filters by source', () => {
    const html = renderHtml(sampleResults());
    expect(html).toContain('<select id="f-source">');
    expect(html).toContain('<option value="s3">S3 habit (SPEC silent, S3 documents it)</option>');
    expect(html).not.toContain('<option value="service">');
    expect(html).toMatch(/id="c-s3\.list\.key-count" [^>]*data-source="s3"/);
    expect(html).toMatch(/id="c-s3\.list\.nasty" [^>]*data-source="spec"/);
    expect(html).toContain('<span class="tag source">[S3 habit]</span>');
    // A run of SPEC's clauses alone has nothing to tell apart.
    const specOnly = sampleResults();
    for (const c of specOnly.clauses) c.source = 'spec';
    expect(renderHtml(specOnly)).not.toContain('f-source"');
  });

  it('reports the finished cases of a run cut short', () => {
    const html = renderHtml(sampleResults(), { complete: false, cases: 9 });
    expect(html).toContain('Run cut short: 5 of 9 cases finished');
    expect(html).toContain('<h2>Finished cases</h2>');
  });
});
