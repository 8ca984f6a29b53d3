import pLimit from 'p-limit';
import type { LazyProperty } from '../load/properties.ts';
import type { LoadedSuites } from '../load/suite.ts';
import type { CaseResult } from '../model/results.ts';
import type { RunContext } from '../steps/context.ts';
import { ExclusiveLocks } from './exclusive.ts';
import { runCase } from './run-case.ts';
import { runProperty } from './run-property.ts';
import type { selectWork } from './select.ts';

type Job = { weight: number; exclusive: readonly string[]; run: () => Promise<CaseResult> };

/**
 * Runs the selected cases and properties, `concurrency` at a time, longest chains first so a run's
 * wall time approaches its critical path; cases naming the same shared state never overlap, and
 * one waiting for it holds no slot meanwhile. Results come back in the selection's order.
 */
export async function runWork(
  loaded: LoadedSuites<LazyProperty>,
  work: ReturnType<typeof selectWork>,
  ctx: RunContext,
  concurrency: number,
): Promise<CaseResult[]> {
  const limit = pLimit(concurrency);
  // A case's slug is its place among all the cases of the areas, not among the selected ones:
  // a filtered run then names its resources as the whole run would. Properties that only observe
  // run nothing and have no place: a whole run's results are then in slug order.
  const caseSlug = (c: (typeof loaded.cases)[number]) => loaded.cases.indexOf(c).toString(36);
  const running = loaded.properties.filter((p) => p.def.run);
  const propertySlug = (p: (typeof loaded.properties)[number]) =>
    (loaded.cases.length + running.indexOf(p)).toString(36);
  const toRun: Job[] = [
    ...work.cases.map(
      (c): Job => ({
        weight: c.given.length + c.steps.length,
        exclusive: c.exclusive,
        run: () => runCase(c, caseSlug(c), ctx),
      }),
    ),
    ...work.properties.map(
      (p): Job => ({
        weight: 1000,
        exclusive: p.def.exclusive ?? [],
        run: async () => runProperty(await p.load(), p.file, p.area, propertySlug(p), ctx),
      }),
    ),
  ];
  const order = toRun.map((_, i) => i).sort((a, b) => toRun[b].weight - toRun[a].weight);
  const jobs: Promise<CaseResult>[] = new Array(toRun.length);
  const locks = new ExclusiveLocks();
  for (const i of order) {
    const job = toRun[i];
    jobs[i] = job.exclusive.length ? locks.run(job.exclusive, () => limit(job.run)) : limit(job.run);
  }
  return Promise.all(jobs);
}
