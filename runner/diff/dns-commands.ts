import fc from 'fast-check';
import type { ApiRequest } from '../model/case.ts';

/**
 * The management model the differential mode generates from: DNS records of one zone under three
 * labels, created, read, patched, replaced, listed and deleted. Each sequence names its records
 * under a prefix of its own; each target's record ids are its own.
 */
export const LABELS = ['a', 'b', 'c'] as const;
export type Label = (typeof LABELS)[number];

type RecordBody = { type: 'A' | 'AAAA' | 'TXT' | 'CNAME'; content: string; ttl: number };

export type DnsCommand =
  | { op: 'create'; label: Label; record: RecordBody }
  | { op: 'get'; label: Label }
  | { op: 'patch'; label: Label; ttl?: number; content?: string }
  | { op: 'put'; label: Label; record: RecordBody }
  | { op: 'delete'; label: Label }
  | { op: 'list'; perPage: number; page: number; order?: 'type' | 'name'; direction?: 'asc' | 'desc' };

const label = fc.constantFrom(...LABELS);
/** A record body the service accepts, or one with an off value (ttl 0, an address of another family). */
const record: fc.Arbitrary<RecordBody> = fc.oneof(
  fc.record({
    type: fc.constant('A' as const),
    content: fc.constantFrom('192.0.2.1', '198.51.100.7', '2001:db8::1'),
    ttl: fc.constantFrom(1, 60, 300, 0),
  }),
  fc.record({
    type: fc.constant('AAAA' as const),
    content: fc.constantFrom('2001:db8::1', '192.0.2.1'),
    ttl: fc.constantFrom(1, 300),
  }),
  fc.record({
    type: fc.constant('TXT' as const),
    content: fc.constantFrom('hello', '"quoted"', ''),
    ttl: fc.constantFrom(1, 120),
  }),
  fc.record({
    type: fc.constant('CNAME' as const),
    content: fc.constantFrom('example.net', 'target.example.org'),
    ttl: fc.constantFrom(1, 300),
  }),
);

export const dnsCommand: fc.Arbitrary<DnsCommand> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('create' as const), label, record }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('get' as const), label }), weight: 3 },
  {
    arbitrary: fc
      .record({
        op: fc.constant('patch' as const),
        label,
        ttl: fc.option(fc.constantFrom(1, 60, 3600), { nil: undefined }),
        content: fc.option(fc.constantFrom('192.0.2.99', 'changed'), { nil: undefined }),
      })
      .map((c) => Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)) as DnsCommand),
    weight: 3,
  },
  { arbitrary: fc.record({ op: fc.constant('put' as const), label, record }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('delete' as const), label }), weight: 1 },
  {
    arbitrary: fc
      .record({
        op: fc.constant('list' as const),
        perPage: fc.constantFrom(1, 5, 50),
        page: fc.constantFrom(1, 2),
        order: fc.option(fc.constantFrom('type' as const, 'name' as const), { nil: undefined }),
        direction: fc.option(fc.constantFrom('asc' as const, 'desc' as const), { nil: undefined }),
      })
      .map((c) => Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)) as DnsCommand),
    weight: 1,
  },
);

/** The request of a command; undefined when it names a record this side does not have (nothing is sent). */
export function dnsRequest(
  cmd: DnsCommand,
  zoneId: string,
  name: (label: Label) => string,
  ids: Map<Label, string>,
): ApiRequest | undefined {
  const base = `/zones/${zoneId}/dns_records`;
  switch (cmd.op) {
    case 'create':
      return { method: 'POST', path: base, body: { ...cmd.record, name: name(cmd.label) } };
    case 'list': {
      const query: Record<string, string> = { per_page: String(cmd.perPage), page: String(cmd.page) };
      if (cmd.order) query.order = cmd.order;
      if (cmd.direction) query.direction = cmd.direction;
      return { method: 'GET', path: base, query };
    }
    default: {
      const id = ids.get(cmd.label);
      if (!id) return undefined;
      if (cmd.op === 'get') return { method: 'GET', path: `${base}/${id}` };
      if (cmd.op === 'delete') return { method: 'DELETE', path: `${base}/${id}` };
      if (cmd.op === 'put')
        return { method: 'PUT', path: `${base}/${id}`, body: { ...cmd.record, name: name(cmd.label) } };
      const body: Record<string, unknown> = {};
      if (cmd.ttl !== undefined) body.ttl = cmd.ttl;
      if (cmd.content !== undefined) body.content = cmd.content;
      return { method: 'PATCH', path: `${base}/${id}`, body: body as ApiRequest['body'] };
    }
  }
}

export function describeDns(cmd: DnsCommand): string {
  switch (cmd.op) {
    case 'create':
    case 'put':
      return `${cmd.op.toUpperCase()} ${cmd.label} ${cmd.record.type} ${JSON.stringify(cmd.record.content)} ttl ${cmd.record.ttl}`;
    case 'patch':
      return `PATCH ${cmd.label}${cmd.ttl !== undefined ? ` ttl ${cmd.ttl}` : ''}${cmd.content !== undefined ? ` content ${JSON.stringify(cmd.content)}` : ''}`;
    case 'list':
      return `LIST per_page=${cmd.perPage} page=${cmd.page}${cmd.order ? ` order=${cmd.order}` : ''}${cmd.direction ? ` direction=${cmd.direction}` : ''}`;
    default:
      return `${cmd.op.toUpperCase()} ${cmd.label}`;
  }
}

/** The clauses that decide a command's answer (SPEC's DNS record endpoints and fields). */
export function dnsClauses(cmd: DnsCommand, aspect: string): string[] {
  // A record's own fields and their types, whichever endpoint answered it.
  const fields = /\/result\//.test(aspect) ? ['mgmt.dns.record-fields'] : [];
  const name = /\/name\b/.test(aspect) ? ['mgmt.dns.name'] : [];
  switch (cmd.op) {
    case 'create':
      return ['mgmt.dns.create', ...fields, ...name];
    case 'get':
      return ['mgmt.dns.get', ...fields, ...name];
    case 'patch':
      return ['mgmt.dns.patch', ...fields, ...name];
    case 'put':
      return ['mgmt.dns.put', ...fields, ...name];
    case 'list':
      return ['mgmt.dns.list', 'mgmt.result-info.fields', ...fields];
    case 'delete':
      return [];
  }
}
