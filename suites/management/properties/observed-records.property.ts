import type { PropertyDef } from 'edgecheck/kit';
import { violation } from './support/envelope.ts';
import {
  answersSent,
  idAsRequested,
  loosely,
  RECORD,
  RECORDS,
  recordWrite,
  ZONE,
} from './support/observed-records.ts';

/*
 * A zone or DNS record answered is the one requested, and a record written answers what was sent,
 * as traffic shows it: each exchange against its own request. The cases (zones.case.yaml,
 * dns-records.case.yaml) check the same in a run; these only observe.
 */

const zoneId: PropertyDef = {
  id: 'mgmt.zones.id-observed',
  title: 'A zone read answers the zone whose id the path names',
  clauses: ['mgmt.zones.id'],
  observe: {
    selects: 'GETs of /zones/{id} answered 2xx with a zone holding an id',
    observer: () => idAsRequested(ZONE, 'a zone'),
  },
};

const recordGet: PropertyDef = {
  id: 'mgmt.dns.get-observed',
  title: 'A read of one DNS record answers the record whose id the path names',
  clauses: ['mgmt.dns.get'],
  observe: {
    selects: 'GETs of dns_records/{id} answered 2xx with a record holding an id',
    observer: () => idAsRequested(RECORD, 'a record'),
  },
};

const recordCreate: PropertyDef = {
  id: 'mgmt.dns.create-observed',
  title: 'A DNS record creation answers the record created, with an id and the comment and ttl sent',
  clauses: ['mgmt.dns.create'],
  observe: {
    selects: 'POSTs of dns_records with a JSON body answered 2xx with a record',
    observer: () => (ex) => {
      const write = recordWrite(ex, 'POST', RECORDS);
      if (!write) return undefined;
      const id = write.record.id;
      if (typeof id !== 'string' || id === '') violation(`POST ${ex.path} answered id ${JSON.stringify(id)}`);
      answersSent(ex, write.sent, write.record, ['comment', 'ttl']);
      return true;
    },
  },
};

const recordPatch: PropertyDef = {
  id: 'mgmt.dns.patch-observed',
  title: 'A PATCH of a DNS record answers each field it sent as sent',
  clauses: ['mgmt.dns.patch'],
  observe: {
    selects: 'PATCHes of dns_records/{id} with a JSON body answered 2xx with a record',
    observer: () => (ex) => {
      const write = recordWrite(ex, 'PATCH', RECORD);
      if (!write) return undefined;
      answersSent(ex, write.sent, write.record, ['name', 'content', 'ttl', 'proxied', 'comment', 'data']);
      return true;
    },
  },
};

/** What a record replaced without them holds of fields that carry no default: none, or empty. */
const NOT_SENT: Record<string, unknown[]> = { comment: [undefined, null, ''], tags: [undefined, null] };

const recordPut: PropertyDef = {
  id: 'mgmt.dns.put-observed',
  title: 'A PUT of a DNS record answers the fields sent, and no comment or tags it did not send',
  clauses: ['mgmt.dns.put'],
  observe: {
    selects: 'PUTs of dns_records/{id} with a JSON body answered 2xx with a record',
    observer: () => (ex) => {
      const write = recordWrite(ex, 'PUT', RECORD);
      if (!write) return undefined;
      const { sent, record } = write;
      answersSent(ex, sent, record, ['name', 'content', 'ttl', 'proxied', 'comment', 'data']);
      for (const [field, none] of Object.entries(NOT_SENT)) {
        const kept = record[field];
        const empty = none.includes(kept) || (Array.isArray(kept) && kept.length === 0);
        if (!(field in sent) && !empty)
          violation(`PUT ${ex.path} sent no ${field} but answered ${JSON.stringify(kept)}`);
      }
      return true;
    },
  },
};

const SRV_FIELDS = ['priority', 'weight', 'port', 'target'];

const srvData: PropertyDef = {
  id: 'mgmt.dns.srv-data-observed',
  title: 'An SRV record written answers the data priority, weight, port and target sent',
  clauses: ['mgmt.dns.srv-data-fields'],
  observe: {
    selects: 'POSTs, PUTs and PATCHes of SRV dns_records with data, answered 2xx with an SRV record',
    observer: () => (ex) => {
      const write =
        recordWrite(ex, 'POST', RECORDS) ??
        recordWrite(ex, 'PUT', RECORD) ??
        recordWrite(ex, 'PATCH', RECORD);
      if (!write) return undefined;
      const sent = write.sent.data as Record<string, unknown> | undefined;
      if (write.record.type !== 'SRV' || !sent || typeof sent !== 'object') return undefined;
      const data = (write.record.data ?? {}) as Record<string, unknown>;
      for (const field of SRV_FIELDS.filter((f) => f in sent)) {
        const want = sent[field];
        const got = data[field];
        // A number kept a number; the value a PATCH changed is mgmt.dns.patch's to judge.
        const ok =
          typeof want === 'number' && typeof got !== 'number'
            ? false
            : ex.method === 'PATCH' || loosely(want, got);
        if (!ok)
          violation(
            `${ex.method} ${ex.path} sent data.${field} ${JSON.stringify(want)} but answered ${JSON.stringify(got)}`,
          );
      }
      return true;
    },
  },
};

export default [zoneId, recordGet, recordCreate, recordPatch, recordPut, srvData] satisfies PropertyDef[];
