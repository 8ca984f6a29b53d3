import type { LegacyRoute } from './management/legacy-collections.ts';
import { LEGACY_ROUTE_GROUPS } from './management/retired-endpoints.ts';
import type { Json, State } from './management/store.ts';
import { zoneSettingValues } from './management/zone-settings.ts';
import type { S3Store } from './s3/store.ts';

/**
 * Everything a reference server holds, as plain JSON in a stable order, so that tests can compare the state
 * before a run with the state after it (`expect(after).toEqual(before)`).
 *
 * Left out, because the server assigns them on every write and no client can ever put them back, so a
 * restore that puts every client-set value back still changes them:
 * - `modified_on` of zone settings, DNS records and the objects behind retired endpoints;
 * - `version` and `last_updated` of rulesets and of their rules, and rule ids (a PUT that restores the same
 *   rules creates them anew; `ref`, which a client sets, is compared);
 * - an S3 object's `lastModified` and `versionId`, and a part's `lastModified`;
 * - bookkeeping no client can read as state: the next log-push job id, the ids of finished uploads, and
 *   object bodies (compared by size and ETag instead).
 * Collections behind retired endpoints are created with their seed on first use, even by a read; one that
 * still holds exactly its seed is left out, as no client can tell it from one never used.
 * Everything else a client sets, or the server assigns once at creation (ids, creation times), compares
 * exactly.
 */
export interface ReferenceSnapshot {
  management: Json;
  s3: Json;
}

export function snapshotReference(state: { management: State; s3: S3Store }): ReferenceSnapshot {
  return { management: managementSnapshot(state.management), s3: s3Snapshot(state.s3) };
}

function managementSnapshot(state: State): Json {
  return canonical({
    zone: state.zone,
    zoneSettings: zoneSettingValues(state),
    dnsSettings: state.dnsSettings,
    dnsRecords: sortedBy(
      [...state.dnsRecords.values()].map((r) => omit(r, ['modified_on'])),
      (r) => `${r.name} ${r.type} ${r.id}`,
    ),
    rulesets: sortedBy(
      [...state.rulesets.values()],
      (rs) => `${rs.scope} ${rs.ownerId} ${rs.kind} ${rs.phase} ${rs.id}`,
    ).map((rs) => ({
      ...omit(rs, ['version', 'last_updated']),
      rules: rs.rules.map((rule) => omit(rule, ['id', 'version', 'last_updated'])),
    })),
    logpushJobs: sortedBy([...state.logpushJobs.values()], (j) => String(j.id).padStart(12, '0')),
    invites: sortedBy([...state.invites.values()], (i) => String(i.id)),
    certificatePacks: sortedBy(state.certificatePacks, (p) => String(p.id)),
    migrations: Object.fromEntries(state.migrations),
    legacy: legacySnapshot(state.legacy),
  });
}

function s3Snapshot(store: S3Store): Json {
  const buckets = [...store.buckets.values()].map((b) => ({
    name: b.name,
    created: b.created.toISOString(),
    locationHint: b.locationHint ?? null,
    cors: b.cors ?? null,
    lifecycle: b.lifecycle ?? null,
    encryption: b.encryption,
    objects: sortedBy([...b.objects.values()], (o) => o.key).map((o) => ({
      key: o.key,
      size: o.blob.size,
      etag: o.etag,
      contentType: o.contentType,
      headers: o.headers,
      metadata: o.metadata,
      checksums: o.checksums,
      partSizes: o.partSizes ?? null,
    })),
    uploads: sortedBy([...b.uploads.values()], (u) => `${u.key} ${u.uploadId}`).map((u) => ({
      uploadId: u.uploadId,
      key: u.key,
      initiated: u.initiated.toISOString(),
      contentType: u.contentType ?? null,
      headers: u.headers,
      metadata: u.metadata,
      parts: [...u.parts.values()]
        .sort((x, y) => x.partNumber - y.partNumber)
        .map((p) => ({ partNumber: p.partNumber, size: p.blob.size, etag: p.etag })),
    })),
  }));
  return canonical({ buckets: sortedBy(buckets, (b) => b.name) });
}

/** Retired-endpoint collections that differ from their seed, each member without `modified_on`. */
function legacySnapshot(legacy: State['legacy']): Json {
  const out: Json = {};
  for (const [path, items] of [...legacy].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const members = Object.fromEntries([...items].map(([id, item]) => [id, omit(item, ['modified_on'])]));
    const unchanged = seedsOf(path).some((seed) => equalJson(canonical(members), canonical(seed)));
    if (!unchanged) out[path] = members;
  }
  return out;
}

/**
 * The contents a collection at `path` holds when first used, keyed as it stores them. An item route seeds
 * its parent collection with the seed of the first collection route its pattern extends, as
 * legacy-collections.ts does.
 */
function seedsOf(path: string): Json[] {
  const seeds: Json[] = [{}];
  for (const routes of LEGACY_ROUTE_GROUPS) {
    for (const route of routes) {
      if (route.shape === 'collection' || route.shape === 'singleton') {
        const params = matchPattern(route.pattern, path);
        if (!params) continue;
        const items = route.seed?.(params) ?? [];
        const members: Json = Object.fromEntries(items.map((i) => [String(i.id), i]));
        // A singleton is kept in a collection of its seed, under `self` next to the seed's own id.
        if (route.shape === 'singleton') members.self = items[0] ?? {};
        seeds.push(members);
      } else if (route.shape === 'item') {
        const parentPattern = route.pattern.slice(0, route.pattern.lastIndexOf('/'));
        const params = matchPattern(parentPattern, path);
        if (!params) continue;
        const parent = routes.find(
          (r: LegacyRoute) => r.shape === 'collection' && route.pattern.startsWith(`${r.pattern}/`),
        );
        const items = parent?.seed?.(params) ?? [];
        seeds.push(Object.fromEntries(items.map((i) => [String(i.id), i])));
      }
    }
  }
  return seeds;
}

function matchPattern(pattern: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const source = pattern
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(segment.slice(1));
      return '([^/]*)';
    })
    .join('/');
  const m = new RegExp(`^${source}$`).exec(path);
  return m ? Object.fromEntries(names.map((n, i) => [n, m[i + 1]])) : undefined;
}

function omit<T extends object>(value: T, keys: string[]): Json {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k)));
}

function sortedBy<T>(items: T[], key: (item: T) => string): T[] {
  return [...items].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** A deep copy with object keys sorted and `undefined` members dropped, as JSON would carry it. */
function canonical<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => sortKeys(v)));
}

function sortKeys(v: unknown): unknown {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(Object.entries(v as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function equalJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
