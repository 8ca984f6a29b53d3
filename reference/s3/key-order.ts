/**
 * S3 orders keys by their UTF-8 bytes, which is code point order. JavaScript's `<` compares UTF-16
 * code units instead, and the two disagree between U+E000..U+FFFF and the code points above
 * U+FFFF (whose surrogates sort lower): keys are compared here by code point.
 */
export function keyOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only where a surrogate meets a unit from U+E000 up does code point order differ.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (xs ? y >= 0xe000 : x >= 0xe000)) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** JavaScript's own string order (UTF-16 code units), which a fault lists keys in. */
export function utf16Order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Keys compared by their lower-case form, then by S3's order: a fault's case-insensitive listing. */
export function caseInsensitiveOrder(a: string, b: string): number {
  return keyOrder(a.toLowerCase(), b.toLowerCase()) || keyOrder(a, b);
}

const collator = new Intl.Collator('en');

/** The locale's collation (ICU, as localeCompare sorts), then S3's order: a fault's listing order. */
export function localeOrder(a: string, b: string): number {
  return collator.compare(a, b) || keyOrder(a, b);
}
