import type { PropertyContext } from 'edgecheck/kit';
import { call, type Envelope, succeed, violation } from './envelope.ts';

export interface RecordView {
  id: string;
  name: string;
}

/** The zone's name, or undefined when the zone answered none (names are then sent relative to the zone). */
export async function zoneName(ctx: PropertyContext, zoneId: string): Promise<string | undefined> {
  const env = await call<{ name?: unknown }>(ctx, { method: 'GET', path: `/zones/${zoneId}` });
  return typeof env.result?.name === 'string' ? env.result.name : undefined;
}

/** Creates A records named `<prefix>-<nn>` in the zone; returns their ids in name order. */
export async function createRecords(
  ctx: PropertyContext,
  zoneId: string,
  zone: string | undefined,
  prefix: string,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const label = `${prefix}-${String(i).padStart(2, '0')}`;
    const name = zone ? `${label}.${zone}` : label;
    const env = await succeed<{ id: string }>(ctx, {
      method: 'POST',
      path: `/zones/${zoneId}/dns_records`,
      body: { type: 'A', name, content: `192.0.2.${(i % 250) + 1}`, ttl: 300 },
    });
    ids.push(env.result.id);
  }
  return ids;
}

/** Best effort: a record that cannot be deleted is left for the run's teardown report, not judged. */
export async function deleteRecords(ctx: PropertyContext, zoneId: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    await ctx.api({ method: 'DELETE', path: `/zones/${zoneId}/dns_records/${id}` }).catch(() => undefined);
  }
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
