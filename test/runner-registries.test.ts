import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readConfigFile } from '../cli/config/load-config.ts';
import { RUN_HELP } from '../cli/run.ts';
import { REFERENCE_FEATURES } from '../reference/server.ts';
import { listAreas, loadClauses } from '../runner/load/clauses.ts';
import { loadSections } from '../runner/load/sections.ts';
import { loadSuites } from '../runner/load/suite.ts';
import { FEATURE_NAMES, FEATURES } from '../runner/model/features.ts';
import { schemas } from '../runner/schema/registry.ts';
import { editDistance, nearestName } from '../runner/util/nearest.ts';
import { PROJECT_ROOT, runMain } from './helpers/cli.ts';
import { recordNotRun } from './helpers/not-run.ts';

/**
 * Features (runner/model/features.ts) and SPEC sections (suites/<area>/sections.yaml) are closed
 * lists: a name outside them is an error where it is written, with the nearest known name.
 */

const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-registries-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECTIONS = [
  'sections:',
  '  - id: behaviour.1',
  '    heading: "Object storage S3-compatible interface: behaviours"',
  '    title: "Object storage S3-compatible interface: behaviours / 1"',
  '  - id: errors.2',
  '    heading: Errors',
  '    title: Errors / 2',
  '',
].join('\n');

/** A suites folder with one area, x, whose clauses.yaml (and sections.yaml, unless null) are given. */
function plant(name: string, clauses: string, sections: string | null = SECTIONS, caseYaml?: string): string {
  const root = path.join(dir, name);
  mkdirSync(path.join(root, 'x'), { recursive: true });
  writeFileSync(path.join(root, 'x', 'clauses.yaml'), clauses);
  if (sections !== null) writeFileSync(path.join(root, 'x', 'sections.yaml'), sections);
  if (caseYaml) writeFileSync(path.join(root, 'x', 'a.case.yaml'), caseYaml);
  return root;
}

const clauses = (...lines: string[]) =>
  ['area: x', 'clauses:', '  - id: x.a.b', '    title: t', ...lines, ''].join('\n');

/** The problems of loading the planted suites, as `file:line:col: what` with the folder left out. */
async function problems(root: string): Promise<string[]> {
  const loaded = await loadSuites(['x'], ['x'], root);
  return loaded.problems.map((p) => `${path.relative(root, p.where)}: ${p.what}`);
}

describe('nearest names', () => {
  it('counts insertions, deletions, substitutions and swaps of neighbours as one edit each', () => {
    expect(editDistance('virtual-hosed', 'virtual-hosted')).toBe(1);
    expect(editDistance('legacy-auht', 'legacy-auth')).toBe(1);
    expect(editDistance('migratoin', 'migration')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('behaviour.13', 'behaviour.13')).toBe(0);
  });

  it('suggests only a name close enough to be the one meant', () => {
    expect(nearestName('Public-Buckets', FEATURE_NAMES)).toBe('public-buckets');
    expect(nearestName('rawwire', FEATURE_NAMES)).toBe('raw-wire');
    expect(nearestName('websockets', FEATURE_NAMES)).toBeUndefined();
  });
});

describe('features: runner/model/features.ts is the one list', () => {
  it('names each feature once, with a one-line description of what the target must offer', () => {
    expect(new Set(FEATURE_NAMES).size).toBe(FEATURES.length);
    for (const f of FEATURES) {
      expect(f.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(f.description).toMatch(/^[a-z].{20,}[^.]$/);
      expect(f.description).not.toContain('\n');
    }
  });

  it('every feature the reference offers is in it', () => {
    for (const f of REFERENCE_FEATURES) expect(FEATURE_NAMES, f).toContain(f);
  });

  it('the case, config and clauses schemas list exactly its names, and run --help names them all', () => {
    const schema = (name: string) =>
      JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'schemas', name), 'utf8')) as Record<string, any>;
    expect(schema('case.schema.json').definitions.case.properties.features.items.enum).toEqual(FEATURE_NAMES);
    expect(schema('config.schema.json').properties.features.items.enum).toEqual(FEATURE_NAMES);
    expect(schema('clauses.schema.json').properties.clauses.items.properties.feature.enum).toEqual(
      FEATURE_NAMES,
    );
    const help = RUN_HELP.replace(/\n\s+/g, ' ');
    expect(help).toContain(`(repeatable): ${FEATURE_NAMES.join(', ')}`);
  });

  it('a misspelled feature in a clauses file is refused at its line, with the nearest name', async () => {
    const root = plant('clause-feature', clauses('    section: behaviour.1', '    feature: virtual-hosed'));
    expect(await problems(root)).toEqual([
      "x/clauses.yaml:6:14: unknown feature 'virtual-hosed' (did you mean 'virtual-hosted'?)",
    ]);
  });

  it('a feature far from every name is refused with the list of names', async () => {
    const root = plant('clause-feature-far', clauses('    section: behaviour.1', '    feature: websockets'));
    expect(await problems(root)).toEqual([
      `x/clauses.yaml:6:14: unknown feature 'websockets'; known: ${FEATURE_NAMES.join(', ')}`,
    ]);
  });

  it('a misspelled feature of a case is refused at its line, with the nearest name', async () => {
    const root = plant(
      'case-feature',
      clauses('    section: behaviour.1'),
      SECTIONS,
      'id: x.c.d\ntitle: t\nfeatures: [public-bucket]\nsteps:\n  - api: {method: GET, path: /x}\n    expect: [{clauses: [x.a.b], status: 200}]\n',
    );
    expect(await problems(root)).toEqual([
      "x/a.case.yaml:3:12: unknown feature 'public-bucket' (did you mean 'public-buckets'?)",
    ]);
  });

  it('a misspelled feature of a config file, or of --feature, is refused with the nearest name', async () => {
    const config = path.join(dir, 'config.yaml');
    writeFileSync(config, 'management:\n  baseUrl: http://127.0.0.1:9\nfeatures: [legacy-auth, migraton]\n');
    expect(() => readConfigFile(config)).toThrow(
      `${config}:3:25: unknown feature 'migraton' (did you mean 'migration'?)`,
    );
    const r = await runMain(['run', '--management-url', 'http://127.0.0.1:9', '--feature', 'raw_wire']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "edgecheck: --feature raw_wire: unknown feature 'raw_wire' (did you mean 'raw-wire'?)\n",
    );
  });
});

describe('sections: suites/<area>/sections.yaml is the closed list of what clauses name', () => {
  it('a clause shows the title of the section it names, or the titles of several joined by ;', () => {
    const root = plant(
      'titles',
      [
        'area: x',
        'clauses:',
        '  - {id: x.a.one, title: t, section: behaviour.1}',
        '  - {id: x.a.two, title: t, section: [errors.2, behaviour.1]}',
        '',
      ].join('\n'),
    );
    const loaded = loadClauses(['x'], root);
    expect(loaded.get('x.a.one')?.section).toBe('Object storage S3-compatible interface: behaviours / 1');
    expect(loaded.get('x.a.two')?.section).toBe(
      'Errors / 2; Object storage S3-compatible interface: behaviours / 1',
    );
  });

  it('a misspelled section is refused at its line, with the nearest id', async () => {
    expect(await problems(plant('section-typo', clauses('    section: behavior.1')))).toEqual([
      "x/clauses.yaml:5:14: unknown section 'behavior.1' (did you mean 'behaviour.1'?)",
    ]);
    expect(await problems(plant('section-list', clauses('    section: [behaviour.1, erors.2]')))).toEqual([
      "x/clauses.yaml:5:28: unknown section 'erors.2' (did you mean 'errors.2'?)",
    ]);
  });

  it('a section far from every id is refused with where the ids are listed', async () => {
    const root = plant('section-far', clauses('    section: limits'));
    expect(await problems(root)).toEqual([
      `x/clauses.yaml:5:14: unknown section 'limits'; the sections a clause may name are listed in ${path.join(root, 'x', 'sections.yaml')}`,
    ]);
  });

  it('a title written where the id belongs is refused with the id', async () => {
    expect(await problems(plant('section-title', clauses('    section: "Errors / 2"')))).toEqual([
      "x/clauses.yaml:5:14: section 'Errors / 2' is a title; name the section by its id, 'errors.2'",
    ]);
  });

  it('an area without sections.yaml, or with an id listed twice, is refused', async () => {
    const missing = plant('no-sections', clauses('    section: behaviour.1'), null);
    expect(await problems(missing)).toEqual([
      'x/sections.yaml: not found: list there the SPEC sections the clauses of x name (see docs/case-format.md)',
    ]);
    const twice = plant(
      'twice',
      clauses('    section: behaviour.1'),
      `${SECTIONS}  - {id: errors.2, heading: Errors, title: again}\n`,
    );
    expect(await problems(twice)).toEqual([
      `x/sections.yaml:8:10: duplicate section id 'errors.2' (first at ${path.join(twice, 'x', 'sections.yaml')}:5:9); give it a new id`,
    ]);
  });

  it('the sections example of docs/case-format.md is valid', () => {
    const doc = readFileSync(path.join(PROJECT_ROOT, 'docs', 'case-format.md'), 'utf8');
    const blocks = [...doc.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)]
      .map((m) => m[1])
      .filter((b) => b.includes('schemas/sections.schema.json'));
    expect(blocks.length).toBe(1);
    expect(schemas().check('sections.schema.json', parse(blocks[0]))).toBeUndefined();
  });

  it('edgecheck lint prints the problem as file:line:column', async () => {
    const root = plant('lint', clauses('    section: behaviour.2'));
    const r = await runMain(['lint', '--suites-dir', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `${path.join(root, 'x', 'clauses.yaml')}:5:14: error: unknown section 'behaviour.2' (did you mean 'behaviour.1'?)\n`,
    );
  });
});

/**
 * The spec is not part of the repository: where it lies beside the clone (CI has it at
 * ../shared/spec/SPEC.md) or EDGECHECK_SPEC names it, every section is held to its heading.
 */
const SPEC_FILE = process.env.EDGECHECK_SPEC || path.join(PROJECT_ROOT, '..', 'shared', 'spec', 'SPEC.md');
const HAVE_SPEC = existsSync(SPEC_FILE);
if (!HAVE_SPEC) {
  recordNotRun({
    what: 'sections held to the SPEC.md headings (test/runner-registries.test.ts)',
    why: `no ${SPEC_FILE}`,
    remedy: 'EDGECHECK_SPEC=path/to/SPEC.md npm test',
  });
}

describe("the project's sections", () => {
  it('every section a clause names exists (the suites load without a problem)', async () => {
    const areas = listAreas();
    const loaded = await loadSuites(areas, areas);
    expect(loaded.problems.filter((p) => p.level === 'error')).toEqual([]);
  });
});

describe.skipIf(!HAVE_SPEC)("the project's sections against SPEC.md", () => {
  const SPEC = HAVE_SPEC ? readFileSync(SPEC_FILE, 'utf8').split('\n') : [];
  const headings = SPEC.flatMap((line, n) => {
    const m = /^(#+) (.*)$/.exec(line);
    return m ? [{ level: m[1].length, text: m[2], line: n }] : [];
  });
  /** The lines under a heading, down to the next heading of the same or a higher level. */
  const body = (h: (typeof headings)[number]) => {
    const next = headings.find((o) => o.line > h.line && o.level <= h.level);
    return SPEC.slice(h.line + 1, next?.line ?? SPEC.length).map((l) => l.replaceAll('`', ''));
  };
  const areas = listAreas();

  for (const area of areas) {
    it(`${area}: each section sits under a SPEC.md heading its title names, in SPEC order`, () => {
      let last = { heading: -1, item: -1 };
      for (const s of loadSections(area).sections.values()) {
        const h = headings.find((o) => o.text === s.heading);
        expect(h, `${s.origin}: heading '${s.heading}' is not a heading of SPEC.md`).toBeDefined();
        // The title is a path of heading names, each maybe with a note in parentheses, then an item.
        const parts = s.title.split(' / ');
        const at = parts.findIndex((p) => h!.text.replaceAll('`', '').startsWith(p.replace(/ \(.*\)$/, '')));
        expect(at, `${s.origin}: title '${s.title}' does not name '${s.heading}'`).toBeGreaterThanOrEqual(0);
        // An item that is numbered or a dated row must be there, in order.
        const item = parts[at + 1] ?? '';
        const numbered = /^(?:rule )?(\d+)$/.exec(item);
        const dated = /^(\d{4}-\d{2}-\d{2}) (.+)$/.exec(item);
        const lines = body(h!);
        const found = numbered
          ? lines.findIndex((l) => l.startsWith(`${numbered[1]}. `))
          : dated
            ? lines.findIndex((l) => l.startsWith(`| ${dated[1]} | ${dated[2]} |`))
            : -2;
        expect(found, `${s.origin}: '${item}' is not under '${s.heading}' in SPEC.md`).not.toBe(-1);
        expect(h!.line, `${s.origin}: out of SPEC order`).toBeGreaterThanOrEqual(last.heading);
        if (h!.line > last.heading) last = { heading: h!.line, item: -1 };
        if (found >= 0) {
          expect(found, `${s.origin}: out of SPEC order`).toBeGreaterThan(last.item);
          last.item = found;
        }
      }
    });
  }
});
