import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A throwaway suites folder with one area, `bench`, holding one clause in one section: what a
 * benchmark's cases cite. Returns the folder; the cases are written by the caller.
 */
export function benchSuitesDir(prefix: string, clauseId: string, title: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  mkdirSync(path.join(dir, 'bench'));
  writeFileSync(
    path.join(dir, 'bench', 'clauses.yaml'),
    `area: bench\nclauses:\n  - id: ${clauseId}\n    section: bench\n    title: ${title}\n`,
  );
  writeFileSync(
    path.join(dir, 'bench', 'sections.yaml'),
    'sections:\n  - id: bench\n    heading: "Bench"\n    title: "Bench"\n',
  );
  return dir;
}

/**
 * A throwaway suites folder: `cases` cases whose step chains have the given lengths, each step a
 * GET with a status and a JSON check, as the real suites do. Returns the folder.
 */
export function syntheticSuites(chains: number[]): string {
  const dir = benchSuitesDir('edgecheck-bench-', 'bench.echo.ok', 'the server answers');
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
