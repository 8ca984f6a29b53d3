import { schemas } from '../schema/registry.ts';
import { ABSENT } from './absent.ts';
import { getPointer } from './pointer.ts';

/** Why a value did not match: where (a pointer or path), what was expected, what was there. */
export interface Mismatch {
  at: string;
  message: string;
  expected: unknown;
  actual: unknown;
}

export const OPERATORS = [
  '$equals',
  '$matches',
  '$present',
  '$exists',
  '$absent',
  '$contains',
  '$oneOf',
  '$length',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$type',
  '$schema',
  '$not',
  '$anyOrder',
  '$each',
  '$sorted',
  '$keys',
] as const;

// Callers that match values also name the marker; it comes from its own module.
export { ABSENT };

const regexes = new Map<string, RegExp>();
function regex(source: string): RegExp {
  let re = regexes.get(source);
  if (!re) {
    re = new RegExp(source);
    regexes.set(source, re);
  }
  return re;
}

export function isOperatorObject(v: unknown): v is Record<string, unknown> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => k.startsWith('$'));
}

function show(v: unknown): string {
  if (v === ABSENT) return 'nothing';
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (Number.isInteger(v)) return 'integer';
  return typeof v;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as any)[k], (b as any)[k]));
}

/**
 * A mismatch at `at`: a plain function, not a closure made on every call, since the proxy matches
 * every exchange it judges and matching nearly always holds.
 */
function mismatch(at: string, expected: unknown, actual: unknown, message: string): Mismatch {
  return { at, message, expected, actual: actual === ABSENT ? undefined : actual };
}

/**
 * Matches `actual` against `expected` with the semantics of docs/case-format.md:
 * literal objects as subsets, literal arrays exactly, scalars strictly, `$` operators as named.
 * `actual` is ABSENT when the thing matched (key, header, element) does not exist.
 */
export function match(expected: unknown, actual: unknown, at = ''): Mismatch | undefined {
  if (isOperatorObject(expected)) {
    for (const [op, arg] of Object.entries(expected)) {
      const m = matchOperator(op, arg, actual, at);
      if (typeof m === 'string') return mismatch(at, { [op]: arg }, actual, m);
      if (m) return m;
    }
    return undefined;
  }
  if (actual === ABSENT) return mismatch(at, expected, actual, `expected ${show(expected)}, found nothing`);
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual))
      return mismatch(at, expected, actual, `expected an array, found ${show(actual)}`);
    if (actual.length !== expected.length) {
      return mismatch(at, expected, actual, `expected ${expected.length} elements, found ${actual.length}`);
    }
    for (let i = 0; i < expected.length; i++) {
      const m = match(expected[i], actual[i], `${at}/${i}`);
      if (m) return m;
    }
    return undefined;
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) {
      return mismatch(at, expected, actual, `expected an object, found ${show(actual)}`);
    }
    for (const [k, v] of Object.entries(expected)) {
      const has = Object.hasOwn(actual, k);
      const m = match(v, has ? (actual as Record<string, unknown>)[k] : ABSENT, `${at}/${k}`);
      if (m) return m;
    }
    return undefined;
  }
  if (expected !== actual)
    return mismatch(at, expected, actual, `expected ${show(expected)}, found ${show(actual)}`);
  return undefined;
}

/**
 * The names an object or XML element holds, matched as an array: an element's attributes (`@name`)
 * and text (`#text`) are not among them, so a document is judged by the elements it holds.
 */
function matchKeys(arg: unknown, keys: string[], at: string): string | undefined {
  const names = keys.filter((k) => !k.startsWith('@') && k !== '#text');
  const m = match(arg, names, `${at}.keys`);
  return m
    ? `expected names ${show(arg)}, found ${show(names)}${m.message ? ` (${m.message})` : ''}`
    : undefined;
}

/** Why `actual` does not meet one operator (a message, or an element's own mismatch), or undefined. */
function matchOperator(op: string, arg: unknown, actual: unknown, at: string): string | Mismatch | undefined {
  const present = actual !== ABSENT && actual !== undefined;
  switch (op) {
    case '$present':
    case '$exists':
      if (arg === false) return present ? `expected nothing, found ${show(actual)}` : undefined;
      return present ? undefined : 'expected a value, found nothing';
    case '$absent':
      if (arg === false) return present ? undefined : 'expected a value, found nothing';
      return present ? `expected nothing, found ${show(actual)}` : undefined;
    case '$equals':
      return present && deepEqual(arg, actual)
        ? undefined
        : `expected exactly ${show(arg)}, found ${show(actual)}`;
    case '$not':
      return match(arg, actual, at) ? undefined : `expected not ${show(arg)}, found ${show(actual)}`;
    case '$oneOf': {
      const options = arg as unknown[];
      return options.some((o) => !match(o, actual, at))
        ? undefined
        : `expected one of ${show(options)}, found ${show(actual)}`;
    }
  }
  if (!present) return `expected ${op} ${show(arg)}, found nothing`;
  switch (op) {
    case '$matches': {
      const re = regex(String(arg));
      return typeof actual === 'string' && re.test(actual)
        ? undefined
        : `expected a string matching /${arg}/, found ${show(actual)}`;
    }
    case '$contains':
      if (typeof actual === 'string') {
        return actual.includes(String(arg))
          ? undefined
          : `expected text containing ${show(arg)}, found ${show(actual)}`;
      }
      if (Array.isArray(actual)) {
        return actual.some((el, i) => !match(arg, el, `${at}/${i}`))
          ? undefined
          : `expected an element matching ${show(arg)}, found ${show(actual)}`;
      }
      return `expected a string or array containing ${show(arg)}, found ${show(actual)}`;
    case '$length': {
      const len = typeof actual === 'string' || Array.isArray(actual) ? actual.length : undefined;
      if (len === undefined) return `expected something with a length, found ${show(actual)}`;
      const m = match(arg, len, `${at}.length`);
      return m ? `expected length ${show(arg)}, found ${len}` : undefined;
    }
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      const n = typeof actual === 'string' && actual.trim() !== '' ? Number(actual) : actual;
      if (typeof n !== 'number' || Number.isNaN(n)) return `expected a number, found ${show(actual)}`;
      const a = Number(arg);
      const ok = op === '$gt' ? n > a : op === '$gte' ? n >= a : op === '$lt' ? n < a : n <= a;
      return ok ? undefined : `expected ${op.slice(1)} ${a}, found ${n}`;
    }
    case '$type': {
      const t = typeOf(actual);
      const want = String(arg);
      const ok = t === want || (want === 'number' && t === 'integer');
      return ok ? undefined : `expected a value of type ${want}, found ${t} ${show(actual)}`;
    }
    case '$schema': {
      const problem = schemas().check(String(arg), actual);
      return problem ? `does not match schema ${arg}: ${problem}` : undefined;
    }
    case '$anyOrder':
      return matchAnyOrder(arg as unknown[], actual);
    case '$each': {
      if (!Array.isArray(actual)) return `expected an array, found ${show(actual)}`;
      for (let i = 0; i < actual.length; i++) {
        const m = match(arg, actual[i], `${at}/${i}`);
        if (m) return m;
      }
      return undefined;
    }
    case '$keys': {
      // An empty XML element reads as "": it holds no names.
      if (actual === '') return matchKeys(arg, [], at);
      if (!actual || typeof actual !== 'object' || Array.isArray(actual))
        return `expected an object or element, found ${show(actual)}`;
      return matchKeys(arg, Object.keys(actual), at);
    }
    case '$sorted':
      return matchSorted(arg, actual);
  }
  return `unknown operator ${op}`;
}

/** `$anyOrder`: as many elements as patterns, each element matching a pattern of its own. */
function matchAnyOrder(want: unknown[], actual: unknown): string | undefined {
  if (!Array.isArray(actual) || actual.length !== want.length) {
    return `expected ${want.length} elements in any order, found ${show(actual)}`;
  }
  // Subset matching lets one element fit several patterns: search for a full assignment.
  const fits = want.map((w) => actual.map((a) => !match(w, a)));
  const used = new Array<boolean>(actual.length).fill(false);
  const assign = (i: number): boolean => {
    if (i === want.length) return true;
    for (let j = 0; j < actual.length; j++) {
      if (!used[j] && fits[i][j]) {
        used[j] = true;
        if (assign(i + 1)) return true;
        used[j] = false;
      }
    }
    return false;
  };
  if (assign(0)) return undefined;
  const lonely = want.find((_, i) => !fits[i].some(Boolean));
  return lonely === undefined
    ? `no one-to-one pairing of ${show(want)} with ${show(actual)}`
    : `no element matches ${show(lonely)} in ${show(actual)}`;
}

/** `$sorted`: elements (or their values at `by`) in ascending or descending order. */
function matchSorted(arg: unknown, actual: unknown): string | undefined {
  if (!Array.isArray(actual)) return `expected an array, found ${show(actual)}`;
  const spec =
    typeof arg === 'string' ? { direction: arg, by: '' } : (arg as { by?: string; direction?: string });
  const dir = spec.direction ?? 'asc';
  if (dir !== 'asc' && dir !== 'desc') return `$sorted takes asc or desc, not ${show(dir)}`;
  const keys = actual.map((el) => (spec.by ? getPointer(el, spec.by) : el));
  const missing = keys.indexOf(ABSENT);
  if (missing >= 0) return `element ${missing} has nothing at ${spec.by}`;
  for (let i = 1; i < keys.length; i++) {
    const a = keys[i - 1] as string | number;
    const b = keys[i] as string | number;
    if (dir === 'asc' ? a > b : a < b) {
      return `expected sorted ${dir}${spec.by ? ` by ${spec.by}` : ''}; ${show(a)} comes before ${show(b)}`;
    }
  }
  return undefined;
}
