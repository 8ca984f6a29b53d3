import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAreas, loadSuites } from '../runner/api.ts';
import { fixtureDir } from './helpers/engine-target.ts';

// The suites are compiled once and kept between runs (runner/load/compiled-cache.ts): a run finds
// them as the YAML says now, whatever the cache holds, and as a load from the YAML would give them.
describe('the compiled suites are never stale', () => {
  const saved = { dir: process.env.EDGECHECK_CACHE_DIR, off: process.env.EDGECHECK_CACHE };
  let work: string;
  let cache: string;
  let suites: string;

  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'edgecheck-compiled-'));
    cache = path.join(work, 'cache');
    suites = path.join(work, 'suites');
    cpSync(fixtureDir('failure-detail'), suites, { recursive: true });
    process.env.EDGECHECK_CACHE_DIR = cache;
    delete process.env.EDGECHECK_CACHE;
  });
  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
    for (const [k, v] of [
      ['EDGECHECK_CACHE_DIR', saved.dir],
      ['EDGECHECK_CACHE', saved.off],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  const load = () => loadSuites(listAreas(suites), listAreas(suites), suites);
  const entries = () => readdirSync(cache).filter((n) => n.startsWith('suites-') && n.endsWith('.json'));
  const titles = async () => (await load()).cases.map((c) => c.title);

  it('keeps what it compiled, and a second load reads it from there', async () => {
    const first = await load();
    expect(first.problems).toEqual([]);
    expect(entries()).toHaveLength(1);
    const entry = path.join(cache, entries()[0]);
    const at = statSync(entry).mtimeMs;
    const second = await load();
    expect(second.cases).toEqual(first.cases);
    expect([...second.clauses]).toEqual([...first.clauses]);
    // Read, not written again: the one entry is unchanged.
    expect(entries()).toHaveLength(1);
    expect(statSync(entry).mtimeMs).toBe(at);
  });

  it('picks up an edited case file, even one whose size and modification time did not change', async () => {
    const file = path.join(suites, 'mgmt', 'detail.case.yaml');
    const before = await titles();
    const text = readFileSync(file, 'utf8');
    const title = before.find((t) => text.includes(t) && t.length > 3)!;
    // Same length, same mtime: only the content says it changed.
    const edited = text.replace(title, title.split('').reverse().join(''));
    expect(edited).not.toBe(text);
    const { atime, mtime } = statSync(file);
    writeFileSync(file, edited);
    utimesSync(file, atime, mtime);
    const after = await titles();
    expect(after).toContain(title.split('').reverse().join(''));
    expect(after).not.toContain(title);
    expect(entries()).toHaveLength(2);
  });

  it('keeps nothing that JSON would not give back as it was (an infinite number)', async () => {
    const file = path.join(suites, 'mgmt', 'detail.case.yaml');
    const kept = entries().length;
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('/result/status: accepted', '/result/status: .inf'),
    );
    const loaded = await load();
    expect(loaded.problems).toEqual([]);
    const check = loaded.cases
      .flatMap((c) => c.steps)
      .flatMap((s) => s.expect ?? [])
      .find((c) => c.json?.['/result/status'] !== undefined);
    expect(check?.json?.['/result/status']).toBe(Number.POSITIVE_INFINITY);
    expect(entries()).toHaveLength(kept);
    // Read again from the YAML, not from an entry that would say null.
    expect((await load()).cases).toEqual(loaded.cases);
  });

  it('keeps no form whose lint found an error, so a run that skips lint on a kept form still stops on it', async () => {
    const file = path.join(suites, 'mgmt', 'detail.case.yaml');
    const text = readFileSync(file, 'utf8');
    const cited = /clauses: \[([\w.-]+)/.exec(text)?.[1];
    expect(cited).toBeDefined();
    writeFileSync(file, text.replace(cited!, 'no.such.clause'));
    const kept = entries().length;
    const areas = listAreas(suites);
    for (let i = 0; i < 2; i++) {
      const loaded = await loadSuites(areas, areas, suites, { errorsOnly: true });
      expect(loaded.problems.map((p) => p.what).join('\n')).toMatch(/unknown clause 'no\.such\.clause'/);
    }
    expect(entries()).toHaveLength(kept);
    writeFileSync(file, text);
  });

  it('reports a broken case file instead of an old compiled form of it', async () => {
    const file = path.join(suites, 'mgmt', 'detail.case.yaml');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n  - nonsense: [\n`);
    const loaded = await load();
    expect(loaded.problems.length).toBeGreaterThan(0);
    expect(loaded.problems[0].where).toMatch(/detail\.case\.yaml:\d+:\d+/);
  });

  it("gives the project's suites exactly as a load from their YAML does", async () => {
    const areas = listAreas();
    const cached = await loadSuites(areas, areas);
    await loadSuites(areas, areas); // from the cache now, whatever the first did
    const fromCache = await loadSuites(areas, areas);
    process.env.EDGECHECK_CACHE = '0';
    try {
      const fromYaml = await loadSuites(areas, areas);
      expect(fromCache.cases).toEqual(fromYaml.cases);
      expect([...fromCache.clauses]).toEqual([...fromYaml.clauses]);
      expect(fromCache.problems).toEqual(fromYaml.problems);
      expect(cached.cases.length).toBe(fromYaml.cases.length);
    } finally {
      delete process.env.EDGECHECK_CACHE;
    }
  });
});
