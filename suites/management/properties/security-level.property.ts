import type { PropertyDef } from 'edgecheck/kit';
import { helperRead, violation } from './support/envelope.ts';
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

/*
 * Terraform's Cloudflare provider reads a setting back after changing it, and plans the change
 * again when the two differ. The value set differs from the zone's (off, or under_attack where the
 * zone is off: both can be set again at any date), so a GET that answers the old value is seen.
 */
const securityLevelReadBack: PropertyDef = {
  id: 'mgmt.settings.security-level-read-back',
  title:
    'A GET of settings/security_level right after a successful PATCH answers the value set (the previous value is put back)',
  clauses: ['mgmt.settings.read-after-patch'],
  disruptive: DISRUPTIVE,
  requests: 5,
  run: (ctx) =>
    withSecurityLevel(
      ctx,
      (previous) => (previous === 'off' ? 'under_attack' : 'off'),
      async (answer, wanted) => {
        // That the PATCH is accepted is mgmt.settings.security-level's; refused, it set nothing to read.
        if (!answer.success)
          ctx.blocked(`PATCH security_level ${wanted} was refused: ${JSON.stringify(answer.errors)}`);
        const read = await helperRead<{ value?: unknown } | null>(
          ctx,
          { method: 'GET', path: `/zones/${ctx.target.management?.zoneId}/settings/security_level` },
          'so the value set cannot be read back',
        );
        const value = read.result?.value;
        if (value !== wanted)
          violation(
            `GET settings/security_level right after PATCH ${wanted} answered ${JSON.stringify(value)}`,
          );
      },
    ),
};

export default [securityLevelOff, securityLevelReadBack] satisfies PropertyDef[];
