import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LoadedSuites } from '../../runner/load/suite.ts';
import type { RunResults } from '../../runner/model/results.ts';
import {
  HarRecorder,
  type ObservedExchange,
  PassiveJudge,
  passiveResults,
  readHar,
} from '../../runner/passive/index.ts';
import { VERSION } from '../../runner/version.ts';

/**
 * A proxy's judge that also records what it judges, as `edgecheck proxy --record` does, so that a
 * test can hold `edgecheck judge` on the recording to the proxy's own verdicts.
 */
export class RecordingJudge {
  readonly judge: PassiveJudge;
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-recording-'));
  readonly har = path.join(this.dir, 'traffic.har');
  private readonly recorder = new HarRecorder(this.har, VERSION);

  constructor(
    private readonly suites: LoadedSuites,
    private readonly asOf: string,
    private readonly upstream: { management?: string; s3?: string },
  ) {
    this.judge = new PassiveJudge({ clauses: suites.clauses.values(), properties: suites.properties }, asOf);
  }

  readonly onExchange = (ex: ObservedExchange): void => {
    this.judge.observe(ex);
    this.recorder.add(ex, this.upstream);
  };

  /** The proxy's verdicts. */
  results(startedAt: Date): RunResults {
    return passiveResults({
      judge: this.judge,
      clauses: [...this.suites.clauses.values()],
      mode: 'proxy',
      target: { name: 'reference', embedded: false },
      asOf: this.asOf,
      startedAt,
    });
  }

  /** What `edgecheck judge` makes of the recording, and the recording removed. */
  async judgedAgain(): Promise<RunResults> {
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
    return passiveResults({
      judge,
      clauses: [...this.suites.clauses.values()],
      mode: 'judge',
      target: { name: 'recording', embedded: false },
      asOf: this.asOf,
      startedAt: new Date(),
    });
  }
}

/** Each clause's verdict. */
export const clauseVerdicts = (r: RunResults): Record<string, string> =>
  Object.fromEntries(r.clauses.map((c) => [c.id, c.verdict]));
