import type { ReferenceContext } from '../context.ts';
import { EOL, since } from './schedule.ts';
import type { Json } from './shapes.ts';

/** A DNS record as the reference keeps it; `toResponse` renders it for the as-of date. */
export interface StoredRecord {
  id: string;
  zone_id: string;
  zone_name: string;
  name: string;
  type: string;
  content: string;
  data?: Json;
  priority?: number;
  ttl: number;
  proxied: boolean;
  comment: string | null;
  tags: string[];
  created_on: string;
  modified_on: string;
  /** Only ever set under the `honor-locked-input` fault: SPEC says locked is always false. */
  locked?: boolean;
}

export const PROXIABLE_TYPES = new Set(['A', 'AAAA', 'CNAME']);

/** Splits `_sip._tcp.example.com` into the deprecated SRV data fields (SPEC: DNS record, SRV). */
function srvNameFields(name: string): Json {
  const [service, proto, ...rest] = name.split('.');
  return { service, proto, name: rest.join('.') };
}

/** A record as answered; `detail` for the answer of GET of one record. */
export function toResponse(ctx: ReferenceContext, rec: StoredRecord, detail = false): Json {
  const out: Json = {
    id: rec.id,
    zone_id: rec.zone_id,
    zone_name: rec.zone_name,
    name: ctx.faults.has('relative-record-name')
      ? relativeName(rec.name, rec.zone_name)
      : ctx.faults.has('name-trailing-dot')
        ? `${rec.name}.`
        : rec.name,
    type: rec.type,
    content: rec.content,
    proxiable: PROXIABLE_TYPES.has(rec.type),
    proxied: rec.proxied,
    ttl: rec.ttl,
    settings: {},
    meta: { auto_added: false, managed_by_apps: false, managed_by_argo_tunnel: false },
    comment: rec.comment,
    tags: [...rec.tags],
    created_on: rec.created_on,
    modified_on: rec.modified_on,
  };
  if (ctx.faults.has('dns-record-drop-proxiable')) delete out.proxiable;
  if (ctx.faults.has('dns-ttl-as-string')) out.ttl = String(rec.ttl);
  if (rec.priority !== undefined) out.priority = rec.priority;
  if (rec.data) {
    const data: Json = { ...rec.data };
    if (rec.type === 'SRV') {
      const early = !since(ctx, EOL.srvNameFields);
      // After the date, the old template (everywhere, or in the detail view only) still fills them in.
      const produceSrvNames = early
        ? !ctx.faults.has('hide-srv-name-fields-early')
        : ctx.faults.has('produce-srv-name-fields') ||
          (detail && ctx.faults.has('produce-srv-name-fields-on-get'));
      if (produceSrvNames) Object.assign(data, srvNameFields(rec.name));
      // Before the date, data.name answered as the full record name instead of the part after service and proto.
      if (produceSrvNames && early && ctx.faults.has('srv-data-name-full-early')) data.name = rec.name;
      if (ctx.faults.has('srv-data-drops-port')) delete data.port;
      if (ctx.faults.has('srv-data-port-string')) data.port = String(data.port);
    }
    // CAA flags as the zone-file text, or CAA answered in content only.
    if (rec.type === 'CAA' && ctx.faults.has('caa-flags-string')) data.flags = String(data.flags);
    out.data = data;
    if (rec.type === 'CAA' && ctx.faults.has('caa-content-only')) delete out.data;
  }
  const lockedLive = since(ctx, EOL.lockedField)
    ? ctx.faults.has('keep-locked-field')
    : !ctx.faults.has('drop-locked-field-early');
  if (lockedLive) out.locked = rec.locked ?? false;
  // The flag as text, as a serializer that writes every field as a string might.
  if (out.locked === false && ctx.faults.has('locked-as-string')) out.locked = 'false' as unknown as boolean;
  // Under the fault a stored lock shows whatever the date.
  if (rec.locked) out.locked = true;
  return out;
}

export function relativeName(name: string, zone: string): string {
  if (name === zone) return '@';
  return name.endsWith(`.${zone}`) ? name.slice(0, -(zone.length + 1)) : name;
}
