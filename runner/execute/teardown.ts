import { errorMessage } from '../util/errors.ts';

export interface TeardownAction {
  label: string;
  run: () => Promise<unknown>;
}

/** What a case created, undone in reverse order at its end whatever happened (also after an interrupt). */
export class TeardownLedger {
  private readonly actions: TeardownAction[] = [];
  add(label: string, run: () => Promise<unknown>): void {
    this.actions.push({ label, run });
  }

  /** Runs every action (last added first); returns the failures, one line each. */
  async drain(): Promise<string[]> {
    const problems: string[] = [];
    // An action may add more (a teardown step that provisions): the loop takes those too.
    while (this.actions.length) {
      const action = this.actions.pop()!;
      try {
        await action.run();
      } catch (err) {
        problems.push(`${action.label}: ${errorMessage(err)}`);
      }
    }
    return problems;
  }
}
