import { ListBucketsCommand } from '@aws-sdk/client-s3';
import { runIdIn, runIdTime } from '../model/run-id.ts';
import type { ManagementTarget } from '../model/target.ts';
import { errorMessage } from '../util/errors.ts';
import { envelope, listAll, type SweepContext, SweepError, s3Error, send } from './client.ts';

export type Kind = 'bucket' | 'dns-record' | 'zone-ruleset' | 'account-ruleset' | 'rule' | 'logpush-job';

/** What the kinds are called in messages. */
export const KIND_NAMES: Record<Kind, string> = {
  bucket: 'buckets',
  'dns-record': 'DNS records',
  'zone-ruleset': 'zone rulesets',
  'account-ruleset': 'account rulesets',
  rule: 'rules in shared rulesets',
  'logpush-job': 'log-push jobs',
};

/** One of a kind, in messages and listings. */
export const KIND_LABEL: Record<Kind, string> = {
  bucket: 'bucket',
  'dns-record': 'DNS record',
  'zone-ruleset': 'zone ruleset',
  'account-ruleset': 'account ruleset',
  rule: 'rule',
  'logpush-job': 'log-push job',
};

/** One object an earlier run left. */
export interface Leftover {
  kind: Kind;
  /** The name carrying the run prefix (a rule's description). */
  name: string;
  /** What the API calls it by: the id, a bucket's name. */
  id: string;
  runId: string;
  /** When its run started (ms since the epoch). */
  createdAt: number;
  /** A rule's ruleset. */
  ruleset?: { scope: 'zones' | 'accounts'; id: string };
}

/** Which runs' objects to look for: one run, runs older than an age, both, or (neither) every run. */
export interface Selection {
  runId?: string;
  olderThanMs?: number;
  now: number;
}

// Before this no edgecheck run id existed; a name dated earlier (or in the future) is someone else's.
const FIRST_RUN = Date.UTC(2024, 0, 1);
const CLOCK_SKEW_MS = 24 * 3600_000;

/** The run a name belongs to, if it carries a valid run prefix and that run is selected. */
export function selectedRun(name: string, sel: Selection): { runId: string; createdAt: number } | undefined {
  const runId = runIdIn(name);
  const createdAt = runId === undefined ? undefined : runIdTime(runId);
  if (runId === undefined || createdAt === undefined) return undefined;
  if (createdAt < FIRST_RUN || createdAt > sel.now + CLOCK_SKEW_MS) return undefined;
  if (sel.runId !== undefined && runId !== sel.runId) return undefined;
  if (sel.olderThanMs !== undefined && sel.now - createdAt <= sel.olderThanMs) return undefined;
  return { runId, createdAt };
}

/** What one kind's search found, or why it could not look. */
export interface Search {
  kind: Kind;
  found: Leftover[];
  problem?: string;
}

interface Named {
  id?: unknown;
  name?: unknown;
}

function leftovers<T extends Named>(
  kind: Kind,
  items: T[],
  sel: Selection,
  nameOf: (item: T) => string | undefined = (i) => (typeof i.name === 'string' ? i.name : undefined),
): Leftover[] {
  const out: Leftover[] = [];
  for (const item of items) {
    const name = nameOf(item);
    if (name === undefined || item.id === undefined || item.id === null) continue;
    const run = selectedRun(name, sel);
    if (run) out.push({ kind, name, id: String(item.id), ...run });
  }
  return out;
}

function failed(kind: Kind, err: unknown): Search {
  const why = err instanceof SweepError ? err.message : errorMessage(err);
  return { kind, found: [], problem: `could not look at ${KIND_NAMES[kind]}: ${why}` };
}

async function search(kind: Kind, look: () => Promise<Leftover[]>): Promise<Search> {
  try {
    return { kind, found: await look() };
  } catch (err) {
    return failed(kind, err);
  }
}

function needs(value: string | undefined, what: string): string {
  if (!value) throw new SweepError(`the target names no ${what}`);
  return value;
}

async function buckets(ctx: SweepContext, sel: Selection): Promise<Leftover[]> {
  const s3 = ctx.s3!;
  const names: string[] = [];
  let token: string | undefined;
  for (let n = 0; n < 1000; n++) {
    const page = await s3
      // The SDK's own timeout bounds idle time only; this bounds the request as a whole.
      .send(new ListBucketsCommand({ ContinuationToken: token }), {
        abortSignal: AbortSignal.any([ctx.signal, AbortSignal.timeout(ctx.timeoutMs)]),
      })
      .catch((err: unknown) => {
        throw new SweepError(`ListBuckets: ${s3Error(err)}`);
      });
    for (const b of page.Buckets ?? []) if (b.Name) names.push(b.Name);
    if (!page.ContinuationToken || page.ContinuationToken === token) break;
    token = page.ContinuationToken;
  }
  return leftovers(
    'bucket',
    names.map((name) => ({ id: name, name })),
    sel,
  );
}

interface DnsRecord extends Named {
  zone_name?: unknown;
}

/** A record's name without its zone, so a zone whose own name looked like a prefix matches nothing. */
function recordLabel(r: DnsRecord): string | undefined {
  if (typeof r.name !== 'string') return undefined;
  const zone = typeof r.zone_name === 'string' ? r.zone_name : '';
  if (zone && r.name === zone) return '';
  return zone && r.name.endsWith(`.${zone}`) ? r.name.slice(0, -zone.length - 1) : r.name;
}

async function dnsRecords(ctx: SweepContext, m: ManagementTarget, sel: Selection): Promise<Leftover[]> {
  const zone = needs(m.zoneId, 'zone id (--zone-id)');
  const out: Leftover[] = [];
  for (const r of await listAll<DnsRecord>(ctx, m, `/zones/${zone}/dns_records`)) {
    const label = recordLabel(r);
    const run = label === undefined ? undefined : selectedRun(label, sel);
    if (run && r.id !== undefined && r.id !== null)
      out.push({ kind: 'dns-record', name: String(r.name), id: String(r.id), ...run });
  }
  return out;
}

interface RulesetSummary extends Named {
  kind?: unknown;
}

interface RuleView {
  id?: unknown;
  description?: unknown;
}

async function rulesets(
  ctx: SweepContext,
  m: ManagementTarget,
  scope: 'zones' | 'accounts',
): Promise<RulesetSummary[]> {
  const owner = needs(
    scope === 'zones' ? m.zoneId : m.accountId,
    scope === 'zones' ? 'zone id (--zone-id)' : 'account id (--account-id)',
  );
  return listAll<RulesetSummary>(ctx, m, `/${scope}/${owner}/rulesets`);
}

/**
 * Rules a run put into rulesets it did not create (the custom log fields entry point): found by the
 * prefix in their description, inside every ruleset that is neither a run's own nor a managed one.
 */
async function rulesIn(
  ctx: SweepContext,
  m: ManagementTarget,
  scope: 'zones' | 'accounts',
  list: RulesetSummary[],
  sel: Selection,
): Promise<Leftover[]> {
  const owner = scope === 'zones' ? m.zoneId : m.accountId;
  const out: Leftover[] = [];
  for (const rs of list) {
    if (typeof rs.name === 'string' && runIdIn(rs.name) !== undefined) continue;
    if (rs.kind === 'managed' || typeof rs.id !== 'string') continue;
    const path = `/${scope}/${owner}/rulesets/${rs.id}`;
    const env = envelope<{ rules?: RuleView[] }>('GET', path, await send(ctx, m, 'GET', path));
    const rules = (env.result?.rules ?? []).filter((r) => typeof r.description === 'string');
    for (const l of leftovers('rule', rules, sel, (r) => r.description as string))
      out.push({ ...l, ruleset: { scope, id: rs.id } });
  }
  return out;
}

async function logpushJobs(ctx: SweepContext, m: ManagementTarget, sel: Selection): Promise<Leftover[]> {
  const zone = needs(m.zoneId, 'zone id (--zone-id)');
  const jobs = await listAll<Named & { destination_conf?: unknown }>(ctx, m, `/zones/${zone}/logpush/jobs`);
  // The name is optional for the service; the destination carries the prefix too.
  return leftovers('logpush-job', jobs, sel, (j) =>
    [j.name, j.destination_conf].find((v): v is string => typeof v === 'string' && runIdIn(v) !== undefined),
  );
}

/** Looks at every kind the target's config reaches; each kind's failure is its own problem. */
export async function findLeftovers(ctx: SweepContext, sel: Selection): Promise<Search[]> {
  const m = ctx.target.management;
  const searches: Promise<Search | Search[]>[] = [];
  if (ctx.s3) searches.push(search('bucket', () => buckets(ctx, sel)));
  if (m) {
    searches.push(search('dns-record', () => dnsRecords(ctx, m, sel)));
    searches.push(search('logpush-job', () => logpushJobs(ctx, m, sel)));
    // Rules are looked for in the rulesets the list found: one list serves both searches of a scope.
    for (const scope of ['zones', 'accounts'] as const) {
      const kind = scope === 'zones' ? 'zone-ruleset' : 'account-ruleset';
      const both = async (): Promise<Search[]> => {
        let list: RulesetSummary[];
        try {
          list = await rulesets(ctx, m, scope);
        } catch (err) {
          return [failed(kind, err), failed('rule', err)];
        }
        return [
          await search(kind, async () => leftovers(kind, list, sel)),
          await search('rule', () => rulesIn(ctx, m, scope, list, sel)),
        ];
      };
      searches.push(both());
    }
  }
  return (await Promise.all(searches)).flat();
}
