import type { Leftover } from '../model/results.ts';
import { transportMessage } from '../transports/transport-words.ts';

export interface TeardownAction {
  /** What the action removes or puts back, in words: `bucket ec-…`, `security_level back to medium`. */
  what: string;
  /** How a person removes or restores it by hand (a command), should the action fail. */
  undo?: () => string;
  run: (signal: AbortSignal) => Promise<unknown>;
}

/**
 * Every teardown action of the run not yet done, so that a second interrupt, which stops at once,
 * can still say what is left.
 */
export class Outstanding {
  private readonly items = new Set<{ caseId: string; action: TeardownAction }>();
  add(caseId: string, action: TeardownAction): () => void {
    const item = { caseId, action };
    this.items.add(item);
    return () => this.items.delete(item);
  }
  list(): (Leftover & { caseId: string })[] {
    return [...this.items].map(({ caseId, action }) => ({
      caseId,
      what: action.what,
      error: 'not torn down: the run was stopped',
      undo: safeUndo(action),
    }));
  }
}

function safeUndo(action: TeardownAction): string | undefined {
  try {
    return action.undo?.();
  } catch {
    return undefined;
  }
}

/**
 * What a case created or changed, undone in reverse order at its end whatever happened, also after
 * an interrupt. Each action gets its own signal (a deadline of its own, cut only by a second
 * interrupt), since the run's signal may already be aborted.
 */
export class TeardownLedger {
  private readonly actions: { action: TeardownAction; done: () => void }[] = [];
  constructor(
    private readonly caseId: string,
    private readonly outstanding?: Outstanding,
  ) {}

  add(action: TeardownAction): void {
    const done = this.outstanding?.add(this.caseId, action) ?? (() => undefined);
    this.actions.push({ action, done });
  }

  /** Runs every action (last added first); returns what could not be removed or put back. */
  async drain(signalFor: () => AbortSignal): Promise<Leftover[]> {
    const left: Leftover[] = [];
    // An action may add more (a teardown step that provisions): the loop takes those too.
    while (this.actions.length) {
      const { action, done } = this.actions.pop()!;
      try {
        await action.run(signalFor());
      } catch (err) {
        left.push({ what: action.what, error: transportMessage(err), undo: safeUndo(action) });
      } finally {
        done();
      }
    }
    return left;
  }
}
