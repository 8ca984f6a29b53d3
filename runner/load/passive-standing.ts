import type { Clause } from '../model/clause.ts';
import type { PropertyDef } from '../model/property.ts';
import type { Problem } from './lint.ts';

/** A clause with what judges it from observed traffic, or why nothing can. */
export interface PassiveStanding {
  clause: Clause;
  /** How many passive checks its clauses.yaml entry declares. */
  declared: number;
  /** The properties whose `observe` cites it. */
  observers: string[];
  /** Why traffic cannot judge it: its `unobservable`, else its `untestable` (no traffic shows that either). */
  reason?: string;
}

export const isJudged = (s: PassiveStanding) => s.declared > 0 || s.observers.length > 0;

/**
 * Every clause with what judges it from observed traffic (`edgecheck proxy`, `edgecheck judge`):
 * its declared `passive:` checks and the properties observing it; and why nothing can, in its
 * own words (`unobservable`, or `untestable`).
 */
export function passiveStandings(suites: {
  clauses: Iterable<Clause>;
  properties?: Iterable<{ def: Pick<PropertyDef, 'id' | 'clauses' | 'observe'> }>;
}): PassiveStanding[] {
  const observers = new Map<string, string[]>();
  for (const p of suites.properties ?? []) {
    if (!p.def.observe) continue;
    for (const id of p.def.clauses) observers.set(id, [...(observers.get(id) ?? []), p.def.id]);
  }
  return [...suites.clauses].map((clause) => ({
    clause,
    declared: clause.passive?.length ?? 0,
    observers: observers.get(clause.id) ?? [],
    reason: clause.unobservable ?? (clause.untestable ? `untestable: ${clause.untestable}` : undefined),
  }));
}

/**
 * A clause says how traffic judges it or why it cannot, and never both: one with neither leaves
 * `edgecheck proxy` silent on it without saying why, one with both says two things of itself.
 */
export function passiveStandingProblems(standings: PassiveStanding[]): Problem[] {
  const problems: Problem[] = [];
  const error = (where: string, what: string) => problems.push({ where, what, level: 'error' });
  for (const s of standings) {
    const { clause } = s;
    if (isJudged(s) && clause.unobservable) {
      const by = [...(s.declared ? ['its passive checks'] : []), ...s.observers.map((p) => `property ${p}`)];
      error(
        clause.origin,
        `clause '${clause.id}' is judged from observed traffic (by ${by.join(', ')}), yet says unobservable; remove unobservable`,
      );
    } else if (clause.unobservable && clause.untestable) {
      error(
        clause.origin,
        `clause '${clause.id}' is untestable, which already says why traffic cannot judge it; remove unobservable`,
      );
    } else if (!isJudged(s) && !s.reason) {
      error(
        clause.origin,
        `clause '${clause.id}' says neither how observed traffic judges it nor why it cannot: add passive: checks (docs/case-format.md), or unobservable: <why, in one line>`,
      );
    }
  }
  return problems;
}
