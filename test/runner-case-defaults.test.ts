import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadCaseFile } from '../runner/load/cases.ts';
import type { CaseDef, StepDef } from '../runner/model/case.ts';
import { SUITES_DIR } from '../runner/util/paths.ts';
import { DOC_FILE, generatedDoc, generatedSchema } from '../scripts/case-format.ts';

/**
 * Prerequisites shared by the cases of a file (a top-level `given`, `fileGiven: false` to opt out)
 * and named ones (`use: NAME`, from <suites>/given.yaml): what a case ends up with, and where
 * errors point.
 */

const ROOT = mkdtempSync(path.join(tmpdir(), 'edgecheck-given-'));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

const NAMED = `# Named prerequisites of the tests.
zone:
  - id: zone
    api: { method: GET, path: "/zones/\${target.zoneId}" }
    capture: { zone: /result/name }
two-buckets:
  - bucket: one
  - bucket: two
`;

let n = 0;
/** Writes a suites folder (with given.yaml unless `named` is null) holding one case file. */
function suite(caseFile: string, named: string | null = NAMED): { root: string; file: string } {
  const root = path.join(ROOT, `suite-${n++}`);
  mkdirSync(path.join(root, 'area'), { recursive: true });
  if (named !== null) writeFileSync(path.join(root, 'given.yaml'), named);
  const file = path.join(root, 'area', 'x.case.yaml');
  writeFileSync(file, caseFile);
  return { root, file };
}

function load(caseFile: string, named?: string | null): { cases: CaseDef[]; file: string } {
  const { root, file } = suite(caseFile, named);
  return { cases: loadCaseFile(file, 'area', root), file };
}

/** The InputError message loading the file throws (file:line:column: what). */
function loadError(caseFile: string, named?: string | null): { message: string; file: string; root: string } {
  const { root, file } = suite(caseFile, named);
  try {
    loadCaseFile(file, 'area', root);
  } catch (err) {
    return { message: (err as Error).message, file, root };
  }
  throw new Error('the file loaded');
}

/** A step in a few words: its kind and what it names. */
const brief = (s: StepDef) =>
  s.kind === 'bucket'
    ? `bucket ${s.bucket}`
    : s.kind === 's3'
      ? `s3 ${s.s3}`
      : `${s.kind} ${s.id ?? ''}`.trim();
const line = (origin: string) => Number(/:(\d+):\d+$/.exec(origin)?.[1]);

const FILE = `# a comment above the file's given
given:
  - bucket: b
  - s3: PutObject
    input: { Bucket: "\${b}", Key: k.txt, Body: hello }
cases:
  - id: t.plain
    title: Takes the file's given as it is
    steps:
      - http: { method: GET, bucket: "\${b}", key: k.txt }
  - id: t.adds
    title: Adds a step after the file's given
    given:
      - s3: PutObject
        input: { Bucket: "\${b}", Key: other.txt, Body: other }
    steps:
      - http: { method: GET, bucket: "\${b}", key: other.txt }
  - id: t.opts-out
    title: Leaves the file's given out
    fileGiven: false
    given:
      - bucket: c
    steps:
      - http: { method: GET, bucket: "\${c}", key: k.txt }
  - id: t.opts-out-entirely
    title: Has no prerequisites at all
    fileGiven: false
    steps:
      - http: { method: GET, path: /health }
`;

describe("a file's given", () => {
  const { cases } = load(FILE);
  const byId = new Map(cases.map((c) => [c.id, c]));

  it('applies to a case that says nothing of it', () => {
    expect(byId.get('t.plain')!.given.map(brief)).toEqual(['bucket b', 's3 PutObject']);
  });

  it("comes before a case's own given, which is added to it", () => {
    const c = byId.get('t.adds')!;
    expect(c.given.map(brief)).toEqual(['bucket b', 's3 PutObject', 's3 PutObject']);
    expect(c.given.map((s) => s.kind === 's3' && (s.input as { Key: string }).Key)).toEqual([
      false,
      'k.txt',
      'other.txt',
    ]);
  });

  it('is left out by fileGiven: false, keeping the case its own given only', () => {
    expect(byId.get('t.opts-out')!.given.map(brief)).toEqual(['bucket c']);
    expect(byId.get('t.opts-out-entirely')!.given).toEqual([]);
  });

  it("gives its steps their place in the file's given as origin, in every case", () => {
    for (const id of ['t.plain', 't.adds']) {
      expect(
        byId
          .get(id)!
          .given.slice(0, 2)
          .map((s) => line(s.origin)),
      ).toEqual([3, 4]);
    }
    expect(line(byId.get('t.adds')!.given[2].origin)).toBe(14);
  });

  it('gives each case steps of its own, not shared objects', () => {
    expect(byId.get('t.plain')!.given[0]).not.toBe(byId.get('t.adds')!.given[0]);
  });

  it('does not exist in a file of one case, where `given` is the case’s own', () => {
    const { cases: one } = load('id: t.one\ntitle: One case\ngiven:\n  - bucket: b\nsteps:\n  - bucket: c\n');
    expect(one[0].given.map(brief)).toEqual(['bucket b']);
  });
});

describe('what a case may say about the file’s given', () => {
  it('given: [] beside a file given is an error at the given: it would add nothing, yet reads as none', () => {
    const { message, file } = loadError(
      'given:\n  - bucket: b\ncases:\n  - id: t.a\n    title: A\n    given: []\n    steps:\n      - bucket: c\n',
    );
    expect(message).toBe(
      `${file}:6:12: an empty given adds nothing to the file's; leave it out, or write fileGiven: false for a case without the file's given`,
    );
  });

  it('given: [] is allowed where the file has no given', () => {
    const { cases } = load(
      'cases:\n  - id: t.a\n    title: A\n    given: []\n    steps:\n      - bucket: c\n',
    );
    expect(cases[0].given).toEqual([]);
  });

  it('fileGiven in a file without a given is an error at the key', () => {
    const { message, file } = loadError(
      'cases:\n  - id: t.a\n    title: A\n    fileGiven: false\n    steps:\n      - bucket: c\n',
    );
    expect(message).toBe(`${file}:4:5: this file has no given for fileGiven to leave out; remove fileGiven`);
  });

  it('fileGiven in a file of one case is an error at the key', () => {
    const { message, file } = loadError('id: t.a\ntitle: A\nfileGiven: false\nsteps:\n  - bucket: c\n');
    expect(message).toBe(
      `${file}:3:1: fileGiven belongs to a case of a \`cases:\` file with a given; remove it`,
    );
  });

  it('any other key beside cases is still refused where it is written', () => {
    const { message, file } = loadError(
      'given:\n  - bucket: b\ntags: [x]\ncases:\n  - id: t.a\n    title: A\n    steps:\n      - bucket: c\n',
    );
    expect(message).toBe(
      `${file}:3:1: unknown key 'tags' beside 'cases'; move it into a case (only given is shared)`,
    );
  });
});

describe("errors inside a file's given point at their line", () => {
  it('an unknown key of a step', () => {
    const { message, file } = loadError(
      'given:\n  - bucket: b\n  - api: { method: GET, path: /x, bogus: 1 }\ncases:\n  - id: t.a\n    title: A\n    steps:\n      - bucket: c\n',
    );
    expect(message).toBe(`${file}:3:35: /given/1/api: unknown key 'bogus'; see schemas/case.schema.json`);
  });

  it('a step of no kind', () => {
    const { message, file } = loadError(
      'given:\n  - bucket: b\n  - title: nothing to send\ncases:\n  - id: t.a\n    title: A\n    steps:\n      - bucket: c\n',
    );
    expect(message).toBe(
      `${file}:3:5: a step needs exactly one of api, s3, http, wire, binding, bucket, or be {use: NAME}; see docs/case-format.md`,
    );
  });

  it('a wrong value', () => {
    const { message, file } = loadError(
      'given:\n  - bucket: b\n  - http:\n      method: FETCH\n      path: /x\ncases:\n  - id: t.a\n    title: A\n    steps:\n      - bucket: c\n',
    );
    expect(message).toMatch(new RegExp(`^${file}:4:15: /given/1/http/method: must be equal to one of`));
  });

  it("is reported even when every case opts out of the file's given", () => {
    const { message, file } = loadError(
      'given:\n  - use: zonne\ncases:\n  - id: t.a\n    title: A\n    fileGiven: false\n    steps:\n      - bucket: c\n',
    );
    expect(message).toBe(`${file}:2:10: unknown shared prerequisite 'zonne' (did you mean 'zone'?)`);
  });
});

describe('use: NAME', () => {
  it('stands for the steps of NAME in its place, each with the use as origin', () => {
    const { cases } = load(
      'cases:\n  - id: t.a\n    title: A\n    given:\n      - bucket: b\n      - use: two-buckets\n      - use: zone\n    steps:\n      - bucket: c\n',
    );
    expect(cases[0].given.map(brief)).toEqual(['bucket b', 'bucket one', 'bucket two', 'api zone']);
    expect(cases[0].given.map((s) => line(s.origin))).toEqual([5, 6, 6, 7]);
    // Every origin is in the case's own file, where reports read the source around it.
    expect(cases[0].given.every((s) => s.origin.startsWith(`${cases[0].file}:`))).toBe(true);
  });

  it("works in a file's given too", () => {
    const { cases } = load(
      'given:\n  - use: zone\ncases:\n  - id: t.a\n    title: A\n    given:\n      - bucket: b\n    steps:\n      - bucket: c\n',
    );
    expect(cases[0].given.map(brief)).toEqual(['api zone', 'bucket b']);
    expect(line(cases[0].given[0].origin)).toBe(2);
  });

  it('an unknown name is an error at the name, with the nearest known name', () => {
    const { message, file } = loadError(
      'cases:\n  - id: t.a\n    title: A\n    given:\n      - bucket: b\n      - use: two-bucket\n    steps:\n      - bucket: c\n',
    );
    expect(message).toBe(
      `${file}:6:14: unknown shared prerequisite 'two-bucket' (did you mean 'two-buckets'?)`,
    );
  });

  it('a name near none of them is an error listing them', () => {
    const { message, file, root } = loadError(
      'cases:\n  - id: t.a\n    title: A\n    given:\n      - use: certificate-pack\n    steps:\n      - bucket: c\n',
    );
    expect(message).toBe(
      `${file}:5:14: unknown shared prerequisite 'certificate-pack'; ${path.join(root, 'given.yaml')} names two-buckets, zone`,
    );
  });

  it('a use with anything beside it is an error at that key', () => {
    const { message, file } = loadError(
      'cases:\n  - id: t.a\n    title: A\n    given:\n      - use: zone\n        bucket: b\n    steps:\n      - bucket: c\n',
    );
    expect(message).toBe(
      `${file}:6:9: a {use: NAME} entry holds only use, not 'bucket'; write that step as an entry of its own`,
    );
  });

  it('without a given.yaml, a use is an error at the name', () => {
    const { message, file, root } = loadError(
      'cases:\n  - id: t.a\n    title: A\n    given:\n      - use: zone\n    steps:\n      - bucket: c\n',
      null,
    );
    expect(message).toBe(
      `${file}:5:14: no ${path.join(root, 'given.yaml')} to look 'zone' up in; shared prerequisites are named there`,
    );
  });

  it('a step of given.yaml with checks is an error in given.yaml', () => {
    const { message, root } = loadError(
      'cases:\n  - id: t.a\n    title: A\n    given:\n      - use: checked\n    steps:\n      - bucket: c\n',
      'checked:\n  - bucket: b\n  - api: { method: GET, path: /x }\n    expect:\n      - clauses: [a.b]\n        status: 200\n',
    );
    expect(message).toBe(
      `${path.join(root, 'given.yaml')}:4:5: a shared prerequisite holds no checks; check its answer in a step of a case`,
    );
  });

  it('a mistake in given.yaml is an error at its line there', () => {
    const { message, root } = loadError(
      'cases:\n  - id: t.a\n    title: A\n    given:\n      - use: broken\n    steps:\n      - bucket: c\n',
      'broken:\n  - bucket: b\n  - api: { method: GET, path: /x, bogus: 1 }\n',
    );
    expect(message).toBe(
      `${path.join(root, 'given.yaml')}:3:35: /broken/1/api: unknown key 'bogus'; see schemas/given.schema.json`,
    );
  });
});

describe('the suites', () => {
  const named = Object.keys(parse(readFileSync(path.join(SUITES_DIR, 'given.yaml'), 'utf8')));
  const caseText = readdirSync(SUITES_DIR, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.case.yaml'))
    .map((f) => readFileSync(path.join(SUITES_DIR, f), 'utf8'))
    .join('\n');

  it('use every name of suites/given.yaml', () => {
    expect(named.filter((name) => !new RegExp(`- use: ${name}(\\s|$)`, 'm').test(caseText))).toEqual([]);
  });
});

describe('the generated format documents it', () => {
  const doc = readFileSync(DOC_FILE, 'utf8');
  const schema = generatedSchema() as { definitions: Record<string, { properties?: object }> };

  it('the schema has the file form (given beside cases), fileGiven and use', () => {
    expect(Object.keys(schema.definitions.file.properties ?? {})).toEqual(['given', 'cases']);
    expect(Object.keys(schema.definitions.case.properties ?? {})).toContain('fileGiven');
    expect(Object.keys(schema.definitions.use.properties ?? {})).toEqual(['use']);
  });

  it("docs/case-format.md's reference tables list them, as generated", () => {
    expect(generatedDoc(doc)).toBe(doc);
    const reference = doc.slice(doc.indexOf('<!-- BEGIN generated'));
    expect(reference).toContain('#### file');
    expect(reference).toContain('#### use');
    expect(reference).toMatch(/\| `fileGiven` +\| boolean/);
    expect(reference).toMatch(/\| `given` +\| \(\[use\]\(#use\) or \[step\]\(#step\)\)\[\]/);
  });

  it('docs/case-format.md says how they combine', () => {
    expect(doc).toContain('### Shared prerequisites');
    expect(doc).toContain('fileGiven: false');
    expect(doc).toContain('suites/given.yaml');
  });
});
