import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A throwaway suites folder: `cases` cases whose step chains have the given lengths, each step a
 * GET with a status and a JSON check, as the real suites do. Returns the folder.
 */
export function syntheticSuites(chains: number[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-bench-'));
  mkdirSync(path.join(dir, 'bench'));
  writeFileSync(
    path.join(dir, 'bench', 'clauses.yaml'),
    'area: bench\nclauses:\n  - id: bench.echo.ok\n    section: bench\n    title: the server answers\n',
  );
  writeFileSync(
    path.join(dir, 'bench', 'sections.yaml'),
    'sections:\n  - id: bench\n    heading: "Bench"\n    title: "Bench"\n',
  );
  const cases = chains.map((n, i) => ({
    id: `bench.chain.c${i}`,
    title: `chain of ${n}`,
    readOnly: true,
    steps: Array.from({ length: n }, (_, k) => ({
      api: { method: 'GET', path: `/echo/${i}/${k}` },
      expect: [{ clauses: ['bench.echo.ok'], status: 200, json: { '/success': true } }],
    })),
  }));
  writeFileSync(path.join(dir, 'bench', 'chains.case.yaml'), JSON.stringify({ cases }));
  return dir;
}
