import { isIPv4, isIPv6 } from 'node:net';
import type { ReferenceContext } from '../context.ts';
import { ApiError, CODES, type ErrorObject } from './api-error.ts';
import { PROXIABLE_TYPES } from './dns-record-shape.ts';
import { EOL, since } from './schedule.ts';
import type { Json } from './store.ts';

/** The fields of a record a client controls, after normalisation. */
export interface RecordFields {
  type: string;
  name: string;
  content: string;
  data?: Json;
  priority?: number;
  ttl: number;
  proxied: boolean;
  comment: string | null;
  tags: string[];
}

export const RECORD_TYPES = new Set(['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'NS', 'SRV', 'CAA', 'PTR']);
const CAA_TAGS = new Set(['issue', 'issuewild', 'iodef']);
const LABEL = /^(\*|[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)$/;

class RootCause extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * SPEC Errors 2: before 2024-10-01 a validation failure is code 1004 `DNS Validation Error` wrapping the
 * root cause in error_chain; from that date the root cause itself is the error.
 */
function validationError(ctx: ReferenceContext, cause: RootCause): ApiError {
  const root: ErrorObject = { code: cause.code, message: cause.message };
  const chained = since(ctx, EOL.dnsErrorChain)
    ? ctx.faults.has('keep-error-chain')
    : !ctx.faults.has('drop-error-chain-early');
  if (!chained) {
    // The wrapper's code kept on the root cause: neither the old answer nor the new one.
    if (ctx.faults.has('root-cause-wrapper-code')) root.code = CODES.dnsValidation;
    // The root cause's code as a string once it is answered on its own.
    if (ctx.faults.has('root-cause-code-string')) root.code = String(root.code) as unknown as number;
    return new ApiError(400, [root]);
  }
  return new ApiError(400, [
    { code: CODES.dnsValidation, message: 'DNS Validation Error', error_chain: [root] },
  ]);
}

/** The zone-file form `priority weight port target`, as a lenient server might read it. */
function srvDataFromText(text: string): Json {
  const [priority, weight, port, target] = text.trim().split(/\s+/);
  return { priority: Number(priority), weight: Number(weight), port: Number(port), target };
}

function isHostname(value: string): boolean {
  const host = value.replace(/\.$/, '').toLowerCase();
  return host.length > 0 && host.length <= 253 && host.split('.').every((l) => LABEL.test(l));
}

/** `name` is the full record name; a bare label or `@` is completed with the zone name. */
export function fullName(raw: string, zone: string): string {
  const name = raw.trim().replace(/\.$/, '').toLowerCase();
  if (name === '@' || name === '') return zone;
  if (name === zone || name.endsWith(`.${zone}`)) return name;
  return `${name}.${zone}`;
}

function uint(value: unknown, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max;
}

/** Validates a full record body (POST, PUT, or the merged result of a PATCH). */
export function validateRecord(ctx: ReferenceContext, zone: string, body: Json): RecordFields {
  try {
    return check(ctx, zone, body);
  } catch (err) {
    if (err instanceof RootCause) throw validationError(ctx, err);
    throw err;
  }
}

function check(ctx: ReferenceContext, zone: string, body: Json): RecordFields {
  const type = typeof body.type === 'string' ? body.type.toUpperCase() : undefined;
  if (!type) throw new RootCause(9021, 'Invalid or missing record type');
  if (!RECORD_TYPES.has(type)) throw new RootCause(9021, `Unsupported record type '${String(body.type)}'`);
  const base = commonFields(type, body);

  let rawName = typeof body.name === 'string' ? body.name : undefined;
  const data =
    type === 'SRV' && typeof body.data === 'string' && ctx.faults.has('accept-srv-data-text')
      ? srvDataFromText(body.data)
      : body.data;
  if (data !== undefined && (typeof data !== 'object' || data === null || Array.isArray(data))) {
    throw new RootCause(9101, 'data must be an object');
  }
  const d = (data ?? {}) as Json;
  if (type === 'SRV') rawName = srvLegacyName(ctx, zone, d, rawName);
  if (rawName === undefined) throw new RootCause(9000, 'DNS name is invalid: name is required');
  const name = fullName(rawName, zone);
  if (!isHostname(name)) throw new RootCause(9000, `DNS name '${rawName}' is invalid`);
  return typedFields(base, name, body, d);
}

/** The fields every record has, whatever its type: TTL, proxied, comment and tags. */
function commonFields(type: string, body: Json): Omit<RecordFields, 'name' | 'content'> {
  const ttl = body.ttl ?? 1;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || (ttl !== 1 && (ttl < 30 || ttl > 86400))) {
    throw new RootCause(9020, 'Invalid TTL. Must be between 30 and 86400 seconds, or 1 for Automatic');
  }
  const proxied = body.proxied ?? false;
  if (typeof proxied !== 'boolean') throw new RootCause(9003, "Invalid 'proxied' value, must be a boolean");
  if (proxied && !PROXIABLE_TYPES.has(type)) throw new RootCause(9004, 'This record type cannot be proxied.');
  const comment = body.comment ?? null;
  if (comment !== null && typeof comment !== 'string') throw new RootCause(9102, 'comment must be a string');
  const tags = body.tags ?? [];
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) {
    throw new RootCause(9102, 'tags must be an array of strings');
  }

  return { type, ttl, proxied, comment, tags: [...(tags as string[])] };
}

/**
 * The name an SRV record's data fields service, proto and name spell, before their end of life;
 * after it they are refused (with the compatibility shim and the faults around the date).
 */
function srvLegacyName(
  ctx: ReferenceContext,
  zone: string,
  d: Json,
  rawName: string | undefined,
): string | undefined {
  const legacy = ['service', 'proto', 'name'].filter((k) => k in d);
  if (legacy.length > 0) {
    const after = since(ctx, EOL.srvNameFields);
    let retired = after
      ? !ctx.faults.has('accept-srv-name-fields')
      : ctx.faults.has('reject-srv-name-fields-early');
    // After the date, fields that spell the outer name accepted as a compatibility shim.
    if (
      after &&
      retired &&
      typeof d.service === 'string' &&
      typeof d.proto === 'string' &&
      typeof d.name === 'string' &&
      typeof rawName === 'string' &&
      fullName(rawName, zone) === `${d.service}.${d.proto}.${fullName(d.name, zone)}` &&
      ctx.faults.has('accept-srv-name-fields-matching-name')
    )
      retired = false;
    // Before the date, data.name refused as a duplicate of the outer name.
    if (!after && 'name' in d && ctx.faults.has('reject-srv-data-name-early')) retired = true;
    if (retired) {
      throw new RootCause(
        9105,
        `SRV data fields ${legacy.join(', ')} are no longer supported; put the full name in the record's name`,
      );
    }
    // Before their end of life the three fields could still spell the record name.
    if (typeof d.service === 'string' && typeof d.proto === 'string' && typeof d.name === 'string') {
      rawName = `${d.service}.${d.proto}.${fullName(d.name, zone)}`;
    }
  }
  return rawName;
}

/** The content of a record of each type, checked and written as the API answers it. */
function typedFields(
  base: Omit<RecordFields, 'name' | 'content'>,
  name: string,
  body: Json,
  d: Json,
): RecordFields {
  const { type } = base;
  const content = typeof body.content === 'string' ? body.content.trim() : undefined;
  switch (type) {
    case 'A':
      if (!content || !isIPv4(content)) {
        throw new RootCause(9005, 'Content for A record must be a valid IPv4 address.');
      }
      return { ...base, name, content };
    case 'AAAA':
      if (!content || !isIPv6(content)) {
        throw new RootCause(9006, 'Content for AAAA record must be a valid IPv6 address.');
      }
      return { ...base, name, content };
    case 'CNAME':
    case 'NS':
    case 'PTR':
      if (!content || !isHostname(content)) {
        throw new RootCause(9007, `Content for ${type} record is invalid. Must be a valid hostname.`);
      }
      return { ...base, name, content: content.replace(/\.$/, '') };
    case 'TXT':
      if (content === undefined || content.length === 0 || content.length > 2048) {
        throw new RootCause(9008, 'Content for TXT record must be between 1 and 2048 characters.');
      }
      return { ...base, name, content };
    case 'MX': {
      const priority = body.priority;
      if (!uint(priority, 65535))
        throw new RootCause(9100, 'MX records require a priority between 0 and 65535.');
      if (!content || !isHostname(content)) {
        throw new RootCause(9007, 'Content for MX record must be a valid hostname.');
      }
      return { ...base, name, content: content.replace(/\.$/, ''), priority };
    }
    case 'SRV': {
      for (const field of ['priority', 'weight', 'port'] as const) {
        if (!uint(d[field], 65535))
          throw new RootCause(9101, `SRV data.${field} must be an integer 0-65535.`);
      }
      if (typeof d.target !== 'string' || !isHostname(d.target === '.' ? 'x' : d.target)) {
        throw new RootCause(9101, 'SRV data.target must be a valid hostname.');
      }
      if (!name.split('.')[0].startsWith('_') || !name.split('.')[1]?.startsWith('_')) {
        throw new RootCause(9101, 'SRV record name must have the form _service._proto.name');
      }
      const target = d.target.replace(/\.$/, '') || '.';
      const srv = {
        priority: d.priority as number,
        weight: d.weight as number,
        port: d.port as number,
        target,
      };
      return {
        ...base,
        name,
        content: `${srv.weight} ${srv.port} ${target}`,
        data: srv,
        priority: srv.priority,
      };
    }
    case 'CAA': {
      if (!uint(d.flags, 255)) throw new RootCause(9102, 'CAA data.flags must be an integer 0-255.');
      if (typeof d.tag !== 'string' || !CAA_TAGS.has(d.tag)) {
        throw new RootCause(9102, 'CAA data.tag must be one of issue, issuewild, iodef.');
      }
      if (typeof d.value !== 'string') throw new RootCause(9102, 'CAA data.value must be a string.');
      const caa = { flags: d.flags as number, tag: d.tag, value: d.value };
      return { ...base, name, content: `${caa.flags} ${caa.tag} "${caa.value}"`, data: caa };
    }
    default:
      throw new RootCause(9021, `Unsupported record type '${type}'`);
  }
}
