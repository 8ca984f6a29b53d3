import { readFileSync } from 'node:fs';
import { isMap, isNode, isScalar, LineCounter, parseDocument } from 'yaml';
import { displayPath } from '../paths.ts';
import { InputError } from '../util/errors.ts';

/** A parsed YAML file that can say where any of its values stands (file:line:column). */
export interface YamlSource {
  file: string;
  value: unknown;
  where(path: readonly (string | number)[]): string;
  /** Where the last key of `path` is written (for unknown keys); where(path) if it is not a key. */
  whereKey(path: readonly (string | number)[]): string;
}

export function readYaml(file: string): YamlSource {
  const shown = displayPath(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(shown, `cannot read: ${(err as Error).message}`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const pos = lines.linePos(first.pos[0]);
    const what = first.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw new InputError(`${shown}:${pos.line}:${pos.col}`, `YAML syntax: ${what}`);
  }
  const at = (offset: number) => {
    const pos = lines.linePos(offset);
    return `${shown}:${pos.line}:${pos.col}`;
  };
  return {
    file,
    value: doc.toJS({ maxAliasCount: 100 }),
    where(path) {
      // Walk up until a node exists (an error may name a key that is missing).
      for (let n = path.length; n >= 0; n--) {
        const node = doc.getIn(path.slice(0, n), true);
        if (isNode(node) && node.range) return at(node.range[0]);
        if (n === 0 && doc.contents?.range) return at(doc.contents.range[0]);
      }
      return `${shown}:1:1`;
    },
    whereKey(path) {
      const parent = doc.getIn(path.slice(0, -1), true);
      if (isMap(parent)) {
        const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === path[path.length - 1]);
        if (pair && isNode(pair.key) && pair.key.range) return at(pair.key.range[0]);
      }
      return this.where(path);
    },
  };
}

/** ajv's instancePath (`/steps/0/api`) as a YAML path. */
export function pointerToPath(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}
