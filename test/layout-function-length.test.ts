import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * No function of the product is over 100 lines, from its first line to its last, nested functions
 * included: a longer one does several things that each want a name. Split it where its parts have
 * names of their own (a step of the algorithm, one concept each), not at line 100.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['runner', 'cli', 'reporters', 'reference'];
const MAX_LINES = 100;

interface Measured {
  file: string;
  line: number;
  name: string;
  lines: number;
}

/** How a function is known: its own name, or the variable, property or class member it is. */
function nameOf(node: ts.FunctionLikeDeclaration, sf: ts.SourceFile): string {
  if (node.name) return node.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(sf);
  return '(anonymous)';
}

/** Every function with a body in a source file, with its length in lines. */
function measure(file: string, text: string): Measured[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Measured[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = sf.getLineAndCharacterOfPosition(fn.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(fn.end).line;
      found.push({ file, line: first + 1, name: nameOf(fn, sf), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function sources(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((rel) => /\.m?ts$/.test(rel) && !rel.endsWith('.d.ts'))
    .map((rel) => path.join(folder, rel))
    .sort();
}

describe('function length', () => {
  it('measures a function from its first line to its last, whatever its form', () => {
    const text = [
      'function a() {',
      '  const b = () => {',
      '    return 1;',
      '  };',
      '  return b();',
      '}',
      'class C {',
      '  m(): void {}',
      '}',
    ].join('\n');
    expect(measure('x.ts', text).map((m) => `${m.name} ${m.lines}`)).toEqual(['a 6', 'b 3', 'm 1']);
  });

  it(`finds no function over ${MAX_LINES} lines in ${FOLDERS.join('/, ')}/`, () => {
    const long = FOLDERS.flatMap(sources)
      .flatMap((file) => measure(file, readFileSync(path.join(ROOT, file), 'utf8')))
      .filter((m) => m.lines > MAX_LINES)
      .map((m) => `${m.file}:${m.line} ${m.name}: ${m.lines} lines`);
    expect(long).toEqual([]);
  });
});
