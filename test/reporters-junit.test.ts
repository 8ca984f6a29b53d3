import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { JunitReporter, renderJunit } from '../reporters/junit.ts';
import {
  caseResult,
  check,
  clause,
  departureResults,
  feed,
  memoryStream,
  NASTY,
  runResults,
  sampleResults,
} from './helpers/results-fixture.ts';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  isArray: (name) => ['testsuite', 'testcase'].includes(name),
});

interface Testcase {
  classname: string;
  name: string;
  time: string;
  failure?: { message: string; type: string; '#text'?: string };
  error?: { message: string; '#text'?: string };
  skipped?: { message: string };
  properties?: { property: { name: string; value: string } };
  'system-out'?: string;
}

function parse(xml: string) {
  expect(XMLValidator.validate(xml)).toBe(true);
  return parser.parse(xml).testsuites as Record<string, any> & {
    testsuite: (Record<string, string> & { testcase: Testcase[] })[];
  };
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('junit reporter', () => {
  const results = sampleResults();
  const root = parse(renderJunit(results));
  // The run's own suite (edgecheck: what teardown left) comes after the areas.
  const areaSuites = root.testsuite.filter((s) => s.name !== 'edgecheck');
  const all = areaSuites.flatMap((s) => s.testcase);
  const byId = (id: string) => all.find((t) => t.name.startsWith(`${id}: `))!;

  it('says where SPEC departs from Amazon S3: a property on the testcase, and first in a failure message', () => {
    const cases = parse(renderJunit(departureResults())).testsuite[0].testcase;
    const of = (id: string) => cases.find((t) => t.name.startsWith(`${id}: `))!;
    const lifecycle = of('s3.standin.get-bucket-lifecycle');
    // A failure there also says what the target's answer was, as every report splits them.
    expect(lifecycle.properties?.property).toEqual([
      { name: 'amazon', value: '404 NoSuchLifecycleConfiguration' },
      { name: 'amazonAnswer', value: 'asAmazon' },
    ]);
    expect(lifecycle.failure?.message).toBe(
      'where SPEC departs from Amazon S3 (Amazon S3: 404 NoSuchLifecycleConfiguration; the target does the same): status: expected 200, got 404',
    );
    const replication = of('s3.standin.get-bucket-replication');
    expect(replication.properties?.property).toContainEqual({ name: 'amazonAnswer', value: 'neither' });
    expect(replication.failure?.message).toMatch(
      /; the target does neither\): status: expected 200, got 501$/,
    );
    expect(of('s3.region.auto').properties?.property).toContainEqual({
      name: 'amazonAnswer',
      value: 'undecided',
    });
    // A blocked clause is no departure: the property says what Amazon S3 does, nothing more.
    expect(of('s3.mpu.abort-repeatable').properties?.property).toEqual({
      name: 'amazon',
      value: 'a repeated abort answers 404 NoSuchUpload',
    });
    expect(of('s3.lock.create-enabled-not-implemented').error?.message).toMatch(
      /^where SPEC departs from Amazon S3 \(Amazon S3: creates the bucket with object lock enabled\): /,
    );
    expect(lifecycle['system-out']).toContain(
      'SPEC departs from Amazon S3 here; Amazon S3: 404 NoSuchLifecycleConfiguration',
    );
    const shared = of('s3.get.range-206');
    expect(shared.properties).toBeUndefined();
    expect(shared.failure?.message).toBe('status: expected 206, got 200');
    // A passing clause keeps the property, and no message.
    expect(of('s3.standin.get-bucket-tagging').properties?.property.value).toBe('404 NoSuchTagSet');
  });

  it('has one testsuite per area and one testcase per clause', () => {
    expect(root.testsuite.map((s) => s.name)).toEqual(['management', 's3', 'deprecations', 'edgecheck']);
    expect(all.length).toBe(results.clauses.length);
    expect(all.map((t) => t.name.split(': ')[0])).toEqual(results.clauses.map((c) => c.id));
  });

  it('counts tests, failures, errors and skipped as the clause verdicts say, per suite and in total', () => {
    const s = results.summary.clauses;
    // Eight clauses, and the one thing left on the target.
    expect(Number(root.tests)).toBe(8 + 1);
    expect(Number(root.failures)).toBe(s.fail + 1);
    expect(Number(root.failures)).toBe(4);
    expect(Number(root.errors)).toBe(1);
    // blocked, skipped and untested all render as <skipped>.
    expect(Number(root.skipped)).toBe(s.blocked + s.skipped + s.untested);
    expect(Number(root.skipped)).toBe(3);
    for (const suite of areaSuites) {
      const clauses = results.clauses.filter((c) => c.area === suite.name);
      expect(Number(suite.tests)).toBe(clauses.length);
      expect(Number(suite.failures)).toBe(suite.testcase.filter((t) => t.failure).length);
      expect(Number(suite.failures)).toBe(clauses.filter((c) => c.verdict === 'fail').length);
      expect(Number(suite.errors)).toBe(clauses.filter((c) => c.verdict === 'error').length);
      expect(Number(suite.skipped)).toBe(
        clauses.filter((c) => ['blocked', 'skipped', 'untested'].includes(c.verdict)).length,
      );
    }
  });

  it('names testcases <area>.<section> / <clause id>: <title> and gives times in seconds', () => {
    const t = byId('s3.get.range-inclusive');
    expect(t.classname).toBe('s3.Object storage S3-compatible interface: behaviours');
    expect(t.name).toBe('s3.get.range-inclusive: Title of s3.get.range-inclusive');
    expect(t.time).toBe('0.120');
    expect(byId('mgmt.auth.secrets').time).toBe('0.000');
    expect(Number(root.time)).toBeCloseTo(1.234);
    for (const suite of root.testsuite) expect(suite.time).toMatch(/^\d+\.\d{3}$/);
  });

  it('puts the failure as the console shows it in the failure body: case lines with a caret, values once, exchange, reproduction', () => {
    const f = byId('mgmt.envelope.errors').failure!;
    expect(f.message).toBe('json /errors: expected [] but got 1 element');
    const body = (f['#text'] ?? '').split('\n');
    const at = body.indexOf('fail: json /errors: expected [] but got 1 element');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(body[at + 1]).toBe('  --> suites/management/zones.case.yaml:15:26');
    expect(body).toContain(' 15 |         json: { /errors: [] }');
    expect(body[body.indexOf(' 15 |         json: { /errors: [] }') + 1]).toBe(
      '    |                          ^^',
    );
    expect(body.filter((l) => l === 'expected: []')).toHaveLength(1);
    expect(body.filter((l) => l === 'actual:   [{"code":1000,"message":"oops"}]')).toHaveLength(1);
    expect(body).toContain('  GET http://127.0.0.1:1/client/v4/zones/abc');
    expect(body).toContain('  HTTP 200');
    expect(f['#text']).toContain("curl -sS -X GET 'http://127.0.0.1:1/client/v4/zones/abc'");
    expect(byId('mgmt.dns.error-chain').error!.message).toBe('timeout after 30000 ms');
  });

  it('reports blocked with the reason, skipped with the date window and untested as skipped', () => {
    expect(byId('s3.get.range-inclusive').skipped!.message).toBe(
      'blocked: given 2 failed: PutObject returned 500',
    );
    expect(byId('dep.dns-locked.present').skipped!.message).toBe(
      'skipped: outside its date window (until 2024-07-14) as of 2025-02-01',
    );
    expect(byId('mgmt.auth.secrets').skipped!.message).toBe(
      'untestable: storage of tokens is not observable',
    );
    expect(byId('mgmt.envelope.success').failure).toBeDefined();
    expect(byId('s3.list.key-count').failure ?? byId('s3.list.key-count').skipped).toBeUndefined();
  });

  it('fails one test case per thing left on the target, with the command that removes it', () => {
    const run = root.testsuite.find((s) => s.name === 'edgecheck')!;
    expect(run.testcase).toHaveLength(1);
    const t = run.testcase[0];
    expect(t.classname).toBe('edgecheck.teardown');
    expect(t.name).toBe('left on the target: bucket b');
    expect(t.failure!.message).toBe('s3.get.ranges: DeleteBucket returned 409');
    expect(t.failure!['#text']).toContain('aws s3 rb s3://b --force');
  });

  it('lists the checks of each clause in system-out', () => {
    const out = byId('mgmt.envelope.success')['system-out']!;
    expect(out).toContain('[pass] mgmt.zones.get, get-zone (suites/management/zones.case.yaml:12)');
    expect(out).toContain('[fail] mgmt.zones.get, get-zone: errors is empty on success');
  });

  it('escapes markup and drops control characters', () => {
    const xml = renderJunit(results);
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    const t = byId('s3.list.nasty');
    // The parser decodes entities: what survives is the text minus the control characters.
    const clean = NASTY.replace(/[\u0001\u001b]/g, '');
    expect(t.name).toBe(`s3.list.nasty: t ${clean}`);
    expect(t.failure!.message).toBe(`message ${clean}`);
    expect(t.failure!['#text']).toContain(`actual:   "actual ${'a<b>&\\"c\''}`);
    expect(xml).toContain('a&lt;b&gt;&amp;&quot;c');
  });

  it('writes the file (creating directories), or standard output without a path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edgecheck-junit-'));
    dirs.push(dir);
    const dest = join(dir, 'reports', 'junit.xml');
    await feed(new JunitReporter({ dest }), results);
    expect(await readFile(dest, 'utf8')).toBe(renderJunit(results));
    const stream = memoryStream();
    await feed(new JunitReporter({ stream }), results);
    expect(stream.text()).toBe(renderJunit(results));
  });

  it('shows an interrupted run as an error so the CI page does not look green', async () => {
    const stream = memoryStream();
    await feed(new JunitReporter({ stream }), results, true);
    const cut = parse(stream.text());
    expect(Number(cut.errors)).toBe(1);
    const t = cut.testsuite.flatMap((s) => s.testcase).find((c) => c.classname === 'edgecheck.run')!;
    expect(t.error!.message).toContain('run cut short: 5 cases finished');
  });

  it('shows a run stopped by an interrupt as an error, with its exit code', () => {
    const doc = parse(renderJunit({ ...results, interrupted: true, exitCode: 130 }));
    const t = doc.testsuite.flatMap((s) => s.testcase).find((c) => c.classname === 'edgecheck.run')!;
    expect(t.error!.message).toBe('run interrupted: checks that had not run are blocked; exit code 130');
  });
});

describe('junit escaping of arbitrary text', () => {
  const allowed = (t: string) =>
    t
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/\s+/g, ' ')
      .trim();

  it('stays well-formed and keeps every allowed character of titles and messages', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.string({ unit: 'binary', maxLength: 40 }),
        (title, message) => {
          const results = runResults(
            [clause('s3.any.text', { title: title || 'x' })],
            [
              caseResult('s3.any', 's3', [
                check({
                  caseId: 's3.any',
                  clauses: ['s3.any.text'],
                  verdict: 'fail',
                  message,
                  actual: message,
                }),
              ]),
            ],
          );
          const t = parse(renderJunit(results)).testsuite[0].testcase[0];
          expect(t.name).toBe(allowed(`s3.any.text: ${title || 'x'}`));
          expect(String(t.failure!.message)).toBe(allowed(message) || 'a check failed');
        },
      ),
      { numRuns: 200, seed: 7 },
    );
  });

  it('drops lone surrogates', () => {
    const results = runResults(
      [clause('s3.any.text', { title: 'a\ud800b\udc00c\ud83d\ude00' })],
      [caseResult('s3.any', 's3', [check({ caseId: 's3.any', clauses: ['s3.any.text'] })])],
    );
    expect(parse(renderJunit(results)).testsuite[0].testcase[0].name).toBe('s3.any.text: abc\ud83d\ude00');
  });
});
