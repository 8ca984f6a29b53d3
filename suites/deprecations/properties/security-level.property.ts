import type { PropertyDef } from 'edgecheck/kit';
import { refusalObserver, sentJson } from '../../management/properties/support/observed.ts';
import {
  ALWAYS_ACCEPTED,
  DISRUPTIVE,
  mustBeRefused,
  mustSucceed,
  settableAt,
  withSecurityLevel,
  withSecurityLevels,
} from '../../management/properties/support/security-level.ts';

/*
 * SPEC Errors 3 and the 2024-09-30 row for PATCH settings/security_level. In code rather than YAML
 * because the management suite changes the same zone setting: the checks take turns and each puts
 * back the value it found. Each property cites one dated clause, so the run judges only the side of
 * the date that --as-of selects.
 */
/*
 * The values SPEC no longer accepts are "any value other than off and under_attack"; SPEC does not list
 * the values, so these are the ones the service documents besides those two.
 */
const NO_LONGER_ACCEPTED = ['essentially_off', 'low', 'medium', 'high'];

const SETTING = /^\/client\/v4\/zones\/[^/]+\/settings\/security_level$/;

const anyValue: PropertyDef = {
  id: 'dep.security-level.medium-before',
  disruptive: DISRUPTIVE,
  // One read, then each value set and put back.
  requests: 1 + 2 * NO_LONGER_ACCEPTED.length,
  title: 'Before 2024-09-30, security_level essentially_off, low, medium and high are accepted',
  clauses: ['dep.security-level.any-value'],
  run: async (ctx) => {
    await withSecurityLevels(ctx, NO_LONGER_ACCEPTED, (answer, value) => mustSucceed(value)(answer));
  },
};

const restricted: PropertyDef = {
  id: 'dep.security-level.medium-from',
  disruptive: DISRUPTIVE,
  requests: 2 + 2 * NO_LONGER_ACCEPTED.length,
  title:
    'After 2024-09-30, security_level essentially_off, low, medium and high are refused, where an accepted value is accepted',
  clauses: ['dep.security-level.restricted'],
  observe: {
    selects: 'PATCHes of settings/security_level to a value other than off and under_attack, accepted',
    observer: () =>
      refusalObserver(
        (ex) => {
          const value = ex.method === 'PATCH' && SETTING.test(ex.path) ? sentJson(ex)?.value : undefined;
          return value === undefined || ALWAYS_ACCEPTED.includes(value as string) ? undefined : String(value);
        },
        (env, _what, value) => mustBeRefused(value)(env),
      ),
  },
  run: async (ctx) => {
    // The valid twin first: the zone's own value set again where it is still accepted, else off. A
    // target that refuses it too proves nothing by refusing the others.
    const twin = (previous: string) => (settableAt(previous, ctx.asOf) ? previous : 'off');
    await withSecurityLevels(ctx, [twin, ...NO_LONGER_ACCEPTED], (answer, value, index) => {
      if (index > 0) return mustBeRefused(value)(answer);
      if (!answer.success)
        ctx.blocked(`the target refuses an accepted security_level too: ${JSON.stringify(answer.errors)}`);
    });
  },
};

const underAttack: PropertyDef = {
  id: 'dep.security-level.under-attack-from',
  disruptive: DISRUPTIVE,
  requests: 4,
  title: 'After 2024-09-30, security_level under_attack is still accepted',
  clauses: ['dep.security-level.under-attack'],
  run: (ctx) => withSecurityLevel(ctx, 'under_attack', mustSucceed('under_attack')),
};

export default [anyValue, restricted, underAttack] satisfies PropertyDef[];
