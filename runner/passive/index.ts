import { randomBytes } from 'node:crypto';
import { isJudged, type PassiveStanding, passiveStandings } from '../load/passive-standing.ts';
import type { Clause } from '../model/clause.ts';
import type { RunResults } from '../model/results.ts';
import { newRunId } from '../model/run-id.ts';
import { clauseResults, summarize } from '../results/aggregate.ts';
import { VERSION } from '../version.ts';
import type { ObservingProperty, PassiveJudge } from './judge.ts';

// The passive engine: judges traffic it observes (edgecheck proxy) or reads (edgecheck judge)
// against the clauses' passive checks, sending nothing of its own.
export {
  isJudged,
  type PassiveStanding,
  passiveStandingProblems,
  passiveStandings,
} from '../load/passive-standing.ts';
export { doorOf, type ObservedExchange } from './exchange.ts';
export { readHar } from './har.ts';
export { type ObservingProperty, PassiveJudge } from './judge.ts';
export { type ProxyHandle, startProxy } from './proxy.ts';
export { HarRecorder, type RecordLimits } from './record.ts';
export type { ResignCredentials } from './resign.ts';
export { ProxyStats, type UpstreamErrorKind } from './stats.ts';
export { type StatusHandle, type StatusOptions, startStatus } from './status.ts';

/**
 * The clauses observed traffic can judge, for lint and the README: each with what judges it, its
 * declared checks (`clauses.yaml`) and the properties whose observers cite it.
 */
export function passiveClauses(suites: {
  clauses: Iterable<Clause>;
  properties?: Iterable<ObservingProperty>;
}): PassiveStanding[] {
  return passiveStandings(suites).filter(isJudged);
}

/**
 * The results document of what a judge saw, for the same reporters as a run: each passive check
 * observed is a case; clauses never observed are `untested`, and clauses with no passive check
 * are left out (the document is about what traffic can tell).
 */
export function passiveResults(r: {
  judge: PassiveJudge;
  clauses: Clause[];
  mode: 'proxy' | 'judge';
  target: RunResults['target'];
  asOf: string;
  startedAt: Date;
  interrupted?: boolean;
  /** The proxy's requests the target never answered, by kind. */
  upstreamErrors?: Record<string, number>;
}): RunResults {
  const cases = r.judge.cases();
  const judgeable = new Set(r.judge.judgeable);
  const clauses = clauseResults(
    r.clauses.filter((c) => judgeable.has(c.id)),
    cases,
    r.asOf,
    r.clauses.flatMap((c) => (c.feature ? [c.feature] : [])),
  );
  const failing = clauses.some((c) => c.verdict === 'fail' || c.verdict === 'error');
  return {
    edgecheck: VERSION,
    runId: newRunId(),
    mode: r.mode,
    observed: r.judge.observed,
    busy: busyByStatus(r.judge),
    ...(r.upstreamErrors ? { upstreamErrors: { ...r.upstreamErrors } } : {}),
    target: r.target,
    asOf: r.asOf,
    profile: 'quick',
    seed: randomBytes(4).readUInt32BE(0) >>> 1,
    startedAt: r.startedAt.toISOString(),
    durationMs: Date.now() - r.startedAt.getTime(),
    summary: summarize(clauses, cases),
    clauses,
    cases,
    leftovers: [],
    interrupted: false,
    exitCode: failing ? 1 : 0,
  };
}

/** The judge's busy answers by status, both doors together. */
function busyByStatus(judge: PassiveJudge): Record<string, number> {
  const out: Record<string, number> = {};
  for (const byStatus of Object.values(judge.busy))
    for (const [status, n] of Object.entries(byStatus)) out[status] = (out[status] ?? 0) + n;
  return out;
}
