import type { ReferenceContext } from '../context.ts';
import { seedCertificatePacks } from './certificate-pack-seed.ts';
import { seedDnsRecords } from './dns-record-seed.ts';
import type { StoredRecord } from './dns-record-shape.ts';
import { seedInvites } from './invite-seed.ts';
import type { Ruleset } from './ruleset-shape.ts';
import { EOL } from './schedule.ts';
import type { Json, Zone } from './shapes.ts';

export type { Json, Zone };

/** Everything one reference server remembers. In memory; one instance per server. */
export interface State {
  zone: Zone;
  dnsRecords: Map<string, StoredRecord>;
  rulesets: Map<string, Ruleset>;
  logpushJobs: Map<number, Json>;
  nextLogpushJobId: number;
  certificatePacks: Json[];
  invites: Map<string, Json>;
  /** `previous`: the value the last PATCH replaced (a fault answers it to GET). */
  zoneSettings: Map<string, { value: unknown; modified_on: string | null; previous?: unknown }>;
  dnsSettings: Json;
  migrations: Map<string, Json>;
  /** Collections behind the retired endpoints, keyed by collection path pattern and parent ids. */
  legacy: Map<string, Map<string, Json>>;
}

export const ZONE_NAME = 'example.com';
const SEEDED_ON = '2020-01-01T00:00:00.000000Z';

export function createState(ctx: ReferenceContext): State {
  const zone: Zone = {
    id: ctx.ids.zoneId,
    name: ZONE_NAME,
    accountId: ctx.ids.accountId,
    createdOn: SEEDED_ON,
  };
  return {
    zone,
    dnsRecords: seedDnsRecords(zone, SEEDED_ON),
    rulesets: new Map(),
    logpushJobs: new Map(),
    nextLogpushJobId: 1,
    certificatePacks: seedCertificatePacks(ctx, zone),
    invites: seedInvites(ctx),
    // A zone on a service that no longer accepts medium would have been moved off it.
    zoneSettings: new Map(
      ctx.asOf >= EOL.securityLevel ? [['security_level', { value: 'off', modified_on: null }]] : [],
    ),
    dnsSettings: {
      flatten_all_cnames: false,
      foundation_dns: false,
      multi_provider: false,
      ns_ttl: 86400,
      secondary_overrides: false,
      zone_mode: 'standard',
      nameservers: { type: 'cloudflare.standard' },
      soa: {
        mname: 'kristina.ns.example.net',
        rname: 'dns.example.net',
        refresh: 10000,
        retry: 2400,
        expire: 604800,
        min_ttl: 1800,
        ttl: 3600,
      },
    },
    migrations: new Map(),
    legacy: new Map(),
  };
}
