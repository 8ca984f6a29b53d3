import { setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import type { Target } from '../model/target.ts';
import { createAgent } from '../transports/agent.ts';
import { destroyBucket } from '../transports/bucket-teardown.ts';
import { createS3Client } from '../transports/s3-sdk.ts';
import { type RateCap, Traffic } from '../transports/traffic.ts';
import { errorMessage } from '../util/errors.ts';
import { registerSecret } from '../util/redact.ts';
import { answered, envelope, type SweepContext, SweepError, s3Error, send } from './client.ts';
import { findLeftovers, KIND_LABEL, type Kind, type Leftover, type Selection } from './find.ts';

export { KIND_LABEL, type Kind, type Leftover } from './find.ts';

export interface SweepOptions {
  target: Target;
  /** Only this run's objects. */
  runId?: string;
  /** Only objects of runs that started longer ago than this. */
  olderThanMs?: number;
  /** Delete what is found (default: only list it). */
  remove?: boolean;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** At most this many management requests in any window (none: unpaced). */
  rateLimit?: RateCap;
  signal?: AbortSignal;
  /** The present, for ages (tests set it). */
  now?: number;
}

export interface SweepReport {
  /** What the look found, sorted by kind, run and name. */
  found: Leftover[];
  /** Deleted, and confirmed gone by a second look. */
  removed: Leftover[];
  /** Each "could not look at ..." or "could not delete ...": the sweep is incomplete when any. */
  problems: string[];
}

const ORDER: Kind[] = ['bucket', 'dns-record', 'zone-ruleset', 'account-ruleset', 'rule', 'logpush-job'];
const PARALLEL = 4;

function key(l: Leftover): string {
  return `${l.kind} ${l.ruleset?.scope ?? ''}/${l.ruleset?.id ?? ''} ${l.id}`;
}

/** `bucket ec-...` or `DNS record ec-... (id)`, for messages. */
export function describeLeftover(l: Leftover): string {
  const kind = KIND_LABEL[l.kind];
  return l.id === l.name ? `${kind} ${l.name}` : `${kind} ${l.name} (${l.id})`;
}

/**
 * Deletes one object. Resolves with how the target answered, for the message should the object
 * still be there afterwards; an answer that is not a success throws.
 */
async function removeOne(ctx: SweepContext, l: Leftover): Promise<string> {
  if (l.kind === 'bucket') {
    // Objects, then unfinished multipart uploads, then the bucket.
    const s3 = ctx.target.s3!;
    await destroyBucket(ctx.agent, s3, l.id, {
      signal: ctx.signal,
      // A stop cuts a request already sent, as it cut the SDK's: the sweep's own requests are all teardown.
      abort: ctx.signal,
      timeoutMs: ctx.timeoutMs,
      traffic: ctx.traffic,
      door: 's3',
      teardown: true,
    }).catch((err: unknown) => {
      throw new SweepError(s3Error(err));
    });
    return 'DeleteBucket succeeded';
  }
  const m = ctx.target.management!;
  const path = {
    'dns-record': () => `/zones/${m.zoneId}/dns_records/${l.id}`,
    'zone-ruleset': () => `/zones/${m.zoneId}/rulesets/${l.id}`,
    'account-ruleset': () => `/accounts/${m.accountId}/rulesets/${l.id}`,
    rule: () => {
      const owner = l.ruleset!.scope === 'zones' ? m.zoneId : m.accountId;
      return `/${l.ruleset!.scope}/${owner}/rulesets/${l.ruleset!.id}/rules/${l.id}`;
    },
    'logpush-job': () => `/zones/${m.zoneId}/logpush/jobs/${l.id}`,
  }[l.kind]();
  const res = await send(ctx, m, 'DELETE', path);
  // Already gone (another sweep, a late teardown): the second look tells that from a missing route.
  if (res.status === 404) return answered('DELETE', path, res);
  if (res.status >= 300) throw new SweepError(answered('DELETE', path, res));
  if (res.text().trim()) envelope('DELETE', path, res);
  return `DELETE ${path} answered ${res.status}`;
}

function sorted(found: Leftover[]): Leftover[] {
  return found.sort(
    (a, b) =>
      ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind) ||
      a.createdAt - b.createdAt ||
      a.runId.localeCompare(b.runId) ||
      a.name.localeCompare(b.name),
  );
}

/**
 * Finds what earlier runs left on a target (names carrying a run prefix, see runner/model/run-id.ts) and,
 * with `remove`, deletes it. Every delete is confirmed: its answer checked, then a second look at the
 * target must not find the object again.
 */
export async function sweep(options: SweepOptions): Promise<SweepReport> {
  const { target } = options;
  registerSecret(target.management?.token);
  registerSecret(target.management?.legacy?.key);
  registerSecret(target.s3?.secretAccessKey);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  options.signal?.addEventListener('abort', () => controller.abort(options.signal?.reason), { once: true });
  const ctx: SweepContext = {
    target,
    agent: createAgent(PARALLEL, timeoutMs),
    s3: target.s3 ? createS3Client(target.s3, PARALLEL, timeoutMs) : undefined,
    timeoutMs,
    signal: controller.signal,
    traffic: new Traffic({ rateCap: options.rateLimit ? { management: options.rateLimit } : undefined }),
  };
  const sel: Selection = {
    runId: options.runId,
    olderThanMs: options.olderThanMs,
    now: options.now ?? Date.now(),
  };
  try {
    const first = await findLeftovers(ctx, sel);
    const found = sorted(first.flatMap((s) => s.found));
    const problems = first.flatMap((s) => (s.problem ? [s.problem] : []));
    if (!options.remove || found.length === 0) return { found, removed: [], problems };

    const limit = pLimit(PARALLEL);
    const answers = new Map<Leftover, string>();
    // Rules first: they sit in rulesets that stay; the rest is independent.
    for (const batch of [found.filter((l) => l.kind === 'rule'), found.filter((l) => l.kind !== 'rule')]) {
      await Promise.all(
        batch.map((l) =>
          limit(async () => {
            try {
              answers.set(l, await removeOne(ctx, l));
            } catch (err) {
              const why = err instanceof SweepError ? err.message : errorMessage(err);
              problems.push(`could not delete ${describeLeftover(l)}: ${why}`);
            }
          }),
        ),
      );
    }

    const second = await findLeftovers(ctx, sel);
    const unconfirmed = new Set<Kind>();
    for (const s of second) {
      if (!s.problem) continue;
      unconfirmed.add(s.kind);
      problems.push(s.problem.replace('could not look at', 'could not confirm the deletes of'));
    }
    const still = new Set(second.flatMap((s) => s.found).map(key));
    const removed: Leftover[] = [];
    for (const [l, answer] of answers) {
      if (still.has(key(l)))
        problems.push(`could not delete ${describeLeftover(l)}: still there after ${answer}`);
      else if (!unconfirmed.has(l.kind)) removed.push(l);
    }
    return { found, removed: sorted(removed), problems };
  } finally {
    await ctx.agent.close().catch(() => undefined);
    ctx.s3?.destroy();
  }
}
