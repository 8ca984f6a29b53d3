import { fc } from 'edgecheck/kit';

/** S3 orders keys by their UTF-8 bytes, which differs from JavaScript's UTF-16 order. */
export function utf8Compare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

// Unicode, spaces, slashes and URL-significant characters; no empty path segments, which
// HTTP clients may normalise away before the request reaches the target.
const CHARS = ['a', 'b', 'z', 'é', 'ü', '中', '😀', ' ', '/', '-', '_', '+', '%', '~'];

export const keyArb = fc
  .array(fc.constantFrom(...CHARS), { minLength: 1, maxLength: 6 })
  .map((a) => a.join(''))
  .filter((k) => !k.startsWith('/') && !k.includes('//'));

export function keySetArb(max: number) {
  return fc.uniqueArray(keyArb, { minLength: 0, maxLength: max });
}

export interface ListParams {
  prefix?: string;
  delimiter?: string;
  startAfter?: string;
}

/**
 * What a listing of `keys` must hold, all pages together: keys and common prefixes in UTF-8 order.
 * A common prefix that sorts at or before start-after while some of its keys sort after it is
 * `optional`: Amazon S3 leaves it out (it is where a previous page ended), and nothing says an
 * implementation may not list it.
 */
export function expectedListing(
  keys: string[],
  p: ListParams,
): { keys: string[]; prefixes: string[]; optional: string[] } {
  const prefix = p.prefix ?? '';
  const selected = keys
    .filter((k) => k.startsWith(prefix) && (!p.startAfter || utf8Compare(k, p.startAfter) > 0))
    .sort(utf8Compare);
  const out = { keys: [] as string[], prefixes: [] as string[], optional: [] as string[] };
  for (const k of selected) {
    const at = p.delimiter ? k.indexOf(p.delimiter, prefix.length) : -1;
    if (at >= 0) {
      const cp = k.slice(0, at + p.delimiter!.length);
      const list = p.startAfter && utf8Compare(cp, p.startAfter) <= 0 ? out.optional : out.prefixes;
      if (!list.includes(cp)) list.push(cp);
    } else out.keys.push(k);
  }
  return out;
}

/** S3's encoding-type=url form decodes with '+' as a space. */
export function urlDecode(s: string): string {
  return decodeURIComponent(s.replace(/\+/g, '%20'));
}
