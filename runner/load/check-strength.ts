import type { CheckDef } from '../model/case.ts';

/**
 * What a check asserts when it asserts no value: only that something is absent, only a status
 * class, or only a shape (a schema, `$present`). Such a check cannot tell a server that does the
 * wrong thing from one that does the right one wherever its clause states a value, which is why
 * `edgecheck lint` names it. Undefined when some matcher asserts a value.
 */
export function weakness(check: CheckDef): 'absence' | 'status class' | 'shape' | undefined {
  const kinds = new Set<'absence' | 'status class' | 'shape' | 'value'>();
  if (check.status !== undefined) kinds.add(isClass(check.status) ? 'status class' : 'value');
  if (check.schema !== undefined) kinds.add('shape');
  if (check.body !== undefined) kinds.add('value');
  if (check.error !== undefined) kinds.add(matcherKind(check.error));
  for (const part of [check.headers, check.json, check.xml, check.output]) {
    for (const m of Object.values(part ?? {})) kinds.add(matcherKind(m));
  }
  if (kinds.size === 0 || kinds.has('value')) return undefined;
  // The strongest thing the check says, in words: shape beats a status class beats absence.
  for (const k of ['shape', 'status class', 'absence'] as const) if (kinds.has(k)) return k;
  return undefined;
}

/** A status matcher that admits a range or all but some: `{ $gte: 400, $lt: 500 }`, `{ $not: 403 }`. */
function isClass(status: unknown): boolean {
  if (typeof status === 'number' || typeof status === 'string') return false;
  if (!status || typeof status !== 'object') return false;
  const keys = Object.keys(status);
  return (
    keys.length > 0 &&
    keys.every((k) => k === '$gte' || k === '$gt' || k === '$lt' || k === '$lte' || k === '$not')
  );
}

function matcherKind(m: unknown): 'absence' | 'shape' | 'value' {
  if (m && typeof m === 'object' && !Array.isArray(m)) {
    const o = m as Record<string, unknown>;
    if (o.$absent === true) return 'absence';
    if (o.$present === true || o.$absent === false) return 'shape';
    if (Object.keys(o).length === 1 && '$schema' in o) return 'shape';
    if (Object.keys(o).length === 1 && '$not' in o) return 'absence';
  }
  return 'value';
}
