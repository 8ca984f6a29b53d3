import type { RunEvent, RunResults } from '../model/results.ts';

/** The events a run with these results would have sent, for reporters fed from a document. */
export function eventsOf(results: RunResults): RunEvent[] {
  const events: RunEvent[] = [
    {
      type: 'run-start',
      runId: results.runId,
      mode: results.mode,
      target: results.target,
      asOf: results.asOf,
      profile: results.profile,
      seed: results.seed,
      cases: results.cases.length,
      clauses: results.clauses.length,
    },
  ];
  for (const c of results.cases) {
    events.push({ type: 'case-start', caseId: c.id, title: c.title });
    for (const check of c.checks) events.push({ type: 'check', result: check });
    events.push({ type: 'case-end', result: c });
  }
  events.push({ type: 'run-end', results });
  return events;
}
