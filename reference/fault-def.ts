/**
 * The shapes of the fault registry, apart from the registry itself: the catalogues
 * (management/faults.ts, s3/faults.ts) and the context every handler sees need them, while the
 * registry (faults.ts) imports the catalogues, which import the handlers.
 */

/** One behaviour the reference can break on demand, and the clauses a suite must then see fail. */
export interface FaultDef {
  name: string;
  area: 'management' | 's3';
  description: string;
  /** Clause ids that fail (or error) when this fault is on, and no others. */
  breaks: string[];
}

/** The faults switched on for one server, as handlers see them (faults.ts's FaultSet). */
export interface ActiveFaults {
  has(name: string): boolean;
  readonly names: string[];
}
