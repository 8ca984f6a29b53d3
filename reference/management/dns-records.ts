import type { ReferenceContext } from '../context.ts';
import { ApiError, CODES, notFound } from './api-error.ts';
import { relativeName, type StoredRecord, toResponse } from './dns-record-shape.ts';
import { fullName, type RecordFields, validateRecord } from './dns-record-validation.ts';
import { epochSeconds, newId, nowIso } from './ids.ts';
import { type ListSpec, paginate } from './pagination.ts';
import type { ApiRequest, Router } from './router.ts';
import { EOL, since } from './schedule.ts';
import { objectBody, requireZone } from './scope.ts';
import type { Json } from './store.ts';

const LIST: ListSpec<StoredRecord> = {
  orderBy: {
    type: (r) => r.type,
    name: (r) => r.name,
    content: (r) => r.content,
    ttl: (r) => r.ttl,
    proxied: (r) => r.proxied,
  },
  defaultOrder: 'type',
  defaultPerPage: 100,
  maxPerPage: 5000,
};

/** The list as an implementation that keeps names relative to the zone sorts it by name. */
const RELATIVE_LIST: ListSpec<StoredRecord> = {
  ...LIST,
  orderBy: { ...LIST.orderBy, name: (r) => relativeName(r.name, r.zone_name) },
};

function find(req: ApiRequest): StoredRecord {
  requireZone(req);
  const rec = req.state.dnsRecords.get(req.params.dns_record_id);
  if (!rec) throw notFound(`DNS record ${req.params.dns_record_id}`);
  return rec;
}

/** The fields a client controls, as a body: the starting point of a PATCH merge. */
function asBody(rec: StoredRecord): Json {
  const body: Json = {
    type: rec.type,
    name: rec.name,
    content: rec.content,
    ttl: rec.ttl,
    proxied: rec.proxied,
    comment: rec.comment,
    tags: rec.tags,
  };
  if (rec.data) body.data = rec.data;
  if (rec.priority !== undefined) body.priority = rec.priority;
  return body;
}

function apply(rec: StoredRecord, fields: RecordFields): void {
  Object.assign(rec, fields, { modified_on: nowIso() });
  if (!fields.data) delete rec.data;
  if (fields.priority === undefined) delete rec.priority;
}

/** SPEC: `locked` is ignored when sent by a client; the faults make it stick, or refuse it once retired. */
function lockedInput(ctx: ReferenceContext, body: Json): boolean | undefined {
  if ('locked' in body && since(ctx, EOL.lockedField) && ctx.faults.has('refuse-locked-input')) {
    throw ApiError.of(400, CODES.badRequest, "'locked' is no longer a field of a DNS record");
  }
  return ctx.faults.has('honor-locked-input') && body.locked === true ? true : undefined;
}

export function registerDnsRecords(router: Router): void {
  router.on('GET', '/zones/:zone_id/dns_records', (req) => {
    const zone = requireZone(req);
    const q = req.query;
    let all = [...req.state.dnsRecords.values()];
    const type = q.get('type');
    const name = q.get('name');
    const content = q.get('content');
    if (type) all = all.filter((r) => r.type === type.toUpperCase());
    if (name) all = all.filter((r) => r.name === fullName(name, zone.name));
    if (content) all = all.filter((r) => r.content === content);
    const relative = q.get('order') === 'name' && req.ctx.faults.has('relative-record-name');
    const page = paginate(req.ctx, all, q, relative ? RELATIVE_LIST : LIST);
    const result = page.items.map((r) => toResponse(req.ctx, r));
    // A lighter list view without proxiable.
    if (req.ctx.faults.has('dns-list-drops-proxiable')) for (const r of result) delete r.proxiable;
    return { result, resultInfo: page.info };
  });

  router.on('POST', '/zones/:zone_id/dns_records', (req) => {
    const zone = requireZone(req);
    const body = objectBody(req);
    const fields = validateRecord(req.ctx, zone.name, body);
    const now = nowIso();
    const rec: StoredRecord = {
      id: newId(),
      zone_id: zone.id,
      zone_name: zone.name,
      ...fields,
      created_on: now,
      modified_on: now,
    };
    const locked = lockedInput(req.ctx, body);
    if (locked) rec.locked = locked;
    req.state.dnsRecords.set(rec.id, rec);
    // Stored, but answered with its comment lost on the way out.
    const out = toResponse(req.ctx, rec);
    if (req.ctx.faults.has('dns-create-comment-null')) out.comment = null;
    return { result: out };
  });

  router.on('GET', '/zones/:zone_id/dns_records/:dns_record_id', (req) => {
    // A record not found answered as an empty success, as a lookup that finds nothing might.
    requireZone(req);
    if (!req.state.dnsRecords.has(req.params.dns_record_id) && req.ctx.faults.has('missing-record-200-null'))
      return { result: null };
    const out = toResponse(req.ctx, find(req), true);
    // The detail view leaves out type, or answers created_on as Unix seconds, where the list and writes
    // answer the full record.
    if (req.ctx.faults.has('dns-get-drops-type')) delete out.type;
    if (req.ctx.faults.has('dns-get-created-on-epoch')) out.created_on = epochSeconds(String(out.created_on));
    // The zone's id where the record's belongs: a field mix-up of the detail view.
    if (req.ctx.faults.has('dns-get-id-is-zone-id')) out.id = out.zone_id;
    if (req.ctx.faults.has('dns-get-result-null')) return { result: null };
    return { result: out };
  });

  router.on('PATCH', '/zones/:zone_id/dns_records/:dns_record_id', (req) => {
    const rec = find(req);
    const body = objectBody(req);
    // PATCH changes only the fields sent; the fault turns it into a replacement.
    const merged: Json = req.ctx.faults.has('patch-replaces-record')
      ? { type: rec.type, ...body }
      : { ...asBody(rec), ...body };
    // Under the fault PATCH changes top-level fields only and keeps the old data.
    if (body.data !== undefined && rec.data && req.ctx.faults.has('patch-ignores-data'))
      merged.data = rec.data;
    apply(rec, validateRecord(req.ctx, rec.zone_name, merged));
    const locked = lockedInput(req.ctx, body);
    if (locked) rec.locked = locked;
    return { result: toResponse(req.ctx, rec) };
  });

  router.on('PUT', '/zones/:zone_id/dns_records/:dns_record_id', (req) => {
    const rec = find(req);
    const body = objectBody(req);
    // PUT replaces the record: fields not sent return to their defaults. The faults merge like PATCH,
    // or keep the old name as if it could not change.
    let sent = body;
    if (req.ctx.faults.has('put-merges-record')) sent = { ...asBody(rec), ...body };
    if (req.ctx.faults.has('put-keeps-name')) sent = { ...sent, name: rec.name };
    apply(rec, validateRecord(req.ctx, rec.zone_name, sent));
    const locked = lockedInput(req.ctx, body);
    if (locked) rec.locked = locked;
    return { result: toResponse(req.ctx, rec) };
  });

  router.on('DELETE', '/zones/:zone_id/dns_records/:dns_record_id', (req) => {
    const rec = find(req);
    req.state.dnsRecords.delete(rec.id);
    return { result: { id: rec.id } };
  });
}
