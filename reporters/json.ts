import type { Reporter, ReporterOptions, RunEvent } from '../runner/model/results.ts';
import { writeOutput } from './output.ts';
import { EventLog } from './partial.ts';
import { safeJson } from './safe-json.ts';

/** Writes the RunResults document (schemas/results.schema.json) at close: to `dest`, else to the stream. */
export class JsonReporter implements Reporter {
  private readonly log = new EventLog();

  constructor(private readonly options: ReporterOptions = {}) {}

  onEvent(event: RunEvent): void {
    this.log.record(event);
  }

  async close(): Promise<void> {
    const { results } = this.log.resultsOrPartial();
    await writeOutput(`${safeJson(results, 2)}\n`, this.options.dest, this.options.stream);
  }
}
