import type { ObservedView, PropertyDef } from 'edgecheck/kit';
import { mustHaveRefused, violation } from '../../management/properties/support/envelope.ts';
import { refusalObserver, sentJson, succeeded } from '../../management/properties/support/observed.ts';

/*
 * The DNS record rows of the deprecation schedule (locked, 2024-07-14; SRV name data fields,
 * 2024-05-31) as traffic shows them: what a request sent against what its answer holds, which no
 * `when` of clauses.yaml selects. Their cases (dns-locked.case.yaml, srv-name-fields.case.yaml)
 * check them in a run; these only observe.
 */

const COLLECTION = /^\/client\/v4\/zones\/[^/]+\/dns_records$/;
// A record's own path, not the list's other routes.
const RECORD = /^\/client\/v4\/zones\/[^/]+\/dns_records\/(?!(?:export|import|batch|scan)$)[^/]+$/;

/** A write of one record: POST of the list, PATCH or PUT of a record (the row's endpoints). */
function recordWrite(ex: ObservedView): boolean {
  if (ex.door !== 'management') return false;
  if (ex.method === 'POST') return COLLECTION.test(ex.path);
  return (ex.method === 'PATCH' || ex.method === 'PUT') && RECORD.test(ex.path);
}

/** An answer of the row's five endpoints: the writes, and the GETs of the list and of a record. */
function recordAnswer(ex: ObservedView): boolean {
  return (
    recordWrite(ex) ||
    (ex.door === 'management' && ex.method === 'GET' && (COLLECTION.test(ex.path) || RECORD.test(ex.path)))
  );
}

interface RecordView {
  id?: unknown;
  type?: unknown;
  name?: unknown;
  locked?: unknown;
  data?: Record<string, unknown>;
}

const lockedIgnored: PropertyDef = {
  id: 'dep.dns-locked.ignored-observed',
  title: 'A record written with locked: true is answered not locked',
  clauses: ['dep.dns-locked.ignored'],
  observe: {
    selects: 'DNS record POST, PATCH and PUT sending locked: true, answered 2xx',
    observer: () => (ex) => {
      if (!recordWrite(ex) || sentJson(ex)?.locked !== true) return undefined;
      const record = succeeded(ex)?.result as RecordView | null | undefined;
      // The record answered is the one written: a precondition, as in the case.
      if (typeof record?.id !== 'string') return undefined;
      if (record.locked === true)
        violation(`${ex.method} ${ex.path} sent locked: true, and the record answered is locked`);
      return true;
    },
  },
};

const NAME_FIELDS = ['service', 'proto', 'name'];

/** A DNS name as compared: letters' case and a final dot aside. */
const dnsName = (n: string) => n.toLowerCase().replace(/\.$/, '');

const produced: PropertyDef = {
  id: 'dep.srv-name-fields.produced-observed',
  title: 'SRV records are answered with service, proto and name in data, spelling the record name',
  clauses: ['dep.srv-name-fields.produced'],
  observe: {
    selects: 'SRV records answered 2xx by the five DNS record endpoints, lists included',
    observer: () => (ex) => {
      if (!recordAnswer(ex)) return undefined;
      const result = succeeded(ex)?.result;
      const records = (Array.isArray(result) ? result : [result]) as (RecordView | null)[];
      let judged = false;
      for (const r of records) {
        if (r?.type !== 'SRV' || typeof r.name !== 'string') continue;
        const [service, proto, name] = NAME_FIELDS.map((f) => r.data?.[f]);
        const spelled = [service, proto, name].every((v) => typeof v === 'string')
          ? `${service}.${proto}.${name}`
          : undefined;
        if (spelled === undefined || dnsName(spelled) !== dnsName(r.name)) {
          violation(
            `${ex.method} ${ex.path}: SRV record ${r.name} answers data service ${JSON.stringify(service)}, proto ${JSON.stringify(proto)}, name ${JSON.stringify(name)}`,
          );
        }
        judged = true;
      }
      return judged;
    },
  },
};

const rejected: PropertyDef = {
  id: 'dep.srv-name-fields.rejected-observed',
  title: 'SRV data holding service, proto or name is refused',
  clauses: ['dep.srv-name-fields.rejected'],
  observe: {
    selects:
      'DNS record POST, PATCH and PUT of an SRV record whose data holds service, proto or name, accepted',
    observer: () =>
      refusalObserver((ex) => {
        if (!recordWrite(ex)) return undefined;
        const body = sentJson(ex);
        const data = body?.data;
        if (!data || typeof data !== 'object') return undefined;
        const sent = NAME_FIELDS.filter((f) => Object.hasOwn(data, f));
        // A PATCH need not name the type: the record answered does.
        const type = body.type ?? (succeeded(ex)?.result as RecordView | null | undefined)?.type;
        return sent.length && type === 'SRV' ? `SRV data held ${sent.join(', ')}` : undefined;
      }, mustHaveRefused),
  },
};

export default [lockedIgnored, produced, rejected] satisfies PropertyDef[];
