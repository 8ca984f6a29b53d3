import { type PropertyContext, RecentMap } from 'edgecheck/kit';
import { call, type Envelope, succeed, violation } from './envelope.ts';

export interface RecordView {
  id: string;
  name: string;
}

/**
 * Zone names read in a run, by run and zone: a zone's name does not change, and a live target counts
 * requests, so the properties that make records read it once per run between them.
 */
const zoneNames = new RecentMap<string, Promise<string | undefined>>(16);

/** The zone's name, or undefined when the zone answered none (names are then sent relative to the zone). */
export function zoneName(ctx: PropertyContext, zoneId: string): Promise<string | undefined> {
  const key = [ctx.runId, zoneId].join(' ');
  let name = zoneNames.get(key);
  if (!name) {
    name = call<{ name?: unknown }>(ctx, { method: 'GET', path: `/zones/${zoneId}` }).then((env) =>
      typeof env.result?.name === 'string' ? env.result.name : undefined,
    );
    zoneNames.set(key, name);
    // A read that failed is tried again by the next property that asks.
    name.catch(() => zoneNames.delete(key));
  }
  return name;
}

/** Requests at once when making or removing a batch of records: a few, as a careful client would send. */
const AT_ONCE = 4;

/** Runs `task(i)` for i in 0..count-1, AT_ONCE at a time; after a failure starts no more, and throws it. */
async function inParallel(count: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: { err: unknown } | undefined;
  const worker = async () => {
    while (!failed && next < count) {
      const i = next++;
      await task(i).catch((err: unknown) => {
        failed ??= { err };
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, count) }, worker));
  if (failed) throw failed.err;
}

/**
 * Creates A records named `<prefix>-<nn>` in the zone, a few at a time. Each id goes into `ids` at
 * its record's place (name order) as soon as the record exists, so the caller deletes every record
 * made even when another creation fails.
 */
export async function createRecords(
  ctx: PropertyContext,
  zoneId: string,
  zone: string | undefined,
  prefix: string,
  count: number,
  ids: string[],
): Promise<void> {
  const start = ids.length;
  await inParallel(count, async (i) => {
    const label = `${prefix}-${String(i).padStart(2, '0')}`;
    const name = zone ? `${label}.${zone}` : label;
    const env = await succeed<{ id: string }>(ctx, {
      method: 'POST',
      path: `/zones/${zoneId}/dns_records`,
      body: { type: 'A', name, content: `192.0.2.${(i % 250) + 1}`, ttl: 300 },
    });
    ids[start + i] = env.result.id;
  });
}

/** Deletes one record; true when it is gone (deleted now, or not found). */
async function deleteRecord(ctx: PropertyContext, zoneId: string, id: string): Promise<boolean> {
  const res = await ctx.api({ method: 'DELETE', path: `/zones/${zoneId}/dns_records/${id}` });
  return (res.status >= 200 && res.status < 300) || res.status === 404;
}

/**
 * Deletes the records. One that cannot be deleted now (an interrupted run, a refused delete) is not
 * judged: it is handed to the run's teardown, which tries again under its own deadline and, should
 * that fail too, lists the record as left behind.
 */
export async function deleteRecords(ctx: PropertyContext, zoneId: string, ids: string[]): Promise<void> {
  // A creation that failed left its place empty.
  const made = ids.filter((id): id is string => typeof id === 'string');
  await inParallel(made.length, async (i) => {
    const id = made[i];
    if (await deleteRecord(ctx, zoneId, id).catch(() => false)) return;
    ctx.defer(
      async () => {
        if (!(await deleteRecord(ctx, zoneId, id))) throw new Error('the delete was refused');
      },
      `DNS record ${id}`,
      `curl -sS -X DELETE '${ctx.target.management?.baseUrl.replace(/\/+$/, '')}/client/v4/zones/${zoneId}/dns_records/${id}' -H "Authorization: Bearer $EDGECHECK_API_TOKEN"`,
    );
  });
}

export async function listPage(
  ctx: PropertyContext,
  zoneId: string,
  query: Record<string, string | number>,
): Promise<Envelope<RecordView[]>> {
  const env = await call<RecordView[]>(ctx, { method: 'GET', path: `/zones/${zoneId}/dns_records`, query });
  if (!env.success)
    violation(`GET dns_records ${JSON.stringify(query)} failed: ${JSON.stringify(env.errors)}`);
  if (!Array.isArray(env.result))
    violation(`GET dns_records ${JSON.stringify(query)} answered no result array`);
  return env;
}
