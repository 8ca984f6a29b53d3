import type { FaultTrace } from '../../reference/fault-trace.ts';
import type { RunResults } from '../../runner/model/results.ts';
import { runPrefix } from '../../runner/model/run-id.ts';

/** Which cases of a traced fault-free run reached each fault's decision point. */
export interface FaultReach {
  /** Fault name: the cases whose requests reached its decision point. */
  reachedBy: Map<string, Set<string>>;
  /** Faults reached in a request the trace cannot name a case for. */
  unattributed: Set<string>;
}

/**
 * Names the case behind each owner of the trace: a management request names its case in its
 * User-Agent (`case ID`); an S3 request names its bucket (`bucket ec-<run id>-<slug>-…`), and a
 * whole run's cases are in slug order, so the slug is the index of the case's result. A consult
 * whose owner names no case of the run counts as unattributed: "any request at all".
 *
 * A case's teardown (`teardown ID`) counts as the case unless `teardownReaches` is false: where
 * cases share no state, what a teardown is answered changes what is left, never a verdict, since
 * it runs after every check of its case and touches only what its case made.
 */
export function faultReach(trace: FaultTrace, results: RunResults, teardownReaches = true): FaultReach {
  const prefix = `${runPrefix(results.runId)}-`;
  const ids = new Set(results.cases.map((c) => c.id));
  const reachedBy = new Map<string, Set<string>>();
  const unattributed = new Set(trace.outside);
  for (const [owner, consulted] of trace.byOwner) {
    let caseId: string | undefined;
    if (owner.startsWith('teardown ') && !teardownReaches) continue;
    const named = /^(?:case|teardown) (.*)$/.exec(owner)?.[1];
    if (named !== undefined) {
      caseId = ids.has(named) ? named : undefined;
    } else if (owner.startsWith(`bucket ${prefix}`)) {
      const slug = owner.slice(`bucket ${prefix}`.length).split('-')[0];
      const index = Number.parseInt(slug, 36);
      caseId = index.toString(36) === slug ? results.cases[index]?.id : undefined;
    }
    for (const fault of consulted) {
      if (caseId === undefined) unattributed.add(fault);
      else reachedBy.set(fault, (reachedBy.get(fault) ?? new Set()).add(caseId));
    }
  }
  return { reachedBy, unattributed };
}

/** `count` of `items`, chosen by `seed` (a seeded Fisher-Yates shuffle, mulberry32). */
export function pick<T>(items: readonly T[], count: number, seed: number): T[] {
  let s = seed >>> 0;
  const random = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out.slice(0, Math.max(0, count));
}

/** Each case's checks as it judged them. */
function judged(r: RunResults): Map<string, string[]> {
  return new Map(r.cases.map((c) => [c.id, c.checks.map((k) => `${k.step}#${k.index}: ${k.verdict}`)]));
}

/** Of `clauses`, those a run did not judge (a narrowed run leaves the clauses it selected no check of untested). */
export function unjudged(r: RunResults, clauses: readonly string[]): string[] {
  const judgedIds = new Set(
    r.clauses.filter((c) => c.verdict !== 'untested' && c.verdict !== 'skipped').map((c) => c.id),
  );
  return clauses.filter((id) => !judgedIds.has(id));
}

/** The cases outside `traced` whose checks `full` judged otherwise than `base` did: `id: checks`. */
export function changedOutside(base: RunResults, full: RunResults, traced: Set<string>): string[] {
  const before = judged(base);
  return [...judged(full)]
    .filter(([id, checks]) => !traced.has(id) && before.get(id)?.join('\n') !== checks.join('\n'))
    .map(([id, checks]) => `${id}: ${checks.join(', ')}`);
}
