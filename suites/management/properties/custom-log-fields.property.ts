import fc from 'fast-check';
import type { PropertyDef } from '../../../runner/model/property.ts';
import { schemas } from '../../../runner/schema/registry.ts';
import { call, refused, succeed, violation } from './support/envelope.ts';
import {
  LOG_FIELDS_PHASE,
  listZoneRulesets,
  putLogFieldsRule,
  type RuleView,
  withLogFieldsRuleset,
  zoneId,
} from './support/log-fields-ruleset.ts';
import { serialQueue } from './support/serial.ts';

/*
 * The custom log fields of a zone live in its one zone ruleset of phase http_log_custom_fields, which
 * YAML steps cannot find-or-create (procedure step 2 is conditional). These checks take turns on that
 * ruleset and put the zone back as they found it.
 */

const serial = serialQueue();

type Field = { name: string };

function onlyRule(env: { result: { rules?: RuleView[] } | null }, what: string): RuleView {
  const rules = env.result?.rules;
  if (!Array.isArray(rules) || rules.length !== 1) {
    violation(`${what}: expected the ruleset to hold exactly the rule sent, found ${JSON.stringify(rules)}`);
  }
  return rules[0];
}

function names(params: Record<string, unknown> | undefined, key: string): string[] {
  const list = params?.[key];
  return Array.isArray(list) ? list.map((f) => (f as Field).name) : [];
}

const fields = (...list: string[]): Field[] => list.map((name) => ({ name }));

const procedure: PropertyDef = {
  id: 'mgmt.lcf.procedure-end-to-end',
  title: 'Custom log fields procedure: list, create if missing, set the rule, create a log-push job',
  clauses: ['mgmt.lcf.procedure'],
  run: (ctx) =>
    serial(async () => {
      const zone = zoneId(ctx);
      const listed = (await listZoneRulesets(ctx)).filter(
        (r) => r.kind === 'zone' && r.phase === LOG_FIELDS_PHASE,
      );
      if (listed.length > 1)
        violation(`step 1: the list holds ${listed.length} zone rulesets of phase ${LOG_FIELDS_PHASE}`);
      await withLogFieldsRuleset(ctx, async (rs) => {
        const params = {
          request_fields: fields('x-edgecheck-request'),
          response_fields: fields('x-edgecheck-response'),
          cookie_fields: fields('EdgecheckSession'),
        };
        const put = await putLogFieldsRule(ctx, rs, { action_parameters: params });
        if (!put.success) violation(`step 3: setting the rule failed: ${JSON.stringify(put.errors)}`);
        const rule = onlyRule(put, 'step 3');
        if (rule.action !== 'log_custom_field' || rule.expression !== 'true') {
          violation(`step 3: the rule answered has action ${rule.action} and expression ${rule.expression}`);
        }
        for (const key of Object.keys(params) as (keyof typeof params)[]) {
          const got = names(rule.action_parameters, key);
          const want = params[key].map((f) => f.name);
          if (got.join() !== want.join())
            violation(`step 3: ${key} answered ${JSON.stringify(got)}, sent ${JSON.stringify(want)}`);
        }
        const job = await succeed<{ id?: unknown }>(ctx, {
          method: 'POST',
          path: `/zones/${zone}/logpush/jobs`,
          body: {
            name: `edgecheck-${ctx.runId}-log-fields`,
            destination_conf: `r2://edgecheck-${ctx.runId}/log-fields?account-id=${ctx.target.management?.accountId ?? ''}`,
            dataset: 'http_requests',
            logpull_options:
              'fields=RayID,EdgeStartTimestamp,Cookies,RequestHeaders,ResponseHeaders&timestamps=rfc3339',
            ownership_challenge: `edgecheck-ownership-${ctx.runId}`,
          },
        });
        const jobId = job.result?.id;
        if (jobId !== undefined && jobId !== null) {
          ctx.defer(() =>
            ctx.api({ method: 'DELETE', path: `/zones/${zone}/logpush/jobs/${String(jobId)}` }),
          );
        }
      });
    }),
};

const paramsSchema: PropertyDef = {
  id: 'mgmt.lcf.params-shape',
  title: 'A log_custom_field rule answers its three field arrays as arrays of {name}',
  clauses: ['mgmt.lcf.params-schema'],
  run: (ctx) =>
    serial(() =>
      withLogFieldsRuleset(ctx, async (rs) => {
        const env = await putLogFieldsRule(ctx, rs, {
          action_parameters: {
            request_fields: fields('x-edgecheck-a', 'x-edgecheck-b'),
            response_fields: fields('x-edgecheck-c'),
            cookie_fields: fields('edgecheck_d'),
          },
        });
        if (!env.success) violation(`a valid rule was refused: ${JSON.stringify(env.errors)}`);
        const problem = schemas().check(
          'log-custom-field-params.json',
          onlyRule(env, 'PUT').action_parameters,
        );
        if (problem) violation(`action_parameters do not match log-custom-field-params.json: ${problem}`);
      }),
    ),
};

const oneArrayRequired: PropertyDef = {
  id: 'mgmt.lcf.needs-a-field-array',
  title: 'A log_custom_field rule without request_fields, response_fields or cookie_fields is refused',
  clauses: ['mgmt.lcf.one-array-required'],
  run: (ctx) =>
    serial(() =>
      withLogFieldsRuleset(ctx, (rs) =>
        refused(
          ctx,
          {
            method: 'PUT',
            path: `/zones/${zoneId(ctx)}/rulesets/${rs.id}`,
            body: { rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: {} }] },
          },
          'none of the three field arrays was sent',
        ),
      ),
    ),
};

const expressionTrue: PropertyDef = {
  id: 'mgmt.lcf.expression-must-be-true',
  title: 'A log_custom_field rule whose expression is not true is refused',
  clauses: ['mgmt.lcf.expression-true'],
  run: (ctx) =>
    serial(() =>
      withLogFieldsRuleset(ctx, (rs) =>
        refused(
          ctx,
          {
            method: 'PUT',
            path: `/zones/${zoneId(ctx)}/rulesets/${rs.id}`,
            body: {
              rules: [
                {
                  action: 'log_custom_field',
                  expression: `http.host eq "edgecheck-${ctx.runId}.invalid"`,
                  action_parameters: { request_fields: fields('x-edgecheck') },
                },
              ],
            },
          },
          'the expression is not true',
        ),
      ),
    ),
};

const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,14}[a-z0-9]$/).map((s) => `x-ec-${s}`);
const cookieName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,15}$/);

function mixedCase(name: string, mask: number): string {
  return [...name].map((ch, i) => ((mask >> (i % 31)) & 1 ? ch.toUpperCase() : ch)).join('');
}

const headerNamesLower: PropertyDef = {
  id: 'mgmt.lcf.header-names-lower-case',
  title: 'Header field names are lower case: lower-case names are kept, others refused or folded',
  clauses: ['mgmt.lcf.header-names-lower'],
  run: (ctx) =>
    serial(() =>
      withLogFieldsRuleset(ctx, (rs) =>
        fc.assert(
          fc.asyncProperty(
            headerName,
            headerName,
            fc.integer({ min: 1, max: 0x7fffffff }),
            async (req, res, mask) => {
              const lower = await putLogFieldsRule(ctx, rs, {
                action_parameters: { request_fields: fields(req), response_fields: fields(res) },
              });
              if (!lower.success)
                violation(`lower-case names ${req}, ${res} were refused: ${JSON.stringify(lower.errors)}`);
              const kept = onlyRule(lower, 'lower-case names').action_parameters;
              if (
                names(kept, 'request_fields').join() !== req ||
                names(kept, 'response_fields').join() !== res
              ) {
                violation(`lower-case names ${req}, ${res} were answered as ${JSON.stringify(kept)}`);
              }
              const upper = mixedCase(req, mask);
              if (upper === req) return;
              const env = await putLogFieldsRule(ctx, rs, {
                action_parameters: { request_fields: fields(upper) },
              });
              if (!env.success) return;
              const got = names(onlyRule(env, 'mixed-case name').action_parameters, 'request_fields');
              if (got.join() !== req)
                violation(`header name ${upper} was accepted and stored as ${JSON.stringify(got)}`);
            },
          ),
          { seed: ctx.fc.seed, numRuns: ctx.fc.numRuns },
        ),
      ),
    ),
};

const cookieCase: PropertyDef = {
  id: 'mgmt.lcf.cookie-names-keep-case',
  title: 'Cookie field names keep their capitalization',
  clauses: ['mgmt.lcf.cookie-case'],
  run: (ctx) =>
    serial(() =>
      withLogFieldsRuleset(ctx, (rs) =>
        fc.assert(
          fc.asyncProperty(fc.uniqueArray(cookieName, { minLength: 1, maxLength: 5 }), async (cookies) => {
            const env = await putLogFieldsRule(ctx, rs, {
              action_parameters: { cookie_fields: fields(...cookies) },
            });
            if (!env.success)
              violation(
                `cookie names ${JSON.stringify(cookies)} were refused: ${JSON.stringify(env.errors)}`,
              );
            const got = names(onlyRule(env, 'cookies').action_parameters, 'cookie_fields');
            if (got.join() !== cookies.join())
              violation(`cookie names ${JSON.stringify(cookies)} were answered as ${JSON.stringify(got)}`);
          }),
          { seed: ctx.fc.seed, numRuns: ctx.fc.numRuns },
        ),
      ),
    ),
};

/** `total` fields split over the three arrays as `split` says (each a share of the total). */
function spread(total: number, split: [number, number]): Record<string, Field[]> {
  const a = Math.min(total, split[0]);
  const b = Math.min(total - a, split[1]);
  const c = total - a - b;
  const out: Record<string, Field[]> = {};
  const make = (n: number, p: string) => Array.from({ length: n }, (_, i) => ({ name: `${p}${i}` }));
  if (a) out.request_fields = make(a, 'x-ec-req-');
  if (b) out.response_fields = make(b, 'x-ec-res-');
  if (c) out.cookie_fields = make(c, 'ec_cookie_');
  return out;
}

const limit40: PropertyDef = {
  id: 'mgmt.lcf.forty-fields',
  title: '40 custom log fields per zone, all types together, are accepted; 41 are refused',
  clauses: ['mgmt.lcf.limit-40'],
  run: (ctx) =>
    serial(() =>
      withLogFieldsRuleset(ctx, (rs) =>
        fc.assert(
          fc.asyncProperty(
            fc.tuple(fc.integer({ min: 0, max: 41 }), fc.integer({ min: 0, max: 41 })),
            async (split) => {
              const forty = await putLogFieldsRule(ctx, rs, { action_parameters: spread(40, split) });
              if (!forty.success)
                violation(`40 fields split ${split} were refused: ${JSON.stringify(forty.errors)}`);
              const env = await call(ctx, {
                method: 'PUT',
                path: `/zones/${zoneId(ctx)}/rulesets/${rs.id}`,
                body: {
                  rules: [
                    { action: 'log_custom_field', expression: 'true', action_parameters: spread(41, split) },
                  ],
                },
              });
              if (env.success) violation(`41 fields split ${split} were accepted`);
            },
          ),
          { seed: ctx.fc.seed, numRuns: ctx.fc.numRuns },
        ),
      ),
    ),
};

export default [
  procedure,
  paramsSchema,
  oneArrayRequired,
  expressionTrue,
  headerNamesLower,
  cookieCase,
  limit40,
] satisfies PropertyDef[];
