import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBin, runMain, STACK_LINE } from './helpers/cli.ts';

/**
 * Fixture suites, one per problem: test/fixtures/engine/lint/<problem>/mgmt/. The YAML syntax
 * error is written at run time, so that no broken YAML file sits in the repository.
 */
const SYNTAX_DIR = mkdtempSync(path.join(tmpdir(), 'edgecheck-lint-'));
for (const name of ['clauses.yaml', 'sections.yaml']) {
  cpSync(`test/fixtures/engine/lint/uncited-clause/mgmt/${name}`, path.join(SYNTAX_DIR, 'mgmt', name));
}
writeFileSync(
  path.join(SYNTAX_DIR, 'mgmt/bad.case.yaml'),
  [
    'id: lint.yaml-syntax',
    'title: A flow mapping that is never closed',
    'steps:',
    '  - api: { method: GET, path: /zones',
    '    expect:',
    '      - clauses: [mgmt.lint.one]',
    '        status: 200',
    '',
  ].join('\n'),
);

/** Suites written by a test, each in a folder of its own. */
const PLANTED_DIR = mkdtempSync(path.join(tmpdir(), 'edgecheck-lint-planted-'));

afterAll(() => {
  rmSync(SYNTAX_DIR, { recursive: true, force: true });
  rmSync(PLANTED_DIR, { recursive: true, force: true });
});

const dir = (problem: string) =>
  problem === 'yaml-syntax' ? SYNTAX_DIR : `test/fixtures/engine/lint/${problem}`;
const file = (problem: string, name: string) => `${dir(problem)}/mgmt/${name}`;

async function lint(problem: string, ...flags: string[]) {
  return runMain(['lint', '--suites-dir', dir(problem), ...flags]);
}

/** Problems are written to stderr, one line each; the summary line goes to stdout. */
function problemLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l !== '');
}

const CASES: { problem: string; line: string }[] = [
  {
    problem: 'yaml-syntax',
    line: `${file('yaml-syntax', 'bad.case.yaml')}:5:5: error: YAML syntax: Flow map in block collection must be sufficiently indented and end with a }`,
  },
  {
    problem: 'unknown-key',
    line: `${file('unknown-key', 'extra.case.yaml')}:8:9: error: /steps/0/expect/0: unknown key 'statsu'; see schemas/case.schema.json`,
  },
  {
    problem: 'unknown-clause',
    line: `${file('unknown-clause', 'cites.case.yaml')}:8:9: error: unknown clause 'mgmt.lint.nope'; add it to a clauses.yaml or fix the id`,
  },
  {
    problem: 'duplicate-clause',
    line: `${file('duplicate-clause', 'clauses.yaml')}:9:9: error: duplicate clause id 'mgmt.lint.one' (first at ${file('duplicate-clause', 'clauses.yaml')}:3:9); give it a new id`,
  },
  {
    problem: 'duplicate-case',
    line: `${file('duplicate-case', 'b.case.yaml')}:2:5: error: duplicate case id 'lint.same' (first at ${file('duplicate-case', 'a.case.yaml')}:1:5); give it a new id`,
  },
  {
    problem: 'unresolvable-placeholder',
    line: `${file('unresolvable-placeholder', 'placeholder.case.yaml')}:9:5: error: unresolvable placeholder \${record.id}: capture 'record' in an earlier step, or use run/case/target/asOf`,
  },
  {
    problem: 'missing-schema',
    line: `${file('missing-schema', 'schema.case.yaml')}:6:9: error: schema 'no-such-resource.json' not found in schemas/; add the file or fix the $ref`,
  },
  {
    problem: 'no-matcher',
    line: `${file('no-matcher', 'nomatcher.case.yaml')}:8:9: error: a check without a matcher cannot fail; add status, headers, json, xml, body, output or error`,
  },
  {
    problem: 'untestable-cited',
    line: `${file('untestable-cited', 'untestable.case.yaml')}:6:9: error: clause 'mgmt.lint.hidden' is marked untestable, yet a check cites it`,
  },
  {
    problem: 'unknown-s3-command',
    line: `${file('unknown-s3-command', 's3.case.yaml')}:4:5: error: unknown S3 command 'PutObjekt': use an @aws-sdk/client-s3 command name without 'Command'`,
  },
  {
    problem: 'unknown-operator',
    line: `${file('unknown-operator', 'operator.case.yaml')}:6:9: error: unknown matcher '$regex'; known: $equals $matches $present $exists $absent $contains $oneOf $length $gt $gte $lt $lte $type $schema $not $anyOrder $each $sorted $keys`,
  },
  {
    problem: 'duplicate-step-id',
    line: `${file('duplicate-step-id', 'steps.case.yaml')}:9:5: error: duplicate step id 'read' in case 'lint.step-id'`,
  },
  {
    problem: 'teardown-with-checks',
    line: `${file('teardown-with-checks', 'teardown.case.yaml')}:11:11: error: teardown steps cannot have checks`,
  },
  {
    problem: 'invalid-regex',
    line: `${file('invalid-regex', 'regex.case.yaml')}:6:9: error: invalid regular expression "([a-f"`,
  },
  {
    problem: 'two-step-kinds',
    line: `${file('two-step-kinds', 'kinds.case.yaml')}:4:5: error: a step needs exactly one of api, s3, http, wire, binding, bucket; see docs/case-format.md`,
  },
  {
    problem: 'dates-reversed',
    line: `${file('dates-reversed', 'clauses.yaml')}:6:9: error: clause 'mgmt.lint.never' has since 2025-01-01 not before until 2024-01-01`,
  },
  {
    problem: 'passive-same-as-uncited',
    line: `${file('passive-same-as-uncited', 'clauses.yaml')}:7:9: error: sameAs: lint.same-as/read#1 (${file('passive-same-as-uncited', 'refs.case.yaml')}:9:9) does not cite 'mgmt.lint.one'; name a check that does`,
  },
  {
    problem: 'passive-same-as-placeholder',
    line: `${file('passive-same-as-placeholder', 'clauses.yaml')}:7:9: error: sameAs: lint.same-as/read#0 (${file('passive-same-as-placeholder', 'refs.case.yaml')}:7:9) holds a placeholder, which traffic cannot fill; write expect`,
  },
  {
    problem: 'unknown-clause-key',
    line: `${file('unknown-clause-key', 'clauses.yaml')}:6:5: error: /clauses/0: unknown key 'sinse'; see schemas/clauses.schema.json`,
  },
  {
    problem: 'amazon-outside-s3',
    line: `${file('amazon-outside-s3', 'clauses.yaml')}:6:13: error: clause 'mgmt.lint.one' is not an S3 clause: only suites/s3 compares with Amazon S3; remove amazon`,
  },
];

describe('lint errors: exactly one line at file:line:column, exit 2', () => {
  for (const { problem, line } of CASES) {
    it(`reports ${problem}`, async () => {
      const r = await lint(problem);
      expect(problemLines(r.stderr)).toEqual([line]);
      expect(r.stdout).toMatch(/; 1 error\(s\), 0 warning\(s\)\n$/);
      expect(r.code).toBe(2);
    });
  }
});

describe('amazon on a clause of source s3', () => {
  it("is refused: such a clause is Amazon S3's own behaviour, so it cannot depart from it", async () => {
    const at = 'test/fixtures/engine/lint/amazon-source-s3';
    const r = await runMain(['lint', '--suites-dir', at]);
    expect(problemLines(r.stderr)).toEqual([
      `${at}/s3/clauses.yaml:12:13: error: clause 's3.lint.amazon-own' has source s3, Amazon S3's own behaviour, so it cannot depart from Amazon S3; remove amazon`,
    ]);
    expect(r.code).toBe(2);
  });
});

describe("amazon's form", () => {
  let planted_ = 0;
  /** The source-s3 fixture with its last clause's source and amazon lines replaced by `amazon`. */
  function planted(amazon: string): string {
    const root = path.join(PLANTED_DIR, `amazon-${++planted_}`);
    cpSync('test/fixtures/engine/lint/amazon-source-s3', root, { recursive: true });
    const clauses = path.join(root, 's3/clauses.yaml');
    const lines = readFileSync(clauses, 'utf8').split('\n');
    writeFileSync(clauses, [...lines.slice(0, 10), `    amazon: ${amazon}`, ''].join('\n'));
    return root;
  }

  it('is refused as words alone, at its line, saying how to write it', async () => {
    const root = planted('"404 NoSuchTagSet"');
    const r = await runMain(['lint', '--suites-dir', root]);
    expect(problemLines(r.stderr)).toEqual([
      `${root}/s3/clauses.yaml:11:13: error: write amazon as { says: "404 NoSuchTagSet" }, with status, error, headers or xml beside says where the words give Amazon S3's answer (see docs/case-format.md)`,
    ]);
    expect(r.code).toBe(2);
  });

  it('is refused with a matcher no check knows, or a key that is no matcher', async () => {
    const root = planted('{ says: "404 NoSuchTagSet", status: { $is: 404 } }');
    expect(problemLines((await runMain(['lint', '--suites-dir', root])).stderr)).toEqual([
      expect.stringMatching(
        /^.*\/s3\/clauses\.yaml:11:13: error: clause 's3\.lint\.amazon-own', Amazon S3's answer: unknown matcher '\$is'; known: /,
      ),
    ]);
    const other = planted('{ says: "404 NoSuchTagSet", json: { /a: 1 } }');
    expect(problemLines((await runMain(['lint', '--suites-dir', other])).stderr)).toEqual([
      expect.stringMatching(/clauses\.yaml:11:\d+: error: .*unknown key 'json'/),
    ]);
  });

  it('passes with says and the matchers of the answer', async () => {
    const root = planted(
      '{ says: "404 NoSuchTagSet", status: 404, error: NoSuchTagSet, headers: { x-a: { $absent: true } } }',
    );
    const r = await runMain(['lint', '--suites-dir', root]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('lint --assertions', () => {
  it('lists every clause with the assertions citing it, where each is and the statement it proves, or why none does', async () => {
    const at = 'test/fixtures/engine/lint/assertions/s3';
    const r = await runMain(['lint', '--suites-dir', 'test/fixtures/engine/lint/assertions', '--assertions']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(0, -2)).toEqual([
      's3.lint.range  Ranges are inclusive',
      `  lint.assertions/first-byte  ${at}/checks.case.yaml:7:9`,
      // No title: the statement is made from its matchers.
      '    status 206; header content-range = "bytes 0-0/10"; body = bytes 0-0 of the generated object (10 bytes, seed 1)',
      `  lint.assertions/first-byte  ${at}/checks.case.yaml:11:9`,
      '    Nothing past the range comes back',
      `  lint.prop.ranges (property)  ${at}/properties/ranges.property.ts:6`,
      '    Every range of every object is served inclusive of both ends',
      // A check of observed traffic written in clauses.yaml, with the exchanges it judges.
      `  clauses.yaml (traffic)  ${at}/clauses.yaml:7:9`,
      '    observed S3 GET answers with status 206: header content-range matches /^bytes [0-9]+-[0-9]+/[0-9]+$/',
      's3.lint.standin  A stand-in answers a fresh bucket with an empty answer',
      '  SPEC departs from Amazon S3 here; Amazon S3: 404 NoSuchLifecycleConfiguration',
      `  lint.assertions/steps[1]  ${at}/checks.case.yaml:16:9`,
      '    status >= 200 and < 300; xml /Error absent; xml /LifecycleConfiguration/Rule not (has length > 0)',
      's3.lint.hint  Location hints can be set',
      '  untestable: no response reveals a hint',
      's3.lint.forgotten  Nobody checks this',
      '  untested: no check cites it',
    ]);
  });
});

describe('the uncited-clause warning', () => {
  const warning = `${file('uncited-clause', 'clauses.yaml')}:7:9: warning: clause 'mgmt.lint.forgotten' is cited by no check (untested)`;

  it('is a warning: listed, exit 0', async () => {
    const r = await lint('uncited-clause');
    expect(problemLines(r.stderr)).toEqual([warning]);
    expect(r.stdout).toBe(
      'edgecheck lint: 2 clauses (0 judgeable from observed traffic, 2 not, with reasons), 1 cases, 0 properties, 1 checks; 0 error(s), 1 warning(s)\n',
    );
    expect(r.code).toBe(0);
  });

  it('is an error under --strict: exit 2', async () => {
    const r = await lint('uncited-clause', '--strict');
    expect(problemLines(r.stderr)).toEqual([warning.replace(': warning: ', ': error: ')]);
    expect(r.code).toBe(2);
  });
});

describe('the weak-check warning', () => {
  it('names each check that asserts only absence, a status class or a shape, unless it says why in weak:', async () => {
    const r = await lint('weak-checks');
    const at = (line: number, what: string) =>
      `${file('weak-checks', 'weak.case.yaml')}:${line}:9: warning: the check asserts only ${what}: assert the value its clause states, or say why it need not in 'weak:'`;
    expect(problemLines(r.stderr)).toEqual([at(6, 'absence'), at(8, 'a status class'), at(10, 'a shape')]);
    expect(r.code).toBe(0);
  });
});

describe('bin/edgecheck.mjs lint as a process', () => {
  it('exits 2 with one line per problem and no stack trace (YAML syntax error)', () => {
    const r = runBin(['lint', '--suites-dir', dir('yaml-syntax')]);
    expect(r.code).toBe(2);
    expect(problemLines(r.stderr)).toEqual([CASES[0].line]);
    expect(r.stderr + r.stdout).not.toMatch(STACK_LINE);
  });

  it('exits 2 with one line for a suites folder that does not exist', async () => {
    const r = await runMain(['lint', '--suites-dir', 'test/fixtures/engine/no-such-dir']);
    expect(r.code).toBe(2);
    expect(problemLines(r.stderr)).toEqual([
      'edgecheck: test/fixtures/engine/no-such-dir: not a suites folder: give a folder holding <suite>/clauses.yaml',
    ]);
  });
});
