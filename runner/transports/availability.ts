/**
 * Whether the target is still there to be judged. Each try of a request ends one of three ways:
 * answered (any considered answer, an error status included), unavailable (429, 502, 503 or 504),
 * or lost (no answer: a timeout, a reset, a refused connection, an answer past the size cap). The
 * target is taken as down, and the run stops sending, when
 *   - LOST_IN_A_ROW tries in a row were lost or unavailable (a dead, hung or throttling target), or
 *   - at least two in a row were, and nothing was answered for a whole request timeout (a target
 *     that hangs: its requests in flight all time out together), or one was and the target never
 *     answered at all (a target that hung from the start is known so at the first timeout), or
 *   - at least SHARE_DOWN of the last RECENT tries were (a target failing half its requests, whose
 *     retries would otherwise stretch a run over many minutes).
 * A throttled try the run waits out and retries counts too: a target that throttles every other
 * request cannot be judged at a pace that ends.
 */
export const LOST_IN_A_ROW = 6;
export const RECENT = 40;
export const SHARE_DOWN = 0.4;

export type TryOutcome = 'answered' | 'unavailable' | 'lost';

export class Availability {
  private inARow = 0;
  /** The last RECENT tries, true for lost or unavailable, as a ring. */
  private readonly recent: boolean[] = [];
  private next = 0;
  private bad = 0;
  /** Why the target is taken as down; undefined while it is not. */
  down?: string;
  private readonly stop = new AbortController();
  /** Aborted when the target is taken as down: waits for pacing and retries end. */
  readonly signal = this.stop.signal;
  /** When a try was last answered, or the watch started. */
  private answeredAt: number;
  private everAnswered = false;

  constructor(
    /** The run's request timeout: nothing answered for this long, with tries lost, is a target down. */
    private readonly quietMs = Number.POSITIVE_INFINITY,
    private readonly now: () => number = Date.now,
  ) {
    this.answeredAt = now();
  }

  /** Notes how one try ended; `what` says it in words (the status, or the transport's error). */
  note(outcome: TryOutcome, what: string): void {
    if (this.down) return;
    const failed = outcome !== 'answered';
    this.inARow = failed ? this.inARow + 1 : 0;
    if (!failed) {
      this.answeredAt = this.now();
      this.everAnswered = true;
    }
    if (this.recent.length < RECENT) this.recent.push(failed);
    else {
      if (this.recent[this.next]) this.bad -= 1;
      this.recent[this.next] = failed;
      this.next = (this.next + 1) % RECENT;
    }
    if (failed) this.bad += 1;
    const quiet = this.now() - this.answeredAt;
    if (this.inARow >= LOST_IN_A_ROW) {
      this.fall(`${this.inARow} tries in a row got no answer or a throttled one (last: ${what})`);
    } else if (this.inARow >= (this.everAnswered ? 2 : 1) && quiet >= this.quietMs) {
      this.fall(
        `nothing answered for ${Math.round(quiet / 1000)} s, ${this.inARow} ${this.inARow === 1 ? 'try' : 'tries in a row'} lost or throttled (last: ${what})`,
      );
    } else if (this.recent.length === RECENT && this.bad >= SHARE_DOWN * RECENT) {
      this.fall(`${this.bad} of the last ${RECENT} tries got no answer or a throttled one (last: ${what})`);
    }
  }

  private fall(reason: string): void {
    this.down = `target unavailable: ${reason}`;
    this.stop.abort(new Error(this.down));
  }
}
