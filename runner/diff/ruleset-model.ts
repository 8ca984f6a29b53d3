import { TargetError } from '../util/errors.ts';
import { type Normalized, normalizeJson } from './normalize.ts';
import {
  describeRuleset,
  type RulesetCommand,
  type RulesetIds,
  rulesetClauses,
  rulesetCommand,
  rulesetRequest,
  rulesetSequence,
  type Slot,
} from './ruleset-commands.ts';
import { type DiffModel, deleteEach, jsonSignatureOf } from './run-diff.ts';

interface RulesetState extends RulesetIds {
  /** This sequence's ruleset names: ec-<run>-r<n>-<slot>. */
  name: (slot: Slot) => string;
  sequence: string;
}

/** A side's own values (ids, clocks, refs) and what two implementations need not share. */
const OPAQUE = /^(id|ref|last_updated)$/;
const DROPPED = /^(messages|message|meta)$/;

/**
 * A listing holds every ruleset of the account: only this sequence's are compared, by name. A
 * ruleset's answer as it stands, its rules' ids kept by the side (rulesets and rules by position).
 */
function normalizeRuleset(
  res: Parameters<typeof normalizeJson>[0],
  state: RulesetState,
  list: boolean,
): Normalized {
  const own = (doc: unknown) => {
    const d = doc as { result?: unknown } | undefined;
    if (!list || !Array.isArray(d?.result)) return doc;
    const mine = (d.result as { name?: unknown }[])
      .filter((r) => typeof r?.name === 'string' && r.name.startsWith(state.sequence))
      .sort((a, b) => String(a.name).localeCompare(String(b.name)));
    return { ...d, result: mine };
  };
  return normalizeJson(res, {
    opaque: OPAQUE,
    dropped: DROPPED,
    names: [[state.sequence, '<seq>']],
    prepare: own,
    // The account's totals count other rulesets too.
    skip: list ? (path) => path.startsWith('/result_info') : undefined,
  });
}

/** Rule ids of a ruleset answer, in order. */
function ruleIds(doc: unknown): string[] | undefined {
  const rules = (doc as { result?: { rules?: unknown } } | undefined)?.result?.rules;
  if (!Array.isArray(rules)) return undefined;
  return rules.map((r) => (r as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string');
}

/** Account rulesets of the run's own, two per sequence, removed at its end. */
export function rulesetModel(runId: string): DiffModel<RulesetCommand, RulesetState> {
  return {
    command: rulesetCommand,
    sequence: rulesetSequence,
    describe: describeRuleset,
    clauses: (cmd, d) => rulesetClauses(cmd, d.a + d.b),
    signature: jsonSignatureOf,
    async setup(side) {
      if (!side.management?.accountId)
        throw new TargetError(`${side.name} has no management API with an account id`);
    },
    teardown: async () => undefined,
    state: (_side, n) => {
      const sequence = `ec-${runId}-r${n}`;
      return {
        sequence,
        rulesets: new Map(),
        extra: [],
        rules: new Map(),
        name: (slot) => `${sequence}-${slot}`,
      };
    },
    async perform(side, cmd, state, ask) {
      const req = rulesetRequest(cmd, side.management!.accountId!, state.name, state);
      // A ruleset or rule this side never made: nothing to send, and that is its answer.
      if (!req) return [{ status: -1, headers: {}, body: ['(no such ruleset or rule on this side)'] }];
      const res = await ask(side, { api: req });
      if (res.status === 200 && cmd.op !== 'list') {
        let doc: unknown;
        try {
          doc = res.json();
        } catch {
          doc = undefined;
        }
        const id = (doc as { result?: { id?: unknown } } | undefined)?.result?.id;
        // A second create of a slot keeps the first for later commands; both are removed at the end.
        if (cmd.op === 'create' && typeof id === 'string') {
          if (state.rulesets.has(cmd.slot)) state.extra.push(id);
          else state.rulesets.set(cmd.slot, id);
        }
        const rules = ruleIds(doc);
        if (rules && cmd.op !== 'create') state.rules.set(cmd.slot, rules);
      }
      return [normalizeRuleset(res, state, cmd.op === 'list')];
    },
    clear(side, state, ask) {
      // SPEC lists no removal of a ruleset: the service's DELETE is the one way; a side without it says so.
      const accountId = side.management!.accountId!;
      const made = [...state.rulesets.values(), ...state.extra].map((id) => ({
        what: `ruleset ${id}`,
        path: `/accounts/${accountId}/rulesets/${id}`,
      }));
      return deleteEach(side, ask, made);
    },
  };
}
