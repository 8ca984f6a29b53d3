import { ABSENT } from './absent.ts';

/** RFC 6901 JSON pointer; ABSENT when any step is missing. "" is the whole value. */
export function getPointer(value: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return pointer === '' ? value : getStep(value, '');
  if (!pointer.startsWith('/')) return ABSENT;
  let cur = value;
  for (const raw of pointer.slice(1).split('/')) {
    cur = getStep(cur, raw.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (cur === ABSENT) return ABSENT;
  }
  return cur;
}

function getStep(cur: unknown, key: string): unknown {
  if (Array.isArray(cur)) {
    if (!/^\d+$/.test(key)) return ABSENT;
    const i = Number(key);
    return i < cur.length ? cur[i] : ABSENT;
  }
  if (cur && typeof cur === 'object' && Object.hasOwn(cur, key)) return (cur as Record<string, unknown>)[key];
  return ABSENT;
}

/**
 * Where a pointer that found nothing stops, in words: `/result is null`, `/result has no "id" (its
 * keys: name, type)`, `/result_info/page is a number`. A failure says what the answer held instead.
 */
export function whatIsThereJson(value: unknown, pointer: string): string | undefined {
  if (!pointer.startsWith('/')) return undefined;
  const keys = pointer
    .slice(1)
    .split('/')
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  let cur = value;
  for (let i = 0; i < keys.length; i++) {
    const at = i === 0 ? 'the body' : `/${pointer.slice(1).split('/').slice(0, i).join('/')}`;
    const next = getStep(cur, keys[i]);
    if (next !== ABSENT) {
      cur = next;
      continue;
    }
    if (cur === null) return `${at} is null`;
    if (Array.isArray(cur)) return `${at} is an array of ${cur.length}`;
    if (typeof cur !== 'object') return `${at} is a ${typeof cur}`;
    const have = Object.keys(cur as object);
    const shown = have.slice(0, 8).join(', ') + (have.length > 8 ? `, and ${have.length - 8} more` : '');
    return `${at} has no "${keys[i]}" (${have.length ? `its keys: ${shown}` : 'it is empty'})`;
  }
  return undefined;
}
