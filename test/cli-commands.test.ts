import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RUN_HELP } from '../cli/run.ts';
import { schemas } from '../runner/schema/registry.ts';
import { PROJECT_ROOT, runBinAsync, runMain, STACK_LINE } from './helpers/cli.ts';
import { ok, sendJson, startServer, type TestServer } from './helpers/engine-server.ts';
import { CANARY_TOKEN, fixtureDir } from './helpers/engine-target.ts';

let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'edgecheck-cli-'));
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Bad input: exactly one line on stderr, `edgecheck: <where>: <what to do>`, exit 2, no stack trace. */
function expectOneLine(r: { code: number; stdout: string; stderr: string }, line: string | RegExp) {
  expect(r.code).toBe(2);
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  if (typeof line === 'string') expect(lines[0]).toBe(line);
  else expect(lines[0]).toMatch(line);
  expect(r.stderr + r.stdout).not.toMatch(STACK_LINE);
}

describe('bad input: one line, exit 2', () => {
  it('an unknown flag', async () => {
    expectOneLine(
      await runMain(['run', '--bogus']),
      "edgecheck: --bogus: unknown option; see 'edgecheck run --help'",
    );
  });

  it('a flag without its value', async () => {
    expectOneLine(
      await runMain(['run', '--as-of']),
      /^edgecheck: --as-of: needs a value; see 'edgecheck run --help'$/,
    );
  });

  it('a bad --as-of: not a date, or a day that does not exist', async () => {
    for (const d of ['yesterday', '2024-02-30', '2024-6-1']) {
      expectOneLine(
        await runMain(['run', '--as-of', d]),
        `edgecheck: --as-of ${d}: write a date as YYYY-MM-DD, e.g. 2024-06-01`,
      );
    }
  });

  it('a bad --concurrency: zero, a fraction, a word', async () => {
    for (const n of ['0', '1.5', 'many', '257']) {
      expectOneLine(
        await runMain(['run', '--concurrency', n]),
        `edgecheck: --concurrency ${n}: write a whole number from 1 to 256`,
      );
    }
  });

  it('a --config file that does not exist', async () => {
    const missing = path.join(tmp, 'missing.yaml');
    expectOneLine(
      await runMain(['run', '--config', missing]),
      `edgecheck: --config ${missing}: no such file`,
    );
  });

  it('a config file holding a token: refused at the key, the value never printed', async () => {
    const file = path.join(tmp, 'with-token.yaml');
    writeFileSync(
      file,
      `name: staging\nmanagement:\n  baseUrl: http://127.0.0.1:9\n  token: ${CANARY_TOKEN}\n`,
    );
    const r = await runMain(['run', '--config', file]);
    expectOneLine(
      r,
      `edgecheck: ${file}:4:3: secrets never go in a config file: name an environment variable (tokenEnv) or a file (tokenFile)`,
    );
    expect(r.stderr).not.toContain(CANARY_TOKEN);
  });

  it('an unknown --suite names the known ones', async () => {
    expectOneLine(
      await runMain(['run', '--suite', 'nope', '--suites-dir', fixtureDir('verdicts')]),
      'edgecheck: --suite nope: no such suite; known: mgmt',
    );
  });

  it('an unknown --reporter names the known ones', async () => {
    expectOneLine(
      await runMain(['run', '--reporter', 'xml']),
      /^edgecheck: --reporter xml: unknown reporter 'xml': use one of console, json, junit/,
    );
  });

  it('an unknown --fault points at the list', async () => {
    expectOneLine(
      await runMain(['run', '--fault', 'no-such-fault', '--suites-dir', fixtureDir('verdicts')]),
      "edgecheck: unknown fault 'no-such-fault': run 'edgecheck serve --list-faults' for the list",
    );
  });

  it('--fault together with a target of one’s own', async () => {
    vi.stubEnv('EDGECHECK_API_TOKEN', CANARY_TOKEN);
    try {
      expectOneLine(
        await runMain(['run', '--fault', 'x', '--management-url', 'http://127.0.0.1:9']),
        'edgecheck: --fault: faults apply to the embedded reference only; drop --fault or the target options',
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('a target without credentials', async () => {
    vi.stubEnv('EDGECHECK_API_TOKEN', '');
    try {
      expectOneLine(
        await runMain(['run', '--management-url', 'http://127.0.0.1:9']),
        /^edgecheck: management: no credentials: set EDGECHECK_API_TOKEN/,
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('an unknown command', async () => {
    const r = await runMain(['rnu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("edgecheck: unknown command 'rnu'; run 'edgecheck --help' for the list\n");
  });

  it('the real process exits 2 with the same single line', async () => {
    const r = await runBinAsync(['run', '--concurrency', 'many']);
    expectOneLine(r, 'edgecheck: --concurrency many: write a whole number from 1 to 256');
  });
});

describe('run --help', () => {
  it('documents every flag run accepts', async () => {
    const source = readFileSync(path.join(PROJECT_ROOT, 'cli/run.ts'), 'utf8');
    const block = /const OPTIONS = \{([\s\S]*?)\} as const;/.exec(source)?.[1] ?? '';
    const flags = [...block.matchAll(/^\s+'?([a-z][a-z0-9-]*)'?: \{ type:/gm)].map((m) => m[1]);
    expect(flags.length).toBeGreaterThan(20);
    const r = await runMain(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(RUN_HELP);
    // --help itself is announced by the top-level usage line (`edgecheck <command> --help`).
    const undocumented = flags.filter((f) => f !== 'help' && !new RegExp(`--${f}\\b`).test(r.stdout));
    expect(undocumented).toEqual([]);
    expect((await runMain(['--help'])).stdout).toContain('edgecheck <command> --help');
  });
});

describe('clauses --json', () => {
  it('lists every clause with id, area, section, title, source, checks and status', async () => {
    const r = await runMain(['clauses', '--json', '--suites-dir', fixtureDir('verdicts')]);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows).toHaveLength(14);
    for (const row of rows) {
      expect(row).toMatchObject({
        id: expect.stringMatching(/^mgmt\.verdict\./),
        area: 'mgmt',
        section: expect.stringMatching(/^Fixture \//),
        title: expect.any(String),
        source: 'spec',
        checks: expect.any(Number),
        status: expect.stringMatching(/^(checked|untested|untestable)$/),
      });
    }
    const byId = (id: string) => rows.find((x) => x.id === id);
    expect(byId('mgmt.verdict.uncited')).toMatchObject({ checks: 0, status: 'untested' });
    expect(byId('mgmt.verdict.pass')).toMatchObject({ checks: 1, status: 'checked' });
    expect(byId('mgmt.verdict.retired')).toMatchObject({ until: '2020-01-01', checks: 1 });
    expect(byId('mgmt.verdict.feature')).toMatchObject({ feature: 'public-buckets' });
  });
});

describe('clauses, where SPEC departs from Amazon S3', () => {
  it('says what Amazon S3 does beside such a clause, in JSON and text, and counts them', async () => {
    const dir = 'test/fixtures/engine/lint/assertions';
    const json = await runMain(['clauses', '--json', '--suites-dir', dir]);
    const rows = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(rows.find((x) => x.id === 's3.lint.standin')).toMatchObject({
      amazon: {
        says: '404 NoSuchLifecycleConfiguration',
        status: 404,
        error: 'NoSuchLifecycleConfiguration',
      },
    });
    expect(rows.find((x) => x.id === 's3.lint.range')).not.toHaveProperty('amazon');
    const text = (await runMain(['clauses', '--suites-dir', dir])).stdout;
    expect(text).toMatch(
      /^s3\.lint\.standin +1 check +A stand-in answers a fresh bucket with an empty answer {2}\(SPEC departs from Amazon S3 here; Amazon S3: 404 NoSuchLifecycleConfiguration\)$/m,
    );
    expect(text).toContain(
      '4 clauses: 2 checked, 1 untested, 1 untestable; 1 where SPEC departs from Amazon S3\n',
    );
  });
});

describe('JSON and JUnit outputs of a run', () => {
  let server: TestServer;
  let outcome: { code: number; stdout: string; stderr: string };
  let json: unknown;
  let junit: string;
  let resultsFile: string;

  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.url === '/client/v4/zones/z1') return sendJson(res, 200, ok({ id: 'z1', name: 'example.com' }));
      sendJson(res, 404, {
        success: false,
        errors: [{ code: 7003, message: 'no route' }],
        messages: [],
        result: null,
      });
    });
    const jsonFile = path.join(tmp, 'results.json');
    const junitFile = path.join(tmp, 'junit.xml');
    // In this process (the same `main` the bin runs), with the token in the environment.
    vi.stubEnv('EDGECHECK_API_TOKEN', CANARY_TOKEN);
    outcome = await runMain([
      'run',
      '--suites-dir',
      fixtureDir('verdicts'),
      '--case',
      'engine.pass',
      '--case',
      'engine.fail',
      '--management-url',
      server.url,
      '--as-of',
      '2024-06-01',
      '--reporter',
      `json=${jsonFile}`,
      '--reporter',
      `junit=${junitFile}`,
    ]);
    vi.unstubAllEnvs();
    resultsFile = jsonFile;
    json = JSON.parse(readFileSync(jsonFile, 'utf8'));
    junit = readFileSync(junitFile, 'utf8');
  }, 30_000);

  afterAll(async () => {
    await server?.close();
  });

  it('exits 1 because a clause fails', () => {
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(1);
  });

  it('the JSON document validates against schemas/results.schema.json and holds the verdicts', () => {
    expect(schemas().check('results.schema.json', json)).toBeUndefined();
    const doc = json as { clauses: { id: string; verdict: string }[]; exitCode: number };
    const verdict = (id: string) => doc.clauses.find((c) => c.id === id)?.verdict;
    expect(verdict('mgmt.verdict.pass')).toBe('pass');
    expect(verdict('mgmt.verdict.fail')).toBe('fail');
    expect(verdict('mgmt.verdict.after-fail')).toBe('blocked');
    expect(doc.exitCode).toBe(1);
  });

  it('clauses --results shows each clause with the verdict of that run', async () => {
    const r = await runMain(['clauses', '--results', resultsFile, '--suites-dir', fixtureDir('verdicts')]);
    expect(r.code).toBe(0);
    const line = (id: string) => r.stdout.split('\n').find((l) => l.startsWith(`${id} `));
    expect(line('mgmt.verdict.pass')).toMatch(
      /^mgmt\.verdict\.pass\s+pass\s+The zone answers 200 with its name$/,
    );
    expect(line('mgmt.verdict.fail')).toMatch(/^mgmt\.verdict\.fail\s+fail\s/);
    expect(r.stdout).toMatch(/^14 clauses: 13 checked, 1 untested, 0 untestable$/m);
  });

  it('the JUnit document is well-formed XML with a failure for the failing clause', () => {
    expect(XMLValidator.validate(junit)).toBe(true);
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (n) => ['testsuite', 'testcase'].includes(n),
    }).parse(junit);
    const cases = (doc.testsuites?.testsuite ?? []).flatMap(
      (s: { testcase?: unknown[] }) => s.testcase ?? [],
    ) as {
      name: string;
      failure?: unknown;
    }[];
    const named = (id: string) => cases.find((c) => c.name.includes(id));
    expect(named('mgmt.verdict.fail')?.failure).toBeDefined();
    expect(named('mgmt.verdict.pass')).toBeDefined();
    expect(named('mgmt.verdict.pass')?.failure).toBeUndefined();
    expect(junit).not.toContain(CANARY_TOKEN);
  });
});
