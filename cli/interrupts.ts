import type { Outstanding } from '../runner/api.ts';
import { redactText } from '../runner/util/redact.ts';

/**
 * SIGINT and SIGTERM during a run: the first starts no new request and lets teardown run; a second
 * stops at once, but still says what it leaves behind. After the run, until the process ends, a
 * late signal exits with the run's own code rather than killing a finished run.
 */
export class Interrupts {
  private readonly controller = new AbortController();
  interrupted = false;
  private readonly onSignal = (signal: NodeJS.Signals) => {
    if (this.interrupted) {
      const left = this.outstanding.list();
      const lines = left.map((l) => `  ${l.what} (${l.caseId})${l.undo ? `\n      ${l.undo}` : ''}`);
      process.stderr.write(
        `\nedgecheck: ${signal} again: stopping now.${left.length ? ` Left on the target (${left.length}):\n${redactText(lines.join('\n'))}\n'edgecheck sweep' finds what runs left; --delete removes it.` : ' Nothing was left to tear down.'}\n`,
      );
      process.exit(130);
    }
    this.interrupted = true;
    process.stderr.write(
      `\nedgecheck: ${signal}: starting no new request; tearing down what the run created (again to stop at once)...\n`,
    );
    // No new request starts; those in flight end (their answers may name what teardown removes).
    this.controller.abort(new Error(`interrupted by ${signal}`));
  };

  constructor(private readonly outstanding: Outstanding) {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  /** The run's signal: aborted by the first interrupt. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops listening; with the run's exit code, a late signal exits with it. */
  release(code: number | undefined): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
    if (code === undefined) return;
    const late = () => process.exit(code);
    process.once('SIGINT', late);
    process.once('SIGTERM', late);
  }
}
