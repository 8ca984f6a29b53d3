import type { PropertyDef } from 'edgecheck/kit';
import { DISRUPTIVE, mustSucceed, settableAt, withSecurityLevel } from './support/security-level.ts';

/*
 * In code rather than YAML because the deprecations suite changes the same zone setting: the two
 * take turns (support/security-level.ts), so each restores the value it found. Setting the zone's
 * own value again proves the PATCH is accepted without changing anything; only where that value
 * can no longer be set is another one (off) tried, and then only when the run allows it.
 */
const securityLevelOff: PropertyDef = {
  id: 'mgmt.settings.security-level-off',
  title:
    'PATCH settings/security_level succeeds (the zone value set again, or off; the previous value is put back)',
  clauses: ['mgmt.settings.security-level'],
  disruptive: DISRUPTIVE,
  requests: 4,
  run: (ctx) =>
    withSecurityLevel(
      ctx,
      (previous) => (settableAt(previous, ctx.asOf) ? previous : 'off'),
      mustSucceed('PATCH'),
    ),
};

export default [securityLevelOff] satisfies PropertyDef[];
