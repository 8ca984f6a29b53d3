/** One testable statement of SPEC (see docs/case-format.md). Checked against schemas/clauses.schema.json on load. */
export interface Clause {
  id: string;
  section: string;
  title: string;
  source: 'spec' | 's3' | 'service';
  since?: string;
  until?: string;
  feature?: string;
  untestable?: string;
  /** Where the clause is defined: file:line, for messages. */
  origin: string;
  area: string;
}

/** True when the clause's date window includes the as-of date (YYYY-MM-DD strings compare lexically). */
export function clauseApplies(clause: Pick<Clause, 'since' | 'until'>, asOf: string): boolean {
  if (clause.since && asOf < clause.since) return false;
  if (clause.until && asOf >= clause.until) return false;
  return true;
}
