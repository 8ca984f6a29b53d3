import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { SUITES_DIR } from '../runner/util/paths.ts';

/*
 * Suites meet edgecheck through one public entry, edgecheck/kit. Anything else a suite file imports
 * must be a Node built-in or a file of the suites folder itself, so that a copy of the folder kept
 * anywhere (edgecheck run --suites-dir) loads the same way.
 */

/** `file: specifier` for every import of a .ts file under `root` that leaves the folder. */
function importProblems(root: string): string[] {
  const problems: string[] = [];
  for (const rel of readdirSync(root, { recursive: true, encoding: 'utf8' }).sort()) {
    if (!rel.endsWith('.ts')) continue;
    const file = path.join(root, rel);
    // Every form counts: import type, export ... from, side-effect imports and import().
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName: spec } of importedFiles) {
      if (spec === 'edgecheck/kit' || spec.startsWith('node:')) continue;
      const inside =
        spec.startsWith('.') && !path.relative(root, path.resolve(path.dirname(file), spec)).startsWith('..');
      if (!inside) problems.push(`${rel}: ${spec}`);
    }
  }
  return problems;
}

describe('suite files import edgecheck only through edgecheck/kit', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'edgecheck-suite-imports-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('finds no import of runner internals, dependencies or files outside suites/', () => {
    expect(importProblems(SUITES_DIR)).toEqual([]);
  });

  it('still sees the suites and their properties (the check above is not vacuous)', () => {
    const files = readdirSync(SUITES_DIR, { recursive: true, encoding: 'utf8' });
    expect(files.filter((f) => f.endsWith('.property.ts')).length).toBeGreaterThanOrEqual(8);
  });

  it('reports a relative import of the runner, a dependency, and a path out of the folder', () => {
    const root = path.join(scratch, 'suites');
    mkdirSync(path.join(root, 'x', 'properties', 'support'), { recursive: true });
    writeFileSync(
      path.join(root, 'x', 'properties', 'bad.property.ts'),
      [
        "import type { PropertyDef } from '../../../runner/model/property.ts';",
        "import fc from 'fast-check';",
        "import { fc as kitFc } from 'edgecheck/kit';",
        "import { createHash } from 'node:crypto';",
        "import { helper } from './support/helper.ts';",
        "export { other } from '../../../elsewhere.ts';",
        "const late = await import('undici');",
      ].join('\n'),
    );
    writeFileSync(path.join(root, 'x', 'properties', 'support', 'helper.ts'), 'export const helper = 1;\n');
    expect(importProblems(root)).toEqual([
      `${path.join('x', 'properties', 'bad.property.ts')}: ../../../runner/model/property.ts`,
      `${path.join('x', 'properties', 'bad.property.ts')}: fast-check`,
      `${path.join('x', 'properties', 'bad.property.ts')}: ../../../elsewhere.ts`,
      `${path.join('x', 'properties', 'bad.property.ts')}: undici`,
    ]);
  });
});
