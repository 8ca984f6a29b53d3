import {
  fc,
  type ObservedView,
  type Observer,
  type PropertyContext,
  type PropertyDef,
  RecentMap,
} from 'edgecheck/kit';
import { deleteRecords, zoneName } from './support/dns-records.ts';
import { succeed, violation } from './support/envelope.ts';
import { examplesFor } from './support/examples.ts';

/*
 * SPEC: a DNS record's name is the full record name, for every record type. The case checks an A
 * and an SRV record; this property sends other types, with the name relative to the zone or full,
 * and the observer judges every record an answer holds against the zone's name, which it learns
 * from the zone reads the traffic makes.
 */

/** Record types every zone serves, with a content each accepts. */
const CONTENT = {
  A: '192.0.2.60',
  AAAA: '2001:db8::60',
  CNAME: 'target.example.com',
  TXT: 'edgecheck',
} as const;

/**
 * A record name must be the zone's name or end with it after a dot; DNS names ignore case. A name
 * relative to the zone, or with a trailing dot, is not the full name SPEC states. False where the
 * record has no name to judge (which fields a record has is mgmt.dns.record-fields').
 */
function judgeFullName(name: unknown, zone: string, where: string): boolean {
  if (typeof name !== 'string') return false;
  const [n, z] = [name.toLowerCase(), zone.toLowerCase()];
  if (n !== z && !n.endsWith(`.${z}`))
    violation(`${where}: the record name ${JSON.stringify(name)} is not a full name in the zone ${zone}`);
  return true;
}

let made = 0;

const fullNames: PropertyDef = {
  id: 'mgmt.dns.full-names',
  title: 'A record of any type, its name sent relative to the zone or full, is answered with its full name',
  clauses: ['mgmt.dns.name'],
  requests: 5,
  run: async (ctx: PropertyContext) => {
    const zid = ctx.target.management?.zoneId;
    if (!zid) ctx.skip('the target config has no zoneId');
    const zone = await zoneName(ctx, zid);
    if (!zone) ctx.blocked('the zone answered no name, so a full record name cannot be told');
    const ids: string[] = [];
    let judged = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...(Object.keys(CONTENT) as (keyof typeof CONTENT)[])),
          fc.boolean(),
          async (type, relative) => {
            const label = `ec-${ctx.runId}-fn${made++}`;
            const env = await succeed<{ id?: string; name?: unknown }>(ctx, {
              method: 'POST',
              path: `/zones/${zid}/dns_records`,
              body: { type, name: relative ? label : `${label}.${zone}`, content: CONTENT[type], ttl: 300 },
            });
            if (typeof env.result?.id === 'string') ids.push(env.result.id);
            const where = `POST ${type} ${relative ? 'relative' : 'full'} name`;
            if (judgeFullName(env.result?.name, zone, where)) judged++;
          },
        ),
        { seed: ctx.fc.seed, numRuns: examplesFor(ctx, 2), endOnFailure: true },
      );
    } finally {
      await deleteRecords(ctx, zid, ids);
    }
    // Records answered without a name say nothing of names: with none judged, the clause was not.
    if (!judged) ctx.blocked('no record created was answered with a name');
  },
  observe: {
    selects: 'answers holding DNS records, in zones whose name a zone read answered earlier',
    observer: observeNames,
  },
};

/** `/client/v4/zones/{zone_id}` and, beneath it, the record collection or one record. */
const ZONE = /^\/client\/v4\/zones\/([^/]+)$/;
const RECORDS = /^\/client\/v4\/zones\/([^/]+)\/dns_records(?:\/[^/]+)?$/;

/** The longest zone id and name remembered: a DNS name has at most 253 characters, an id far fewer. */
const LONGEST = 255;

/**
 * The zones' names as their reads answered them, by id: the most recent 1,000 zones seen, each id
 * and name at most LONGEST characters, whatever a target answers.
 */
function observeNames(): Observer {
  const names = new RecentMap<string, string>(1_000);
  const learn = (zone: { id?: unknown; name?: unknown } | null | undefined) => {
    const { id, name } = zone ?? {};
    if (typeof id !== 'string' || typeof name !== 'string') return;
    if (id.length <= LONGEST && name.length <= LONGEST) names.set(id, name);
  };
  return (ex: ObservedView) => {
    if (ex.door !== 'management' || ex.status < 200 || ex.status >= 300) return undefined;
    const onZone = ex.method === 'GET' && (ex.path === '/client/v4/zones' || ZONE.test(ex.path));
    const records = RECORDS.exec(ex.path);
    if (!onZone && !(records && ex.method !== 'DELETE')) return undefined;
    const env = ex.json();
    if (env?.success !== true) return undefined;
    const result: unknown[] = Array.isArray(env.result) ? env.result : [env.result];
    if (onZone) {
      for (const zone of result) learn(zone as { id?: unknown; name?: unknown });
      return undefined;
    }
    const zone = names.get((records as RegExpExecArray)[1]);
    if (zone === undefined) return undefined;
    const named = result
      .map((rec) => (rec as { name?: unknown } | null)?.name)
      .filter((n) => n !== undefined);
    for (const name of named) judgeFullName(name, zone, `${ex.method} ${ex.path}`);
    return named.length > 0 || undefined;
  };
}

export default [fullNames] satisfies PropertyDef[];
