import type { StoredRecord } from './dns-record-shape.ts';
import { newId } from './ids.ts';
import type { Zone } from './shapes.ts';

/** A few records present in every fresh reference zone. */
export function seedDnsRecords(zone: Zone, on: string): Map<string, StoredRecord> {
  const base = {
    zone_id: zone.id,
    zone_name: zone.name,
    proxied: false,
    comment: null,
    tags: [] as string[],
  };
  const records: StoredRecord[] = [
    {
      ...base,
      id: newId(),
      name: zone.name,
      type: 'A',
      content: '192.0.2.1',
      ttl: 1,
      proxied: true,
      created_on: on,
      modified_on: on,
    },
    {
      ...base,
      id: newId(),
      name: `www.${zone.name}`,
      type: 'CNAME',
      content: zone.name,
      ttl: 1,
      proxied: true,
      created_on: on,
      modified_on: on,
    },
    {
      ...base,
      id: newId(),
      name: zone.name,
      type: 'MX',
      content: `mail.${zone.name}`,
      priority: 10,
      ttl: 3600,
      created_on: on,
      modified_on: on,
    },
    {
      ...base,
      id: newId(),
      name: zone.name,
      type: 'TXT',
      content: '"v=spf1 -all"',
      ttl: 3600,
      created_on: on,
      modified_on: on,
    },
    {
      ...base,
      id: newId(),
      name: `_sip._tcp.${zone.name}`,
      type: 'SRV',
      content: `5 5060 sip.${zone.name}`,
      priority: 10,
      data: { priority: 10, weight: 5, port: 5060, target: `sip.${zone.name}` },
      ttl: 3600,
      created_on: on,
      modified_on: on,
    },
  ];
  return new Map(records.map((r) => [r.id, r]));
}
