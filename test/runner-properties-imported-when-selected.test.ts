import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAreas, loadSuites } from '../runner/api.ts';
import { lazyProperties } from '../runner/load/properties.ts';
import { fixtureDir } from './helpers/engine-target.ts';

// The compiled suites keep what each property declares (runner/load/suite.ts): a run imports the
// module of a property it selects, and no other, whose generators would cost every run.
const IMPORTED = Symbol.for('edgecheck.test.imported-property-modules');
const imported = () => ((globalThis as Record<symbol, string[]>)[IMPORTED] ??= []);

/** A property module that notes its import; its one property cites mgmt.sem.prop-pass. */
function markerModule(name: string): string {
  return `import type { PropertyDef } from 'edgecheck/kit';
const noted = Symbol.for('edgecheck.test.imported-property-modules');
((globalThis as any)[noted] ??= []).push(${JSON.stringify(name)});
const properties: PropertyDef[] = [
  {
    id: 'sem.prop.${name}',
    title: 'A property of ${name}',
    clauses: ['mgmt.sem.prop-pass'],
    readOnly: true,
    observe: { selects: 'every exchange', observer: () => () => undefined },
    async run() {},
  },
];
export default properties;
`;
}

describe('property modules are imported when their property is', () => {
  const saved = process.env.EDGECHECK_CACHE_DIR;
  let work: string;
  let suites: string;

  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'edgecheck-lazy-properties-'));
    suites = path.join(work, 'suites');
    cpSync(fixtureDir('semantics'), suites, { recursive: true });
    writeFileSync(path.join(suites, 'mgmt', 'properties', 'marker.property.ts'), markerModule('marker'));
    process.env.EDGECHECK_CACHE_DIR = path.join(work, 'cache');
  });
  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
    if (saved === undefined) delete process.env.EDGECHECK_CACHE_DIR;
    else process.env.EDGECHECK_CACHE_DIR = saved;
  });

  it('keeps what each property declares, no function, and loads the property itself from its module', async () => {
    const areas = listAreas(suites);
    const first = await loadSuites(areas, areas, suites);
    expect(first.problems.filter((p) => p.level === 'error')).toEqual([]);
    const kept = await loadSuites(areas, areas, suites, { lazyProperties: true });
    expect(kept.properties.map((p) => p.def.id)).toEqual(first.properties.map((p) => p.def.id));
    const marker = kept.properties.find((p) => p.def.id === 'sem.prop.marker')!;
    expect(marker.def).toEqual({
      id: 'sem.prop.marker',
      title: 'A property of marker',
      clauses: ['mgmt.sem.prop-pass'],
      readOnly: true,
      // That it has a run, which a run's selection reads: a property that only observes has none.
      run: true,
      observe: { selects: 'every exchange' },
    });
    const def = await marker.load();
    expect(typeof def.run).toBe('function');
    expect(typeof def.observe?.observer).toBe('function');
    // A load that imports every module gives each property whole, from the kept form as from none.
    const whole = await loadSuites(areas, areas, suites);
    expect(whole.properties.every((p) => typeof p.def.run === 'function')).toBe(true);
  });

  it('imports a module on the first load of one of its properties, and no other module', async () => {
    const dir = path.join(work, 'fresh');
    cpSync(path.join(suites, 'mgmt'), dir, { recursive: true });
    const other = path.join(dir, 'properties', 'other.property.ts');
    const chosen = path.join(dir, 'properties', 'chosen.property.ts');
    writeFileSync(other, markerModule('other'));
    writeFileSync(chosen, markerModule('chosen'));
    const meta = (name: string) => ({ id: `sem.prop.${name}`, title: name, clauses: ['mgmt.sem.prop-pass'] });
    const [, lazyChosen] = lazyProperties([
      { module: other, index: 0, area: 'mgmt', def: meta('other') },
      { module: chosen, index: 0, area: 'mgmt', def: meta('chosen') },
    ]);
    expect(imported()).not.toContain('chosen');
    expect((await lazyChosen.load()).id).toBe('sem.prop.chosen');
    expect(imported()).toContain('chosen');
    expect(imported()).not.toContain('other');
  });

  it('says so when a module no longer holds the property where it was kept', async () => {
    const module = path.join(work, 'fresh', 'properties', 'chosen.property.ts');
    const [moved] = lazyProperties([
      { module, index: 0, area: 'mgmt', def: { id: 'sem.prop.gone', title: 'gone', clauses: [] } },
    ]);
    await expect(moved.load()).rejects.toThrow(/property 'sem\.prop\.gone' is no longer at \[0\]/);
  });
});
