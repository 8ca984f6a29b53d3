import type { RunResults } from '../runner/model/results.ts';
import { DocumentReporter } from './document-reporter.ts';
import { safeJson } from './safe-json.ts';

/** Writes the RunResults document (schemas/results.schema.json) at close: to `dest`, else to the stream. */
export class JsonReporter extends DocumentReporter {
  protected render(results: RunResults): string {
    return `${safeJson(results, 2)}\n`;
  }
}
