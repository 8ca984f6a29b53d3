import type { StepResponse } from '../transports/response.ts';
import { TargetError } from '../util/errors.ts';
import {
  type DnsCommand,
  describeDns,
  dnsClauses,
  dnsCommand,
  dnsRequest,
  type Label,
} from './dns-commands.ts';
import { type Normalized, normalizeJson } from './normalize.ts';
import { type DiffModel, deleteEach, jsonSignatureOf } from './run-diff.ts';

interface DnsState {
  /** This sequence's record names: ec-<run>-s<n>-<label>.<zone>. */
  name: (label: Label) => string;
  ids: Map<Label, string>;
  zone: string;
  sequence: string;
}

/** Fields whose value is the side's own (ids, clocks) or says nothing two implementations share. */
const OPAQUE = /^(id|zone_id|zone_name|created_on|modified_on|comment_modified_on|tags_modified_on)$/;
const DROPPED = /^(meta|messages|message|settings|tags|comment|proxiable|proxied)$/;

/**
 * A DNS answer without what differs between two zones: record ids and clocks as their kind, the
 * zone's name and the sequence's prefix as placeholders, error messages dropped (codes kept), and
 * a listing's records and totals dropped (two zones hold other records).
 */
function normalizeDns(res: StepResponse, state: DnsState, list: boolean): Normalized {
  return normalizeJson(res, {
    opaque: OPAQUE,
    dropped: DROPPED,
    names: [
      [state.zone, '<zone>'],
      [state.sequence, '<seq>'],
    ],
    skip: list
      ? (path) => path === '/result' || /^\/result_info\/(count|total_count|total_pages)$/.test(path)
      : undefined,
  });
}

/** DNS records of each side's zone, three labels per sequence, removed at its end. */
export function dnsModel(runId: string): DiffModel<DnsCommand, DnsState> {
  const zones = new Map<string, string>();
  return {
    command: dnsCommand,
    describe: describeDns,
    clauses: (cmd, d) => dnsClauses(cmd, d.a + d.b),
    signature: jsonSignatureOf,
    async setup(side, send) {
      const m = side.management;
      if (!m?.zoneId) throw new TargetError(`${side.name} has no management API with a zone id`);
      const zone = await send(side, { api: { method: 'GET', path: `/zones/${m.zoneId}` } });
      const name =
        zone.status === 200 ? (zone.json() as { result?: { name?: unknown } }).result?.name : undefined;
      if (typeof name !== 'string') {
        throw new TargetError(`${side.name}: could not read zone ${m.zoneId} (status ${zone.status})`);
      }
      zones.set(side.name, name);
    },
    teardown: async () => undefined,
    state: (side, n) => {
      const zone = zones.get(side.name)!;
      const sequence = `ec-${runId}-s${n}`;
      return { zone, sequence, ids: new Map(), name: (label) => `${sequence}-${label}.${zone}` };
    },
    async perform(side, cmd, state, ask) {
      const req = dnsRequest(cmd, side.management!.zoneId!, state.name, state.ids);
      // A record this side never created: nothing to send, and that is its answer.
      if (!req) return [{ status: -1, headers: {}, body: ['(no such record on this side)'] }];
      const res = await ask(side, { api: req });
      if (cmd.op === 'create' && res.status === 200) {
        const id = (res.json() as { result?: { id?: unknown } }).result?.id;
        // A second create of a label keeps the first id for reads; both are removed at the end.
        if (typeof id === 'string') {
          if (state.ids.has(cmd.label)) state.ids.set(`${cmd.label}#${id}` as Label, id);
          else state.ids.set(cmd.label, id);
        }
      }
      if (cmd.op === 'delete' && res.status < 300) state.ids.delete(cmd.label);
      return [normalizeDns(res, state, cmd.op === 'list')];
    },
    clear(side, state, ask) {
      const zoneId = side.management!.zoneId!;
      const made = [...state.ids.values()].map((id) => ({
        what: `DNS record ${id}`,
        path: `/zones/${zoneId}/dns_records/${id}`,
      }));
      return deleteEach(side, ask, made);
    },
  };
}
