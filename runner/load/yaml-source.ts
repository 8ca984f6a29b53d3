import { statSync } from 'node:fs';
import type { Document, LineCounter, Node } from 'yaml';
import { InputError } from '../util/errors.ts';
import { INPUT_LIMITS, type InputKind, MAX_NESTING, readInputFile } from '../util/input-file.ts';
import { yaml } from '../util/packages.ts';
import { displayPath } from '../util/paths.ts';

/** A parsed YAML file that can say where any of its values stands (file:line:column). */
export interface YamlSource {
  file: string;
  value: unknown;
  where(path: readonly (string | number)[]): string;
  /** Where the last key of `path` is written (for unknown keys); where(path) if it is not a key. */
  whereKey(path: readonly (string | number)[]): string;
}

/** Aliases a file may hold; the suites use none. More is refused before any is expanded. */
export const MAX_ALIASES = 100;

/**
 * Reads one YAML document, bounded: the file's size by its kind (INPUT_LIMITS), nesting by
 * MAX_NESTING, aliases by MAX_ALIASES and what they expand to. Each breach is an InputError
 * naming the file (and line where there is one).
 */
export function readYaml(file: string, kind: Exclude<InputKind, 'results' | 'secret'> = 'case'): YamlSource {
  const stamp = stampOf(file, kind);
  const hit = stamp && parsed.get(file);
  if (hit && hit.stamp === stamp) return { ...hit.source, value: structuredClone(hit.source.value) };
  const source = parseYaml(file, kind);
  if (stamp) parsed.set(file, { stamp, source: { ...source, value: structuredClone(source.value) } });
  return source;
}

/**
 * Parsed files by path, while unchanged (same kind, size, modification time and inode): a process
 * that runs the suites many times (several targets, a test proving faults) parses each file once.
 * Callers get their own copy of the value, which they may change.
 */
const parsed = new Map<string, { stamp: string; source: YamlSource }>();

function stampOf(file: string, kind: string): string | undefined {
  try {
    const st = statSync(file);
    return `${kind} ${st.size} ${st.mtimeMs} ${st.ino}`;
  } catch {
    return undefined;
  }
}

function parseYaml(file: string, kind: Exclude<InputKind, 'results' | 'secret'>): YamlSource {
  const shown = displayPath(file);
  let text: string;
  try {
    text = readInputFile(file, kind, shown);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(shown, `cannot read: ${(err as Error).message}`);
  }
  const lines = new (yaml().LineCounter)();
  const at = (offset: number) => {
    const pos = lines.linePos(offset);
    return `${shown}:${pos.line}:${pos.col}`;
  };
  const doc = parseBounded(text, lines, at, INPUT_LIMITS[kind].kind);
  const first = doc.errors[0];
  if (first) {
    const pos = lines.linePos(first.pos[0]);
    const what = first.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw new InputError(`${shown}:${pos.line}:${pos.col}`, `YAML syntax: ${what}`);
  }
  checkKeysAndAliases(doc, lines, at);
  return {
    file,
    value: toValue(doc, at),
    where(path) {
      // Walk up until a node exists (an error may name a key that is missing).
      for (let n = path.length; n >= 0; n--) {
        const node = doc.getIn(path.slice(0, n), true);
        if (yaml().isNode(node) && node.range) return at(node.range[0]);
        if (n === 0 && doc.contents?.range) return at(doc.contents.range[0]);
      }
      return `${shown}:1:1`;
    },
    whereKey(path) {
      const parent = doc.getIn(path.slice(0, -1), true);
      if (yaml().isMap(parent)) {
        const pair = parent.items.find(
          (p) => yaml().isScalar(p.key) && p.key.value === path[path.length - 1],
        );
        if (pair && yaml().isNode(pair.key) && pair.key.range) return at(pair.key.range[0]);
      }
      return this.where(path);
    },
  };
}

/**
 * parseDocument, with the parser's stack watched as it grows: a deeply nested file is refused
 * before the composer, which recurses once per level, gets to it.
 */
function parseBounded(
  text: string,
  lines: LineCounter,
  at: (offset: number) => string,
  kind: string,
): Document {
  const parser = new (yaml().Parser)(lines.addNewLine);
  function* tokens() {
    lines.addNewLine(0);
    for (const lexeme of new (yaml().Lexer)().lex(text)) {
      yield* parser.next(lexeme);
      if (parser.stack.length > MAX_NESTING) {
        throw new InputError(
          at(parser.offset),
          `nested more than ${MAX_NESTING} levels deep, which ${kind} never needs; flatten it or check it is the right file`,
        );
      }
    }
    yield* parser.end();
  }
  // Duplicate keys are found by checkKeysAndAliases: the library's own check is quadratic in a map's size.
  const composer = new (yaml().Composer)({ uniqueKeys: false, prettyErrors: false });
  let doc: Document | undefined;
  for (const next of composer.compose(tokens(), true, text.length)) {
    if (!doc) doc = next;
    else {
      throw new InputError(at(next.range[0]), 'a second YAML document; keep one document per file');
    }
  }
  return doc!;
}

/** Duplicate keys, and aliases: how many, and none inside its own anchor (an endless value). */
function checkKeysAndAliases(doc: Document, lines: LineCounter, at: (offset: number) => string): void {
  let aliases = 0;
  yaml().visit(doc, {
    Map(_, map) {
      const seen = new Map<unknown, number>();
      for (const pair of map.items) {
        if (!yaml().isScalar(pair.key) || !pair.key.range) continue;
        const first = seen.get(pair.key.value);
        if (first !== undefined) {
          throw new InputError(
            at(pair.key.range[0]),
            `this key is already set in the same mapping (line ${lines.linePos(first).line}); keep one`,
          );
        }
        seen.set(pair.key.value, pair.key.range[0]);
      }
    },
    Alias(_, alias, path) {
      const where = at(alias.range?.[0] ?? 0);
      if (++aliases > MAX_ALIASES) {
        throw new InputError(where, `more than ${MAX_ALIASES} YAML aliases; write the values out`);
      }
      const target = alias.resolve(doc);
      if (!target)
        throw new InputError(where, `alias *${alias.source} has no anchor &${alias.source} before it`);
      if (path.includes(target as Node)) {
        throw new InputError(
          where,
          `alias *${alias.source} is inside its own anchor, an endless value; write it out`,
        );
      }
    },
  });
}

/** The document as plain values; aliases that would expand past the library's bound are refused. */
function toValue(doc: Document, at: (offset: number) => string): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (err) {
    if (!(err instanceof ReferenceError)) throw err;
    let first = 0;
    yaml().visit(doc, {
      Alias(_, alias) {
        first = alias.range?.[0] ?? 0;
        return yaml().visit.BREAK;
      },
    });
    throw new InputError(
      at(first),
      `YAML aliases from here on expand to more than ${MAX_ALIASES} copies; write the values out`,
    );
  }
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
