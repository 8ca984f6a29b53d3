import { ABSENT } from './absent.ts';

/** RFC 6901 JSON pointer; ABSENT when any step is missing. "" is the whole value. */
export function getPointer(value: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return pointer === '' ? value : getStep(value, '');
  if (!pointer.startsWith('/')) return ABSENT;
  let cur = value;
  for (const key of tokens(pointer)) {
    cur = getStep(cur, key);
    if (cur === ABSENT) return ABSENT;
  }
  return cur;
}

/** A pointer's raw segments (as written) and its keys (~1 and ~0 unescaped). */
function segments(pointer: string): string[] {
  return pointer.slice(1).split('/');
}
function tokens(pointer: string): string[] {
  return segments(pointer).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
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
  const raw = segments(pointer);
  const keys = tokens(pointer);
  let cur = value;
  for (let i = 0; i < keys.length; i++) {
    const at = i === 0 ? 'the body' : `/${raw.slice(0, i).join('/')}`;
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
