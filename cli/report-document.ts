import { Writable } from 'node:stream';
import { createReporter } from '../reporters/registry.ts';
import { eventsOf } from '../runner/api.ts';
import type { Reporter, RunResults } from '../runner/model/results.ts';
import { errorMessage, InputError } from '../runner/util/errors.ts';

/**
 * Feeds a finished results document to reporters as the run's events, and closes them: for the
 * commands whose verdicts come whole (judge, proxy). A reporter that cannot write is bad input.
 */
export async function reportDocument(results: RunResults, reporters: Reporter[]): Promise<number> {
  for (const event of eventsOf(results)) for (const r of reporters) r.onEvent(event);
  const closing = await Promise.allSettled(reporters.map((r) => r.close()));
  const failed = closing.find((c): c is PromiseRejectedResult => c.status === 'rejected');
  if (failed)
    throw new InputError('--reporter', `could not write the results: ${errorMessage(failed.reason)}`);
  return results.exitCode;
}

/** A results document as one reporter (json, html, markdown, junit, console) writes it, as text. */
export async function renderDocument(results: RunResults, reporter: string): Promise<string> {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const r = createReporter(reporter, { stream, color: false });
  for (const event of eventsOf(results)) r.onEvent(event);
  await r.close();
  return chunks.join('');
}
