import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CaseResult, RunEvent, RunResults, Tally } from '../runner/model/results.ts';
import { CLAUSE_VERDICTS, type ClauseVerdict, VERDICTS, type Verdict } from '../runner/model/verdict.ts';
import { ROOT } from '../runner/util/paths.ts';

const VERSION: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

/** Collects events so that a reporter closed before run-end (SIGINT) still reports what finished. */
export class EventLog {
  start?: Extract<RunEvent, { type: 'run-start' }>;
  readonly cases: CaseResult[] = [];
  results?: RunResults;
  private readonly startedAt = new Date();

  record(event: RunEvent): void {
    if (event.type === 'run-start') this.start = event;
    else if (event.type === 'case-end') this.cases.push(event.result);
    else if (event.type === 'run-end') this.results = event.results;
  }

  /** The run's results, or a document built from the finished cases (no clauses, exit code 1). */
  resultsOrPartial(): { results: RunResults; complete: boolean } {
    if (this.results) return { results: this.results, complete: true };
    const checks = this.cases.flatMap((c) => c.checks);
    return {
      complete: false,
      results: {
        edgecheck: VERSION,
        runId: this.start?.runId ?? 'unknown',
        target: this.start?.target ?? { name: 'unknown', embedded: false },
        asOf: this.start?.asOf ?? this.startedAt.toISOString().slice(0, 10),
        profile: this.start?.profile ?? 'quick',
        seed: this.start?.seed ?? 0,
        startedAt: this.startedAt.toISOString(),
        durationMs: Date.now() - this.startedAt.getTime(),
        summary: {
          clauses: emptyTally<ClauseVerdict>(CLAUSE_VERDICTS),
          cases: countVerdicts(this.cases.map((c) => c.verdict)),
          checks: countVerdicts(checks.map((c) => c.verdict)),
        },
        clauses: [],
        cases: [...this.cases],
        leftovers: this.cases.flatMap((c) => (c.leftovers ?? []).map((l) => ({ caseId: c.id, ...l }))),
        interrupted: false,
        // A run cut short never counts as a clean one.
        exitCode: 1,
      },
    };
  }
}

function emptyTally<V extends string>(keys: readonly V[]): Tally<V> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Tally<V>;
}

function countVerdicts(verdicts: readonly Verdict[]): Tally<Verdict> {
  const tally = emptyTally<Verdict>(VERDICTS);
  for (const v of verdicts) tally[v] += 1;
  return tally;
}
