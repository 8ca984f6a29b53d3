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
