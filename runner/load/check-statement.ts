import { isOperatorObject } from '../match/value.ts';
import type { CheckDef } from '../model/case.ts';

/**
 * What a case check asserts, in words, from its matchers: `status 206; header content-range =
 * "bytes 0-0/10"; body = bytes 0-0 of the generated object (10 B, seed 1)`. `edgecheck lint
 * --assertions` and the suite READMEs show it beside a check without a title. Only lint and the
 * tables call it: a run never does.
 */
export function checkStatement(check: CheckDef): string {
  const asserted = matcherStatements(check);
  // A precondition is not asserted: where it does not hold, the check is not judged.
  if (!check.requires) return asserted;
  return `where ${matcherStatements(check.requires)}: ${asserted}`;
}

function matcherStatements(check: Omit<CheckDef, 'clauses' | 'origin'>): string {
  const parts: string[] = [];
  if (check.status !== undefined) parts.push(`status ${relation(check.status, true)}`);
  for (const [name, m] of Object.entries(check.headers ?? {}))
    parts.push(`header ${name.toLowerCase()} ${relation(m)}`);
  if (check.schema) parts.push(`body matches schema ${check.schema}`);
  for (const [pointer, m] of Object.entries(check.json ?? {}))
    parts.push(`json ${pointer === '' ? '(the whole body)' : pointer} ${relation(m)}`);
  for (const [path, m] of Object.entries(check.xml ?? {})) parts.push(`xml ${path} ${relation(m)}`);
  if (check.body) parts.push(...bodyStatements(check.body));
  for (const [pointer, m] of Object.entries(check.output ?? {}))
    parts.push(`output ${pointer === '' ? '(the whole output)' : pointer} ${relation(m)}`);
  if (check.error !== undefined) parts.push(errorStatement(check.error));
  return parts.join('; ');
}

/** Longer literals are cut: the statement is read in a table cell. */
const LITERAL_LIMIT = 80;

function literal(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length <= LITERAL_LIMIT ? text : `${text.slice(0, LITERAL_LIMIT - 1)}…`;
}

/**
 * `= "x"`, `absent`, `>= 400 and < 500`, `has code = 7003, message is of type string`: what a value
 * or matcher asks (an object holds at least the fields given, an array exactly its items); `bare`
 * writes a number as is.
 */
function relation(m: unknown, bare = false): string {
  if (bare && typeof m === 'number') return String(m);
  if (isOperatorObject(m)) {
    return Object.entries(m)
      .map(([op, arg]) => operator(op, arg))
      .join(' and ');
  }
  if (isPlainObject(m)) {
    const fields = Object.entries(m);
    return fields.length ? `has ${fields.map(([k, v]) => `${k} ${relation(v)}`).join(', ')}` : '= {}';
  }
  if (Array.isArray(m) && m.some(isObject)) return `= [${m.map(item).join(', ')}]`;
  return `= ${literal(m)}`;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const isPlainObject = (v: unknown) => isObject(v) && !isOperatorObject(v);

/** An item of a list: a literal as JSON, a matcher or an object in words, in brackets. */
const item = (v: unknown) => (isObject(v) ? `(${relation(v)})` : literal(v));

function operator(op: string, arg: unknown): string {
  switch (op) {
    case '$equals':
      return `= ${literal(arg)}`;
    case '$matches':
      return `matches /${String(arg)}/`;
    case '$present':
    case '$exists':
      return arg === false ? 'absent' : 'present';
    case '$absent':
      return arg === false ? 'present' : 'absent';
    case '$contains':
      return isObject(arg) ? `has an item that ${relation(arg)}` : `contains ${literal(arg)}`;
    case '$oneOf':
      return `one of ${Array.isArray(arg) ? arg.map(item).join(', ') : literal(arg)}`;
    case '$length':
      return `has length ${typeof arg === 'number' ? arg : relation(arg)}`;
    case '$gt':
      return `> ${literal(arg)}`;
    case '$gte':
      return `>= ${literal(arg)}`;
    case '$lt':
      return `< ${literal(arg)}`;
    case '$lte':
      return `<= ${literal(arg)}`;
    case '$type':
      return `is of type ${String(arg)}`;
    case '$schema':
      return `matches schema ${String(arg)}`;
    case '$not':
      return isObject(arg) ? `not (${relation(arg)})` : `!= ${literal(arg)}`;
    case '$anyOrder':
      return `= ${literal(arg)} in any order`;
    case '$each':
      return `each ${relation(arg)}`;
    case '$sorted':
      return sorted(arg);
    case '$keys':
      return `holds names ${isObject(arg) ? relation(arg) : literal(arg)}`;
    default:
      return `${op} ${literal(arg)}`;
  }
}

function sorted(arg: unknown): string {
  if (typeof arg === 'string') return `sorted ${arg === 'desc' ? 'descending' : 'ascending'}`;
  const { by, direction } = (arg ?? {}) as { by?: string; direction?: string };
  return `sorted${by ? ` by ${by}` : ''} ${direction === 'desc' ? 'descending' : 'ascending'}`;
}

function bodyStatements(body: NonNullable<CheckDef['body']>): string[] {
  const out: string[] = [];
  if (body.equals !== undefined) out.push(`body = ${literal(body.equals)}`);
  if (body.contains !== undefined) out.push(`body contains ${literal(body.contains)}`);
  if (body.size !== undefined) out.push(`body is ${body.size} bytes`);
  if (body.sha256 !== undefined) out.push(`body SHA-256 = ${body.sha256}`);
  if (body.md5 !== undefined) out.push(`body MD5 = ${body.md5}`);
  if (body.empty !== undefined) out.push(body.empty ? 'no body' : 'a body');
  const g = body.generated;
  if (g) {
    const of = `the generated object (${g.size} bytes, seed ${g.seed})`;
    out.push(g.range ? `body = bytes ${g.range[0]}-${g.range[1]} of ${of}` : `body = ${of}`);
  }
  return out;
}

function errorStatement(error: unknown): string {
  if (typeof error === 'string') return `SDK error ${error}`;
  if (isOperatorObject(error)) {
    const ops = error as Record<string, unknown>;
    if (ops.$absent === true || ops.$present === false || ops.$exists === false) return 'no SDK error';
    if (ops.$present === true || ops.$exists === true) return 'an SDK error';
  }
  return `SDK error ${relation(error)}`;
}
