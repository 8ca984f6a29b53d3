import fc from 'fast-check';
import type { ApiRequest } from '../model/case.ts';

/**
 * The rulesets model of the differential mode: account rulesets of the run's own (a zone holds one
 * ruleset per phase, which a live zone may have taken), created, replaced (PUT), given a rule,
 * their rules patched, and listed. Each sequence names its rulesets under a prefix of its own and
 * keeps each side's ids.
 */
export const SLOTS = ['x', 'y'] as const;
export type Slot = (typeof SLOTS)[number];

type RuleBody = { action: string; expression: string; description?: string; enabled?: boolean };

export type RulesetCommand =
  | { op: 'create'; slot: Slot; kind: 'custom' | 'zone'; phase: string }
  | { op: 'replace'; slot: Slot; rules: RuleBody[] }
  | { op: 'add-rule'; slot: Slot; rule: RuleBody }
  | { op: 'patch-rule'; slot: Slot; index: number; rule: RuleBody }
  | { op: 'list' };

const slot = fc.constantFrom(...SLOTS);
/** Rules the service accepts, and ones it should refuse (the threat score field, an empty expression). */
const rule: fc.Arbitrary<RuleBody> = fc.oneof(
  fc.record({
    action: fc.constantFrom('block', 'log', 'managed_challenge'),
    expression: fc.constantFrom('http.host eq "ec.invalid"', 'ip.src eq 192.0.2.1', 'true'),
    description: fc.constantFrom('one', 'two'),
  }),
  fc.record({
    action: fc.constant('block'),
    expression: fc.constantFrom('cf.threat_score gt 10', ''),
  }),
  fc.record({
    action: fc.constant('block'),
    expression: fc.constant('http.host eq "ec.invalid"'),
    enabled: fc.boolean(),
  }),
);

export const rulesetCommand: fc.Arbitrary<RulesetCommand> = fc.oneof(
  {
    arbitrary: fc.record({
      op: fc.constant('create' as const),
      slot,
      kind: fc.constantFrom('custom' as const, 'custom' as const, 'zone' as const),
      phase: fc.constantFrom('http_request_firewall_custom', 'http_log_custom_fields'),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      op: fc.constant('replace' as const),
      slot,
      rules: fc.array(rule, { maxLength: 2 }),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ op: fc.constant('add-rule' as const), slot, rule }), weight: 2 },
  {
    arbitrary: fc.record({
      op: fc.constant('patch-rule' as const),
      slot,
      index: fc.constantFrom(0, 1),
      rule,
    }),
    weight: 2,
  },
  { arbitrary: fc.constant({ op: 'list' as const }), weight: 1 },
);

/**
 * A sequence starts by creating the first slot's ruleset, which the commands after it work on
 * (without it, most commands would name a ruleset neither side has).
 */
export function rulesetSequence(maxLength: number): fc.Arbitrary<RulesetCommand[]> {
  const first = fc.constant<RulesetCommand>({
    op: 'create',
    slot: 'x',
    kind: 'custom',
    phase: 'http_request_firewall_custom',
  });
  return fc
    .tuple(first, fc.array(rulesetCommand, { maxLength: Math.max(0, maxLength - 1) }))
    .map(([c, rest]) => [c, ...rest]);
}

/** What a side knows of a sequence's rulesets: their ids, and the ids of their rules in order. */
export interface RulesetIds {
  rulesets: Map<Slot, string>;
  /** Rulesets made by a second create of a slot: later commands keep the first; all are removed. */
  extra: string[];
  rules: Map<Slot, string[]>;
}

/** The request of a command; undefined when it names a ruleset or rule this side does not have. */
export function rulesetRequest(
  cmd: RulesetCommand,
  accountId: string,
  name: (slot: Slot) => string,
  ids: RulesetIds,
): ApiRequest | undefined {
  const base = `/accounts/${accountId}/rulesets`;
  if (cmd.op === 'list') return { method: 'GET', path: base };
  if (cmd.op === 'create') {
    const body = { name: name(cmd.slot), description: name(cmd.slot), kind: cmd.kind, phase: cmd.phase };
    return { method: 'POST', path: base, body };
  }
  const id = ids.rulesets.get(cmd.slot);
  if (!id) return undefined;
  if (cmd.op === 'replace') return { method: 'PUT', path: `${base}/${id}`, body: { rules: cmd.rules } };
  if (cmd.op === 'add-rule') return { method: 'POST', path: `${base}/${id}/rules`, body: cmd.rule };
  const ruleId = ids.rules.get(cmd.slot)?.[cmd.index];
  if (!ruleId) return undefined;
  return { method: 'PATCH', path: `${base}/${id}/rules/${ruleId}`, body: cmd.rule };
}

export function describeRuleset(cmd: RulesetCommand): string {
  const r = (x: RuleBody) =>
    `${x.action} ${JSON.stringify(x.expression)}${x.enabled === undefined ? '' : ` enabled=${x.enabled}`}`;
  switch (cmd.op) {
    case 'create':
      return `CREATE ${cmd.slot} kind=${cmd.kind} phase=${cmd.phase}`;
    case 'replace':
      return `PUT ${cmd.slot} rules [${cmd.rules.map(r).join('; ')}]`;
    case 'add-rule':
      return `ADD RULE ${cmd.slot} ${r(cmd.rule)}`;
    case 'patch-rule':
      return `PATCH RULE ${cmd.slot}#${cmd.index} ${r(cmd.rule)}`;
    case 'list':
      return 'LIST';
  }
}

/** The clauses that decide a command's answer (SPEC's ruleset endpoints, rules and the threat score date). */
export function rulesetClauses(cmd: RulesetCommand, aspect: string): string[] {
  const threat = (rules: RuleBody[]) =>
    rules.some((x) => x.expression.includes('threat_score'))
      ? ['dep.threat-score.accepted', 'dep.threat-score.rejected']
      : [];
  // The ruleset's own version and clock (a rule's are its own); a rule's enabled flag.
  const rules = /\/rules\/\*?\d*\/?enabled\b|\/enabled=/.test(aspect) ? ['mgmt.rules.enabled'] : [];
  const version = [
    ...(/\/result\/version\b/.test(aspect) ? ['mgmt.rulesets.put-version'] : []),
    ...(/\/result\/last_updated\b/.test(aspect) ? ['mgmt.rulesets.put-last-updated'] : []),
  ];
  switch (cmd.op) {
    case 'create':
      return ['mgmt.rulesets.account', 'mgmt.rulesets.create', 'mgmt.rulesets.schema'];
    case 'replace':
      return [
        'mgmt.rulesets.account',
        'mgmt.rulesets.put-replaces',
        ...version,
        ...rules,
        ...threat(cmd.rules),
      ];
    case 'add-rule':
      return ['mgmt.rulesets.account', 'mgmt.rulesets.rule-create', ...rules, ...threat([cmd.rule])];
    case 'patch-rule':
      return ['mgmt.rulesets.account', 'mgmt.rulesets.rule-patch', ...rules, ...threat([cmd.rule])];
    case 'list':
      return ['mgmt.rulesets.list', 'mgmt.rulesets.schema'];
  }
}
