import type { ObservedView, Observer } from 'edgecheck/kit';
import { violation } from './envelope.ts';
import { sentJson, succeeded } from './observed.ts';

/*
 * What a zone or DNS record write or read answered against what its request named or sent, as
 * traffic shows it: each exchange alone, so nothing is remembered between them. The cases
 * (zones.case.yaml, dns-records.case.yaml) check the same in a run.
 */

export const ZONE = /^\/client\/v4\/zones\/([^/]+)$/;
export const RECORDS = /^\/client\/v4\/zones\/[^/]+\/dns_records$/;
export const RECORD = /^\/client\/v4\/zones\/[^/]+\/dns_records\/([^/]+)$/;

type Json = Record<string, unknown>;

/** The object a 2xx success answered as result, else undefined (a result of another shape is the resource clauses'). */
export function answeredObject(ex: ObservedView): Json | undefined {
  const result = succeeded(ex)?.result;
  return result && typeof result === 'object' && !Array.isArray(result) ? (result as Json) : undefined;
}

/** An observer of GETs of `path` answered with an object whose id is not the one the path names. */
export function idAsRequested(path: RegExp, what: string): Observer {
  return (ex) => {
    const id = ex.door === 'management' && ex.method === 'GET' ? path.exec(ex.path)?.[1] : undefined;
    const result = id === undefined ? undefined : answeredObject(ex);
    if (!result || result.id === undefined) return undefined;
    if (result.id !== decodeURIComponent(id as string))
      violation(`GET ${ex.path} answered ${what} with id ${JSON.stringify(result.id)}`);
    return true;
  };
}

/** The same value, where a number may be answered as the number sent in a string or the reverse. */
export const loosely = (a: unknown, b: unknown): boolean =>
  a === b || ((typeof a === 'number' || typeof a === 'string') && String(a) === String(b));

/**
 * A name answered for `sent`, in whichever form: the full name of a name sent relative to the zone,
 * or the relative one of a full name (which form it is, is mgmt.dns.name's to judge).
 */
function sameName(sent: string, answered: unknown): boolean {
  if (typeof answered !== 'string') return false;
  const [a, b] = [answered.toLowerCase(), sent.toLowerCase()];
  return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}

/**
 * Each field `fields` names that the request sent is answered as sent (a name in its full form, an
 * A record's content as the address sent); with `data` among them, each data field sent.
 */
export function answersSent(ex: ObservedView, sent: Json, record: Json, fields: string[]): void {
  const where = `${ex.method} ${ex.path}`;
  for (const field of fields) {
    if (field === 'data' || !(field in sent)) continue;
    if (field === 'content' && record.type !== 'A') continue;
    const ok =
      field === 'name' ? sameName(String(sent.name), record.name) : loosely(sent[field], record[field]);
    if (!ok)
      violation(
        `${where} sent ${field} ${JSON.stringify(sent[field])} but answered ${JSON.stringify(record[field])}`,
      );
  }
  const data = sent.data;
  if (!fields.includes('data') || !data || typeof data !== 'object') return;
  const answered = (record.data ?? {}) as Json;
  // A field not answered at all is the record type's data clause's (mgmt.dns.srv-data-fields, data).
  for (const [key, value] of Object.entries(data as Json))
    if (!DEPRECATED_DATA.has(key) && answered[key] !== undefined && !loosely(value, answered[key]))
      violation(
        `${where} sent data.${key} ${JSON.stringify(value)} but answered ${JSON.stringify(answered[key])}`,
      );
}

/** SRV data fields the service no longer produces (the dep.srv-name-fields rows judge them). */
const DEPRECATED_DATA = new Set(['service', 'proto', 'name']);

/** The record a successful write of `method` to `path` answered, with the JSON object it sent. */
export function recordWrite(
  ex: ObservedView,
  method: string,
  path: RegExp,
): { sent: Json; record: Json } | undefined {
  if (ex.door !== 'management' || ex.method !== method || !path.test(ex.path)) return undefined;
  const sent = sentJson(ex);
  const record = sent && answeredObject(ex);
  return record && sent ? { sent, record } : undefined;
}
