import type { AmazonBehaviour, CheckDef } from './case.ts';

/** One testable statement of SPEC (see docs/case-format.md). Checked against schemas/clauses.schema.json on load. */
export interface Clause {
  id: string;
  /**
   * Where in SPEC it comes from, as reports show it: the title of the section its clauses.yaml
   * names by id (suites/<area>/sections.yaml), or the titles of several joined by '; '.
   */
  section: string;
  title: string;
  source: 'spec' | 's3' | 'service';
  since?: string;
  until?: string;
  /** A name of runner/model/features.ts: the target must offer it. */
  feature?: string;
  untestable?: string;
  /**
   * Where SPEC departs from Amazon S3: what Amazon S3 does instead, in a few words (`says`) and,
   * where the words give its answer, as a check's matchers. A target failing such a clause may be
   * doing as Amazon S3 does, which its answer shows against the matchers; reports show those apart.
   */
  amazon?: AmazonBehaviour;
  /** How observed traffic judges it (runner/passive/); absent when it cannot. */
  passive?: PassiveCheck[];
  /**
   * Why observed traffic cannot judge it, in one line: what no exchange, or no few exchanges of the
   * same traffic, show (the stored state behind an answer, a refusal's valid twin, a date, ...).
   * A clause says this or how it is judged (`passive`, or a property's `observe`); `edgecheck lint`
   * holds it to one of them. An `untestable` clause needs none: no traffic shows it either.
   */
  unobservable?: string;
  /** Where the clause is defined: file:line, for messages. */
  origin: string;
  area: string;
}

/** Which observed exchanges a passive check judges: every field given must hold. */
export interface PassiveWhen {
  door?: 'management' | 's3';
  method?: string;
  /** A regular expression the request path (without the query) matches. */
  path?: string;
  /** A regular expression the query string (without `?`) matches. */
  query?: string;
  /** A value matcher the answer's status meets. */
  status?: unknown;
  /** Request header name -> value or matcher. */
  requestHeaders?: Record<string, unknown>;
}

/** A clause judged from observed traffic: the exchanges `when` selects must meet `expect`, a case check. */
export interface PassiveCheck {
  when: PassiveWhen;
  /** Written here, or the check `sameAs` names, taken from its case when the suites load. */
  expect: CheckDef;
  /** `<case id>/<step id>#<n>`: the case check this one is (runner/load/passive-refs.ts). */
  sameAs?: string;
  /** file:line of the entry, for reports. */
  origin: string;
}

/** True when the clause's date window includes the as-of date (YYYY-MM-DD strings compare lexically). */
export function clauseApplies(clause: Pick<Clause, 'since' | 'until'>, asOf: string): boolean {
  if (clause.since && asOf < clause.since) return false;
  if (clause.until && asOf >= clause.until) return false;
  return true;
}

/** A part of SPEC that clauses name by id (suites/<area>/sections.yaml; see docs/case-format.md). */
export interface Section {
  /** What clauses.yaml writes in `section:` (`errors.2`). */
  id: string;
  /** The SPEC.md heading it sits under, word for word. */
  heading: string;
  /** What reports show (`Errors / 2`). */
  title: string;
  /** Where the section is defined: file:line, for messages. */
  origin: string;
}
