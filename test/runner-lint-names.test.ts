import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSuites } from '../runner/load/suite.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-lint-names-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function suite(name: string, caseYaml: string): string {
  const root = path.join(dir, name);
  mkdirSync(path.join(root, 'x'), { recursive: true });
  writeFileSync(
    path.join(root, 'x', 'clauses.yaml'),
    'area: x\nclauses:\n  - id: x.a.b\n    section: s\n    title: t\n',
  );
  writeFileSync(path.join(root, 'x', 'sections.yaml'), 'sections:\n  - {id: s, heading: H, title: H / s}\n');
  writeFileSync(path.join(root, 'x', 'a.case.yaml'), caseYaml);
  return root;
}

describe('lint: a capture or bucket may not shadow a built-in placeholder', () => {
  for (const name of ['target', 'run', 'case', 'asOf', 'profile', 'i']) {
    it(`refuses a capture named ${name}`, async () => {
      const root = suite(
        `capture-${name}`,
        `id: x.c.d\ntitle: t\nsteps:\n  - api: {method: GET, path: /x}\n    capture: {${name}: /result}\n    expect: [{clauses: [x.a.b], status: 200}]\n`,
      );
      const loaded = await loadSuites(['x'], ['x'], root);
      expect(loaded.problems.map((p) => `${path.basename(p.where)}: ${p.what}`)).toEqual([
        `a.case.yaml:4:5: '${name}' is a built-in placeholder; give the capture or bucket another name`,
      ]);
    });
  }

  it('refuses a bucket named target, and accepts other names', async () => {
    const bad = await loadSuites(
      ['x'],
      ['x'],
      suite(
        'bucket-target',
        'id: x.c.d\ntitle: t\nsteps:\n  - bucket: target\n    expect: [{clauses: [x.a.b], status: 200}]\n',
      ),
    );
    expect(bad.problems).toHaveLength(1);
    const good = await loadSuites(
      ['x'],
      ['x'],
      suite(
        'bucket-dest',
        'id: x.c.d\ntitle: t\nsteps:\n  - bucket: dest\n    expect: [{clauses: [x.a.b], status: 200}]\n',
      ),
    );
    expect(good.problems).toEqual([]);
  });
});
