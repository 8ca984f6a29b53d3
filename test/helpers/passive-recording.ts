import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { FAULTS } from '../../reference/faults.ts';
import { type ReferenceHandle, startReference } from '../../reference/server.ts';
import type { LoadedSuites } from '../../runner/load/suite.ts';
import type { RunResults } from '../../runner/model/results.ts';
import {
  HarRecorder,
  type ObservedExchange,
  PassiveJudge,
  type ProxyHandle,
  passiveResults,
  readHar,
  startProxy,
} from '../../runner/passive/index.ts';
import { VERSION } from '../../runner/version.ts';

/**
 * A proxy's judge that may also record what it judges, as `edgecheck proxy --record` does, so that
 * a test can hold `edgecheck judge` on the recording to the proxy's own verdicts.
 */
export class RecordingJudge {
  readonly judge: PassiveJudge;
  private readonly dir?: string;
  private readonly recorder?: HarRecorder;
  private readonly har?: string;

  constructor(
    private readonly suites: LoadedSuites,
    private readonly asOf: string,
    private readonly upstream: { management?: string; s3?: string },
    record = true,
  ) {
    this.judge = new PassiveJudge({ clauses: suites.clauses.values(), properties: suites.properties }, asOf);
    if (!record) return;
    this.dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-recording-'));
    this.har = path.join(this.dir, 'traffic.har');
    this.recorder = new HarRecorder(this.har, VERSION);
  }

  readonly onExchange = (ex: ObservedExchange): void => {
    this.judge.observe(ex);
    this.recorder?.add(ex, this.upstream);
  };

  /** The proxy's verdicts. */
  results(startedAt: Date): RunResults {
    return this.resultsOf(this.judge, 'proxy', startedAt);
  }

  /** What `edgecheck judge` makes of the recording, and the recording removed. */
  async judgedAgain(): Promise<RunResults> {
    if (!this.recorder || !this.har || !this.dir) throw new Error('this judge records nothing');
    this.recorder.close();
    const judge = new PassiveJudge(
      { clauses: this.suites.clauses.values(), properties: this.suites.properties },
      this.asOf,
    );
    try {
      for await (const ex of readHar(this.har)) judge.observe(ex);
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
    return this.resultsOf(judge, 'judge', new Date());
  }

  private resultsOf(judge: PassiveJudge, mode: 'proxy' | 'judge', startedAt: Date): RunResults {
    return passiveResults({
      judge,
      clauses: [...this.suites.clauses.values()],
      mode,
      target: { name: mode === 'proxy' ? 'reference' : 'recording', embedded: false },
      asOf: this.asOf,
      startedAt,
    });
  }
}

/** Each clause's verdict. */
export const clauseVerdicts = (r: RunResults): Record<string, string> =>
  Object.fromEntries(r.clauses.map((c) => [c.id, c.verdict]));

/** The clauses a run failed or errored on. */
export const failingClauses = (r: RunResults): string[] =>
  r.clauses.filter((c) => c.verdict === 'fail' || c.verdict === 'error').map((c) => c.id);

/**
 * The reference with `faults`, behind the proxy, the traffic `drive` makes through it judged in
 * passing; with `recorded`, edgecheck judge on the proxy's recording must give the same verdicts.
 * With `resign`, the proxy signs each S3 request again with the reference's keys (--resign).
 */
export async function judgedInPassing(opts: {
  suites: LoadedSuites;
  asOf: string;
  faults?: string[];
  recorded?: boolean;
  resign?: boolean;
  drive: (proxy: ProxyHandle, ref: ReferenceHandle) => Promise<void>;
}): Promise<RunResults> {
  const ref = await startReference({ asOf: opts.asOf, faults: opts.faults ?? [] });
  const upstream = { management: ref.urls.management, s3: ref.urls.s3 };
  const judged = new RecordingJudge(opts.suites, opts.asOf, upstream, opts.recorded === true);
  const resign = opts.resign ? { ...ref.context.credentials } : undefined;
  const proxy = await startProxy({ upstream, resign, onExchange: judged.onExchange });
  const startedAt = new Date();
  try {
    await opts.drive(proxy, ref);
  } finally {
    await proxy.close();
    await ref.close();
  }
  const results = judged.results(startedAt);
  // edgecheck judge on the proxy's recording of the same traffic gives the same verdicts.
  if (opts.recorded) expect(clauseVerdicts(await judged.judgedAgain())).toEqual(clauseVerdicts(results));
  return results;
}

/** Each failing or erroring check's clauses and message, for an assertion's message. */
export const whyFailing = (r: RunResults): string =>
  r.cases
    .flatMap((c) => c.checks)
    .filter((k) => k.verdict !== 'pass')
    .map((k) => `${k.clauses.join(',')}: ${k.message}`)
    .join('\n');

/**
 * A fault judged in passing: `clause` fails, citing the exchange that shows it, and nothing fails
 * outside the clauses the fault breaks (and `also`, what it breaks in passing beside them).
 */
export function expectFailsInPassing(
  results: RunResults,
  fault: string,
  clause: string,
  also: string[] = [],
): void {
  const family = [...(FAULTS.find((f) => f.name === fault)?.breaks ?? []), ...also];
  const failed = failingClauses(results);
  expect(failed, whyFailing(results)).toContain(clause);
  expect(
    failed.filter((id) => !family.includes(id)),
    whyFailing(results),
  ).toEqual([]);
  const evidence = results.cases
    .flatMap((c) => c.checks)
    .find((k) => k.verdict === 'fail' && k.clauses.includes(clause));
  expect(evidence?.exchange?.response.status, whyFailing(results)).toBeGreaterThan(0);
}
