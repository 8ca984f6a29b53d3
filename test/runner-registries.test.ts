import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_HELP } from '../cli/run.ts';
import { REFERENCE_FEATURES } from '../reference/server.ts';
import { readConfigFile } from '../runner/config/load-config.ts';
import { loadSuites } from '../runner/load/suite.ts';
import { FEATURE_NAMES, FEATURES } from '../runner/model/features.ts';
import { editDistance, nearestName } from '../runner/util/nearest.ts';
import { PROJECT_ROOT, runMain } from './helpers/cli.ts';

/**
 * Features (runner/model/features.ts) are a closed list: a name outside it is an error where it
 * is written, with the nearest known name.
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

  it('the config and clauses schemas list exactly its names, and run --help names them all', () => {
    const schema = (name: string) =>
      JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'schemas', name), 'utf8')) as Record<string, any>;
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

  it("a misspelled feature of a case is refused at the case's line", async () => {
    const root = plant(
      'case-feature',
      clauses('    section: behaviour.1'),
      SECTIONS,
      'id: x.c.d\ntitle: t\nfeatures: [public-bucket]\nsteps:\n  - api: {method: GET, path: /x}\n    expect: [{clauses: [x.a.b], status: 200}]\n',
    );
    expect(await problems(root)).toEqual([
      "x/a.case.yaml:1:5: unknown feature 'public-bucket' (did you mean 'public-buckets'?)",
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
