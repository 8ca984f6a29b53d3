import { randomBytes } from 'node:crypto';

/*
 * The run id and the prefix of everything a run creates. The id carries its creation time, so that
 * `edgecheck sweep` can tell the age of what an interrupted run left from the name alone: seconds
 * since the epoch in base 36 (6 characters last until 2038), then 4 random hex characters for runs
 * started in the same second. Lower-case letters and digits only: valid in bucket names and DNS labels.
 */

const TIME_CHARS = 6;
const ID = /^([0-9a-z]{6})[0-9a-f]{4}$/;

/** A new run id for a run started at `now` (ms since the epoch). */
export function newRunId(now = Date.now()): string {
  const seconds = Math.floor(now / 1000)
    .toString(36)
    .padStart(TIME_CHARS, '0');
  return `${seconds}${randomBytes(2).toString('hex')}`;
}

/** When the run with this id started (ms since the epoch, to the second), or undefined if `id` is no run id. */
export function runIdTime(id: string): number | undefined {
  const m = ID.exec(id);
  return m ? Number.parseInt(m[1], 36) * 1000 : undefined;
}

/** The prefix of every name a run creates. */
export function runPrefix(runId: string): string {
  return `ec-${runId}`;
}

/*
 * A run prefix inside a name: at its start or after a separator (`_sip._tcp.ec-…`, `r2://ec-…`,
 * `0-ec-…`), and not followed by more id characters, so `ec-` plus a longer word is no match.
 */
const IN_NAME = /(?:^|[^a-z0-9])ec-([0-9a-z]{6}[0-9a-f]{4})(?![0-9a-z])/;

/** The run id whose prefix `name` carries, or undefined. */
export function runIdIn(name: string): string | undefined {
  return IN_NAME.exec(name)?.[1];
}
