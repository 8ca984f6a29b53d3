import type { PropertyDef } from 'edgecheck/kit';
import {
  DISRUPTIVE,
  mustBeRefused,
  mustSucceed,
  withSecurityLevel,
} from '../../management/properties/support/security-level.ts';

/*
 * SPEC Errors 3 and the 2024-09-30 row for PATCH settings/security_level. In code rather than YAML
 * because the management suite changes the same zone setting: the checks take turns and each puts
 * back the value it found. Each property cites one dated clause, so the run judges only the side of
 * the date that --as-of selects.
 */
const anyValue: PropertyDef = {
  id: 'dep.security-level.medium-before',
  disruptive: DISRUPTIVE,
  requests: 4,
  title: 'Before 2024-09-30, security_level medium is accepted',
  clauses: ['dep.security-level.any-value'],
  run: (ctx) => withSecurityLevel(ctx, 'medium', mustSucceed('medium')),
};

const restricted: PropertyDef = {
  id: 'dep.security-level.medium-from',
  disruptive: DISRUPTIVE,
  requests: 4,
  title: 'From 2024-09-30, security_level medium is refused',
  clauses: ['dep.security-level.restricted'],
  run: (ctx) => withSecurityLevel(ctx, 'medium', mustBeRefused('medium')),
};

const underAttack: PropertyDef = {
  id: 'dep.security-level.under-attack-from',
  disruptive: DISRUPTIVE,
  requests: 4,
  title: 'From 2024-09-30, security_level under_attack is still accepted',
  clauses: ['dep.security-level.under-attack'],
  run: (ctx) => withSecurityLevel(ctx, 'under_attack', mustSucceed('under_attack')),
};

export default [anyValue, restricted, underAttack] satisfies PropertyDef[];
