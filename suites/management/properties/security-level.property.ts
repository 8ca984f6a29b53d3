import type { PropertyDef } from 'edgecheck/kit';
import { mustSucceed, withSecurityLevel } from './support/security-level.ts';

/*
 * In code rather than YAML because the deprecations suite changes the same zone setting: the two
 * take turns (support/security-level.ts), so each restores the value it found.
 */
const securityLevelOff: PropertyDef = {
  id: 'mgmt.settings.security-level-off',
  title: 'PATCH settings/security_level with value off succeeds (the previous value is put back)',
  clauses: ['mgmt.settings.security-level'],
  run: (ctx) => withSecurityLevel(ctx, 'off', mustSucceed('off')),
};

export default [securityLevelOff] satisfies PropertyDef[];
