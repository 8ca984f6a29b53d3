import type { ReferenceContext } from '../context.ts';
import { epochSeconds } from './ids.ts';
import type { Json } from './shapes.ts';

export interface Rule {
  id: string;
  version: string;
  action: string;
  action_parameters?: Json;
  expression: string;
  description: string;
  last_updated: string;
  ref: string;
  enabled: boolean;
  logging?: Json;
}

export interface Ruleset {
  id: string;
  name: string;
  description: string;
  kind: string;
  phase: string;
  version: string;
  last_updated: string;
  rules: Rule[];
  /** Who owns it: a zone or an account. Not part of the response. */
  scope: 'zones' | 'accounts';
  ownerId: string;
}

export function rulesetResponse(ctx: ReferenceContext, rs: Ruleset, withRules = true): Json {
  const out: Json = {
    id: rs.id,
    name: rs.name,
    description: rs.description,
    kind: rs.kind,
    phase: rs.phase,
    version: rs.version,
    last_updated: rs.last_updated,
  };
  // The version as a number, where the service answers a string holding one.
  if (ctx.faults.has('ruleset-version-number')) out.version = Number(rs.version);
  if (withRules) {
    out.rules = rs.rules.map((r) => {
      const rule: Json = { ...r };
      // A rule's version as a number, or its last_updated as Unix seconds.
      if (ctx.faults.has('rule-version-number')) rule.version = Number(r.version);
      if (ctx.faults.has('rule-last-updated-epoch')) rule.last_updated = epochSeconds(r.last_updated);
      return rule;
    });
  }
  return out;
}
