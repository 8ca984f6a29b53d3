import type { LazyProperty } from '../load/properties.ts';
import type { LoadedSuites } from '../load/suite.ts';
import type { CaseDef } from '../model/case.ts';
import type { Clause } from '../model/clause.ts';
import { InputError } from '../util/errors.ts';

export interface Selection {
  /** Case ids; `prefix*` matches by prefix. */
  cases?: string[];
  /** Clause ids; a case runs when one of its checks cites a selected clause. */
  clauses?: string[];
  tags?: string[];
  /**
   * `i/n`: the i-th of n shards (1-based), by case order. A shard may be empty (more shards than
   * cases); its clauses are still those of the whole selection.
   */
  shard?: string;
}

function matcher(patterns: string[] | undefined): ((id: string) => boolean) | undefined {
  if (!patterns?.length) return undefined;
  return (id) => patterns.some((p) => (p.endsWith('*') ? id.startsWith(p.slice(0, -1)) : id === p));
}

export interface Work {
  cases: CaseDef[];
  properties: LazyProperty[];
  /** The clauses to report: those of the selected areas, narrowed by the filters. */
  clauses: Clause[];
}

function citedBy(c: CaseDef): string[] {
  return [...c.given, ...c.steps].flatMap((s) => (s.expect ?? []).flatMap((k) => k.clauses));
}

export function selectWork(loaded: LoadedSuites<LazyProperty>, sel: Selection): Work {
  const byCase = matcher(sel.cases);
  const byClause = matcher(sel.clauses);
  const tags = sel.tags?.length ? new Set(sel.tags) : undefined;
  let cases = loaded.cases.filter(
    (c) =>
      (!byCase || byCase(c.id)) &&
      (!byClause || citedBy(c).some(byClause)) &&
      (!tags || c.tags.some((t) => tags.has(t))),
  );
  // A property that only observes traffic has nothing to run.
  let properties = loaded.properties.filter(
    (p) => p.def.run && (!byCase || byCase(p.def.id)) && (!byClause || p.def.clauses.some(byClause)) && !tags,
  );
  const filtered = Boolean(byCase || byClause || tags);
  if (filtered && cases.length + properties.length === 0) {
    throw new InputError(
      '--case/--clause/--tag',
      'nothing matches the filters; `edgecheck clauses` lists the ids',
    );
  }
  // The clauses are those of the whole selection, shard or not: a shard reports the clauses the
  // other shards judge as untested, so that `edgecheck merge` finds every clause in every shard.
  const cited = new Set([...cases.flatMap(citedBy), ...properties.flatMap((p) => p.def.clauses)]);
  const clauses = [...loaded.clauses.values()].filter(
    (c) =>
      loaded.areas.includes(c.area) &&
      (!filtered || (byClause ? byClause(c.id) && cited.has(c.id) : cited.has(c.id))),
  );
  if (sel.shard) {
    const m = /^(\d+)\/(\d+)$/.exec(sel.shard);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2])) {
      throw new InputError(`--shard ${sel.shard}`, 'write i/n with 1 <= i <= n, e.g. --shard 2/4');
    }
    const [i, n] = [Number(m[1]) - 1, Number(m[2])];
    // One numbering over cases then properties, so every item lands in exactly one shard.
    const total = cases.length;
    cases = cases.filter((_, k) => k % n === i);
    properties = properties.filter((_, k) => (total + k) % n === i);
  }
  return { cases, properties, clauses };
}
