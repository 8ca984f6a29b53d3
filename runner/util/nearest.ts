/**
 * Edit distance between two names (insertions, deletions, substitutions and transpositions of
 * neighbours each count one), for "did you mean" hints.
 */
export function editDistance(a: string, b: string): number {
  // Rows i-2, i-1 and i of the table; a transposition looks two rows back.
  let before = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, before[j - 2] + 1);
      row.push(d);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length];
}

/**
 * The known name nearest to `name`, ignoring case, when it is within a third of the name's length
 * (at least one edit); undefined when none is that close.
 */
export function nearestName(name: string, known: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * `unknown KIND 'name' (did you mean 'near'?)`, or `unknown KIND 'name'; OTHERWISE` when no
 * known name is near.
 */
export function unknownName(kind: string, name: string, known: Iterable<string>, otherwise: string): string {
  const near = nearestName(name, known);
  return near === undefined
    ? `unknown ${kind} '${name}'; ${otherwise}`
    : `unknown ${kind} '${name}' (did you mean '${near}'?)`;
}
