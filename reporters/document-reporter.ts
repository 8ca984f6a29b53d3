import type { Reporter, ReporterOptions, RunEvent, RunResults } from '../runner/model/results.ts';
import { writeOutput } from './output.ts';
import { EventLog } from './partial.ts';

/**
 * A reporter that writes one document at close, from the run's results (or what an interrupted
 * run has of them): to `dest`, else to the stream. Subclasses only render.
 */
export abstract class DocumentReporter<O extends ReporterOptions = ReporterOptions> implements Reporter {
  protected readonly log = new EventLog();

  constructor(protected readonly options: O = {} as O) {}

  onEvent(event: RunEvent): void {
    this.log.record(event);
  }

  /** The document; `complete` is false for a run cut short. */
  protected abstract render(results: RunResults, complete: boolean): string;

  /** Adds to the end of `dest` instead of replacing it. */
  protected append(): boolean {
    return false;
  }

  async close(): Promise<void> {
    const { results, complete } = this.log.resultsOrPartial();
    await writeOutput(this.render(results, complete), this.options.dest, this.options.stream, this.append());
  }
}
