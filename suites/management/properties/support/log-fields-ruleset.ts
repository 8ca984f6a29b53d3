import type { PropertyContext } from 'edgecheck/kit';
import { call, type Envelope, helperRead, succeed, violation } from './envelope.ts';

export const LOG_FIELDS_PHASE = 'http_log_custom_fields';

interface RulesetSummary {
  id: string;
  name?: string;
  kind?: string;
  phase?: string;
}

export interface RuleView {
  id?: string;
  action?: string;
  expression?: string;
  description?: string;
  enabled?: boolean;
  ref?: string;
  action_parameters?: Record<string, unknown>;
}

/** The zone's custom log fields ruleset as this run found it, and whether this run created it. */
export interface LogFieldsRuleset {
  id: string;
  created: boolean;
  previousRules: RuleView[];
  /** How many zone rulesets of the phase the list held (SPEC: at most one). */
  listed: number;
  /** A PUT was answered with rules besides the one it sent: it did not replace them all. */
  crowded?: boolean;
}

export function zoneId(ctx: PropertyContext): string {
  const id = ctx.target.management?.zoneId;
  if (!id) ctx.skip('the target config has no zoneId');
  return id;
}

/** Every ruleset of the zone, over all pages (procedure step 1). */
export async function listZoneRulesets(ctx: PropertyContext): Promise<RulesetSummary[]> {
  const all: RulesetSummary[] = [];
  for (let page = 1; page <= 100; page++) {
    const env = await succeed<RulesetSummary[]>(ctx, {
      method: 'GET',
      path: `/zones/${zoneId(ctx)}/rulesets`,
      query: { page, per_page: 50 },
    });
    if (!Array.isArray(env.result)) violation('GET rulesets answered no result array');
    all.push(...env.result);
    const pages = env.result_info?.total_pages;
    if (typeof pages !== 'number' || page >= pages || env.result.length === 0) break;
  }
  return all;
}

function isLogFields(r: RulesetSummary): boolean {
  return r.kind === 'zone' && r.phase === LOG_FIELDS_PHASE;
}

/** Procedure steps 1 and 2: find the zone ruleset of the phase, or create it. */
export async function openLogFieldsRuleset(ctx: PropertyContext): Promise<LogFieldsRuleset> {
  const found = (await listZoneRulesets(ctx)).filter(isLogFields);
  if (found.length > 0) {
    // SPEC lists no read of one ruleset; the service documents GET. Without it the rules to put back
    // cannot be known.
    const env = await helperRead<{ rules?: RuleView[] }>(
      ctx,
      { method: 'GET', path: `/zones/${zoneId(ctx)}/rulesets/${found[0].id}` },
      'so the rules of the existing custom log fields ruleset cannot be read to be put back',
    );
    return { id: found[0].id, created: false, previousRules: env.result.rules ?? [], listed: found.length };
  }
  const name = `ec-${ctx.runId}-log-fields`;
  // Registered before the POST is sent: a run interrupted while it is on its way, or an answer that
  // names no id, leaves a ruleset perhaps made; teardown finds it by its name and deletes it.
  let answered = false;
  ctx.defer(async () => {
    if (answered) return;
    const made = (await listZoneRulesets(ctx)).filter((r) => isLogFields(r) && r.name === name);
    for (const r of made)
      await restoreLogFieldsRuleset(ctx, { id: r.id, created: true, previousRules: [], listed: 1 });
  }, `a custom log fields ruleset named ${name}, should the POST creating it have been applied`);
  const env = await succeed<RulesetSummary>(ctx, {
    method: 'POST',
    path: `/zones/${zoneId(ctx)}/rulesets`,
    body: {
      name,
      kind: 'zone',
      description: `ec-${ctx.runId}`,
      phase: LOG_FIELDS_PHASE,
    },
  });
  if (typeof env.result?.id !== 'string') violation('creating the custom log fields ruleset answered no id');
  answered = true;
  if (env.result.kind !== 'zone' || env.result.phase !== LOG_FIELDS_PHASE) {
    violation(`the created ruleset has kind ${env.result.kind} and phase ${env.result.phase}`);
  }
  return { id: env.result.id, created: true, previousRules: [], listed: 0 };
}

/** The rule fields a client sends; ids, versions and timestamps belong to the server. */
function writable(rule: RuleView): RuleView {
  const { action, expression, description, enabled, ref, action_parameters } = rule;
  return { action, expression, description, enabled, ref, action_parameters };
}

/** Puts the zone back as it was: deletes the ruleset this run created, or restores the rules it had. */
export async function restoreLogFieldsRuleset(ctx: PropertyContext, rs: LogFieldsRuleset): Promise<void> {
  const path = `/zones/${zoneId(ctx)}/rulesets/${rs.id}`;
  if (rs.created) {
    const res = await ctx.api({ method: 'DELETE', path });
    if ((res.status >= 200 && res.status < 300) || res.status === 404) return;
    // At least drop this run's rules; the ruleset itself is still left, so say so.
    await call(ctx, { method: 'PUT', path, body: { rules: [] } }).catch(() => undefined);
    throw new Error(`could not delete the custom log fields ruleset ${rs.id} (status ${res.status})`);
  }
  const env = await call(ctx, { method: 'PUT', path, body: { rules: rs.previousRules.map(writable) } });
  if (!env.success) throw new Error(`could not restore the custom log fields ruleset ${rs.id}`);
}

let sent = 0;

/** What a PUT of one log_custom_field rule answered, and the description that tells the rule apart. */
export interface PutAnswer {
  env: Envelope<{ rules?: RuleView[] } | null>;
  description: string;
}

/** Replaces the ruleset's rules with one log_custom_field rule (procedure step 3). */
export async function putLogFieldsRule(
  ctx: PropertyContext,
  rs: LogFieldsRuleset,
  rule: Partial<RuleView>,
): Promise<PutAnswer> {
  const description = `ec-${ctx.runId} #${sent++}`;
  const env = await call<{ rules?: RuleView[] } | null>(ctx, {
    method: 'PUT',
    path: `/zones/${zoneId(ctx)}/rulesets/${rs.id}`,
    body: { rules: [{ action: 'log_custom_field', expression: 'true', description, ...rule }] },
  });
  if (env.success && (env.result?.rules ?? []).some((r) => r.description !== description)) rs.crowded = true;
  return { env, description };
}

/** The rule a successful PUT answered for what was sent (found by its description). */
export function sentRule({ env, description }: PutAnswer, what: string): RuleView {
  if (!env.success) violation(`${what} was refused: ${JSON.stringify(env.errors)}`);
  const matches = (env.result?.rules ?? []).filter((r) => r.description === description);
  if (matches.length !== 1) violation(`${what}: the answer holds ${matches.length} rules for the one sent`);
  return matches[0];
}

/** Puts the zone back; a restore that fails now is handed to the run's teardown. */
async function putBack(ctx: PropertyContext, rs: LogFieldsRuleset): Promise<void> {
  // A restore that fails now (an interrupted run, a refused request) is not a verdict on the clause:
  // the run's teardown tries it again under its own deadline and lists the ruleset if that fails too.
  await restoreLogFieldsRuleset(ctx, rs).catch(() => {
    ctx.defer(
      () => restoreLogFieldsRuleset(ctx, rs),
      rs.created
        ? `custom log fields ruleset ${rs.id}, created by this run`
        : `rules of the custom log fields ruleset ${rs.id}, as found before the run`,
    );
  });
}

/** Runs `body` with the ruleset open, restoring the zone afterwards (also when `body` throws). */
export async function withLogFieldsRuleset<T>(
  ctx: PropertyContext,
  body: (rs: LogFieldsRuleset) => Promise<T>,
): Promise<T> {
  const rs = await openLogFieldsRuleset(ctx);
  try {
    return await body(rs);
  } finally {
    await putBack(ctx, rs);
  }
}

/**
 * For a check that tries several examples, each a PUT of one rule: `body` gets the ruleset from
 * `ruleset()`, which opens it once (procedure steps 1 and 2) rather than for every example, and
 * opens it afresh, the zone put back first, only after an answer showed rules besides the one sent.
 * Rules a PUT failed to replace (a fault of mgmt.rulesets.put-replaces) then never pile up towards
 * the 40-field limit of the zone. The zone is put back at the end, also when `body` throws.
 */
export async function withLogFieldsRulesetOnce<T>(
  ctx: PropertyContext,
  body: (ruleset: () => Promise<LogFieldsRuleset>) => Promise<T>,
): Promise<T> {
  let open: LogFieldsRuleset | undefined;
  const close = async () => {
    const rs = open;
    open = undefined;
    if (rs) await putBack(ctx, rs);
  };
  try {
    return await body(async () => {
      if (open?.crowded) await close();
      open ??= await openLogFieldsRuleset(ctx);
      return open;
    });
  } finally {
    await close();
  }
}
