import { errorMessage } from '../util/errors.ts';

export interface TeardownAction {
  label: string;
  run: () => Promise<unknown>;
}

/** Ledgers with work still pending, so SIGINT/SIGTERM can tear everything down before exit. */
const open = new Set<TeardownLedger>();

/**
 * What a case created, undone in reverse order at its end whatever happened. Each action runs
 * at most once, so a ledger drained by a signal handler is not drained again by its case.
 */
export class TeardownLedger {
  private readonly actions: TeardownAction[] = [];
  private draining?: Promise<string[]>;

  constructor() {
    open.add(this);
  }

  add(label: string, run: () => Promise<unknown>): void {
    this.actions.push({ label, run });
  }

  /** Runs every action (last added first); returns the failures, one line each. */
  drain(): Promise<string[]> {
    this.draining ??= (async () => {
      const problems: string[] = [];
      while (this.actions.length) {
        const action = this.actions.pop()!;
        try {
          await action.run();
        } catch (err) {
          problems.push(`${action.label}: ${errorMessage(err)}`);
        }
      }
      open.delete(this);
      return problems;
    })();
    return this.draining;
  }
}

/** Drains every open ledger (on a signal); resolves when done or when the deadline passes. */
export async function drainAll(deadlineMs: number): Promise<number> {
  const ledgers = [...open];
  const all = Promise.all(ledgers.map((l) => l.drain()));
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
  });
  await Promise.race([all, deadline]);
  clearTimeout(timer);
  return ledgers.length;
}
