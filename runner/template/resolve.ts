import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../util/errors.ts';
import { FIXTURES_DIR } from '../util/paths.ts';
import { parseSize } from '../util/size.ts';

/** A `{ $generate: { size, seed } }` value after resolution; transports stream it. */
export class GeneratedBody {
  constructor(
    readonly size: number,
    readonly seed: number,
  ) {}
}

/** Bytes [0, size) of the generator's stream for `seed`, as a body transports stream. */
export function generatedBody(seed: number, size: number): GeneratedBody {
  return new GeneratedBody(size, seed);
}

const fixtures = new Map<string, string>();

/** A file of fixtures/ as text (read once per run). */
export function fixtureText(name: string): string {
  let text = fixtures.get(name);
  if (text === undefined) {
    const file = path.resolve(FIXTURES_DIR, name);
    if (!file.startsWith(FIXTURES_DIR + path.sep))
      throw new InputError(`$file ${name}`, 'name a file inside fixtures/');
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new InputError(`$file ${name}`, 'no such file in fixtures/');
    }
    fixtures.set(name, text);
  }
  return text;
}

/** A placeholder with no value: `target.*` ones skip the case, others block it. */
export class MissingValue extends Error {
  constructor(readonly placeholder: string) {
    super(`no value for \${${placeholder}}`);
  }
}

export type Scope = Record<string, unknown>;

const PLACEHOLDER = /\$\{([^}]+)\}/g;
const WHOLE = /^\$\{([^}]+)\}$/;

export function lookup(scope: Scope, name: string): unknown {
  let cur: unknown = scope;
  for (const part of name.trim().split('.')) {
    if (cur === null || typeof cur !== 'object' || !(part in (cur as object)))
      throw new MissingValue(name.trim());
    cur = (cur as Record<string, unknown>)[part];
  }
  if (cur === undefined) throw new MissingValue(name.trim());
  return cur;
}

function resolveString(s: string, scope: Scope): unknown {
  const whole = WHOLE.exec(s);
  if (whole) return lookup(scope, whole[1]);
  return s.replace(PLACEHOLDER, (_, name: string) => {
    const v = lookup(scope, name);
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}

/**
 * Resolves placeholders and value operators ($generate, $repeat, $profile) in a request template.
 * Parts without any come back as the same object (templates are never mutated), so a
 * static step costs a walk, not a copy.
 */
export function resolve(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') return value.includes('${') ? resolveString(value, scope) : value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const r = resolve(value[i], scope);
      if (r !== value[i]) out ??= value.slice();
      if (out) out[i] = r;
    }
    return out ?? value;
  }
  if (value && typeof value === 'object' && !(value instanceof GeneratedBody)) {
    const obj = value as Record<string, unknown>;
    if ('$generate' in obj) {
      const g = resolve(obj.$generate, scope) as { size: number | string; seed?: number };
      return new GeneratedBody(parseSize(g.size, '$generate.size'), Number(g.seed ?? 0));
    }
    if ('$repeat' in obj) {
      const r = obj.$repeat as { count: unknown; item: unknown };
      const count = Number(resolve(r.count, scope));
      return Array.from({ length: count }, (_, i) => resolve(r.item, { ...scope, i }));
    }
    if ('$file' in obj) return fixtureText(String(resolve(obj.$file, scope)));
    if ('$profile' in obj) {
      const p = obj.$profile as Record<string, unknown>;
      return resolve(p[String(scope.profile)], scope);
    }
    let out: Record<string, unknown> | undefined;
    for (const k in obj) {
      const v = obj[k];
      const r = resolve(v, scope);
      if (r !== v) out ??= { ...obj };
      if (out) out[k] = r;
    }
    return out ?? obj;
  }
  return value;
}

/** Every placeholder name in a template, with `$repeat` items marked so `${i}` is allowed there. */
export function placeholdersIn(
  value: unknown,
  inRepeat = false,
  out: { name: string; inRepeat: boolean }[] = [],
) {
  if (typeof value === 'string') {
    for (const m of value.matchAll(PLACEHOLDER)) out.push({ name: m[1].trim(), inRepeat });
  } else if (Array.isArray(value)) {
    for (const v of value) placeholdersIn(v, inRepeat, out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) placeholdersIn(v, inRepeat || k === '$repeat', out);
  }
  return out;
}

/** What a capture was taken from, for messages: `the /ETag of step complete`. */
export function captureOrigin(spec: unknown, step: string): string {
  const s = spec as Record<string, string> | string;
  const what =
    typeof s === 'string'
      ? s
      : (s.json ?? s.output ?? s.xml ?? (s.header !== undefined ? `header ${s.header}` : 'status'));
  return `the ${what} of step ${step}`;
}

/**
 * A check's message where a value it expected came from a capture that came back empty: it names
 * that capture (`expected the /ETag of step complete (empty)`), not the bare `expected ""`.
 * `empty` maps each such capture's name to captureOrigin's words.
 */
export function explainEmptyCaptures(message: string, template: unknown, empty: Map<string, string>): string {
  if (!empty.size) return message;
  const used = [...new Set(placeholdersIn(template).map((p) => p.name.split('.')[0]))].filter((name) =>
    empty.has(name),
  );
  if (!used.length) return message;
  // Only where the message shows what was expected: a "" it found is the target's, not the capture.
  const expectedEmpty = /\bexpected (exactly |not )?""/;
  if (expectedEmpty.test(message))
    return message.replace(expectedEmpty, (_all, how = '') => `expected ${how}${empty.get(used[0])} (empty)`);
  return `${message} (${used.map((name) => `${empty.get(name)} came back empty`).join('; ')})`;
}
