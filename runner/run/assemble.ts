import type { Clause } from '../model/clause.ts';
import type { CaseResult, RequestCounts, RunResults } from '../model/results.ts';
import type { Target } from '../model/target.ts';
import { adviceFor } from '../results/advice.ts';
import { clauseResults, summarize } from '../results/aggregate.ts';
import { type Baseline, compareBaseline } from '../results/baseline.ts';
import { exitCodeOf } from '../results/exit-code.ts';
import { errorMessage } from '../util/errors.ts';
import { VERSION } from '../version.ts';

export interface RunRecord {
  runId: string;
  target: Target;
  targetInfo: RunResults['target'];
  asOf: string;
  profile: 'quick' | 'full';
  seed: number;
  selection: RunResults['selection'];
  startedAt: Date;
  clauses: Clause[];
  cases: CaseResult[];
  baseline?: { file: string; known: Baseline };
  requests: RequestCounts;
  /** Why the target was taken as down during the run, if it was. */
  down?: string;
  /** What stopped the run before every case ran, if anything did. */
  stopped?: unknown;
  bySignal: boolean;
}

/** The results document of a finished run: verdicts per clause, what is left, and its exit code. */
export function assembleResults(r: RunRecord): RunResults {
  const clauses = clauseResults(r.clauses, r.cases, r.asOf, r.target.features);
  const diff = r.baseline ? compareBaseline(r.baseline.file, r.baseline.known, clauses) : undefined;
  const leftovers = r.cases.flatMap((c) => (c.leftovers ?? []).map((l) => ({ caseId: c.id, ...l })));
  const interrupted = r.stopped !== undefined;
  return {
    edgecheck: VERSION,
    runId: r.runId,
    target: r.targetInfo,
    asOf: r.asOf,
    profile: r.profile,
    seed: r.seed,
    selection: r.selection,
    startedAt: r.startedAt.toISOString(),
    durationMs: Date.now() - r.startedAt.getTime(),
    summary: summarize(clauses, r.cases),
    clauses,
    cases: r.cases,
    baseline: diff,
    requests: { ...r.requests },
    leftovers,
    advice: adviceFor(r.target, r.cases, r.down),
    interrupted,
    stoppedBy: interrupted ? errorMessage(r.stopped) : undefined,
    exitCode: exitCodeOf({
      bySignal: r.bySignal,
      interrupted,
      leftovers: leftovers.length,
      failing: clauses.some((c) => c.verdict === 'fail' || c.verdict === 'error'),
      baseline: diff,
    }),
  };
}
