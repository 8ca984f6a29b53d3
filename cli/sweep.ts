import { existsSync } from 'node:fs';
import { runIdTime } from '../runner/model/run-id.ts';
import { KIND_LABEL, type Leftover, sweep } from '../runner/sweep/index.ts';
import { InputError } from '../runner/util/errors.ts';
import { redactText } from '../runner/util/redact.ts';
import { int, oneOf, parse } from './args.ts';
import { readConfigFile, resolveTarget } from './config/load-config.ts';
import { DEFAULT_RATE_LIMIT, OPTIONS as RUN_OPTIONS, rateLimit } from './run.ts';

export const SWEEP_HELP = `Usage: edgecheck sweep [target options] [--run-id ID] [--older-than AGE] [--delete]

Finds what earlier runs left on a target, such as a run stopped before its teardown: buckets,
DNS records of the zone, zone and account rulesets, rules inside shared rulesets and log-push
jobs whose name (a rule: its description) carries a run prefix, ec-<run id>. Lists them; deletes
them with --delete. A name without a valid run prefix is never touched.

Selection (with neither, the leftovers of every run)
  --run-id ID              one run (the id 'edgecheck run' prints)
  --older-than AGE         runs that started longer ago than AGE: 30m, 2h, 3d, 1w
  --delete                 delete what is selected; each delete is confirmed by a second look

Target (as for 'edgecheck run'; secrets come from the environment or files only)
  --config FILE            target config (YAML; schema: schemas/config.schema.json)
  --management-url URL     management API {base_url}; env EDGECHECK_MANAGEMENT_URL
  --s3-endpoint URL        S3 endpoint; env EDGECHECK_S3_ENDPOINT
  --account-id ID          account id; env EDGECHECK_ACCOUNT_ID
  --zone-id ID             zone id; env EDGECHECK_ZONE_ID
  --addressing path|virtual  S3 addressing style (default path)
  --region NAME            S3 signing region (default auto)
  --name LABEL             the target's name in the output
  --timeout MS             per-request timeout (default 30000)
  --rate-limit N/WINDOW    at most N management API requests in any WINDOW (default
                           ${DEFAULT_RATE_LIMIT}, as for 'edgecheck run' against a live target); off

Exit code: 0 when every kind could be looked at (and, with --delete, everything selected is
gone), 1 when something could not be looked at or deleted, 2 for bad input.
`;

const OPTIONS = {
  config: RUN_OPTIONS.config,
  'management-url': RUN_OPTIONS['management-url'],
  's3-endpoint': RUN_OPTIONS['s3-endpoint'],
  'account-id': RUN_OPTIONS['account-id'],
  'zone-id': RUN_OPTIONS['zone-id'],
  addressing: RUN_OPTIONS.addressing,
  region: RUN_OPTIONS.region,
  name: RUN_OPTIONS.name,
  timeout: RUN_OPTIONS.timeout,
  'rate-limit': RUN_OPTIONS['rate-limit'],
  help: RUN_OPTIONS.help,
  'run-id': { type: 'string' },
  'older-than': { type: 'string' },
  delete: { type: 'boolean' },
} as const;

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `2h`, `3d`: an age in milliseconds. */
export function parseAge(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d{1,6})([smhdw])$/.exec(value.trim());
  if (!m)
    throw new InputError(`${flag} ${value}`, 'write a number and a unit (s, m, h, d, w), e.g. 2h or 3d');
  return Number(m[1]) * UNITS[m[2]];
}

/** `3d 4h`, `2h 5m`, `40s`: the largest two units. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${m}m`;
  return m ? `${m}m` : `${s}s`;
}

const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function table(rows: Leftover[], now: number, lead = ''): string {
  const cells = rows.map((l) => [
    KIND_LABEL[l.kind],
    l.name,
    l.id === l.name ? '' : `id ${l.id}`,
    `run ${l.runId}`,
    `${formatAge(now - l.createdAt)} old`,
  ]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...cells.map((c) => c[i].length)));
  return cells
    .map((c) => `${lead}${c.map((v, i) => (i < 4 ? v.padEnd(widths[i]) : v)).join('  ')}`.trimEnd())
    .join('\n');
}

export async function sweepCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values: v } = parse('sweep', argv, OPTIONS);
  if (v.help) {
    out.write(SWEEP_HELP);
    return 0;
  }
  const runId = v['run-id'];
  if (runId !== undefined && runIdTime(runId) === undefined) {
    throw new InputError(`--run-id ${runId}`, "not a run id: 10 characters as 'edgecheck run' prints them");
  }
  const olderThanMs = parseAge('--older-than', v['older-than']);
  if (v.config && !existsSync(v.config)) throw new InputError(`--config ${v.config}`, 'no such file');
  const config = v.config ? readConfigFile(v.config) : undefined;
  // A sweep is always against a live target: the same pacing as a run's.
  const rate = rateLimit(v['rate-limit'] ?? config?.rateLimit, true);
  const target = resolveTarget(config, v.config, {
    name: v.name,
    managementUrl: v['management-url'],
    s3Endpoint: v['s3-endpoint'],
    accountId: v['account-id'],
    zoneId: v['zone-id'],
    addressing: oneOf('--addressing', v.addressing, ['path', 'virtual'] as const),
    region: v.region,
    // Sweep makes no binding call: it needs neither the probe nor its secret.
    withoutBindings: true,
  });
  if (!target) {
    throw new InputError(
      'sweep',
      'name a target: --config FILE, --management-url URL or --s3-endpoint URL (or EDGECHECK_MANAGEMENT_URL, EDGECHECK_S3_ENDPOINT)',
    );
  }
  const now = Date.now();
  const which = [runId && `run ${runId}`, olderThanMs !== undefined && `runs older than ${v['older-than']}`]
    .filter(Boolean)
    .join(', ');
  const where = [target.management?.baseUrl, target.s3?.endpoint].filter(Boolean).join(', ');
  const write = (text: string) => out.write(`${redactText(text)}\n`);
  write(`edgecheck sweep: ${target.name} (${where}): ${which || 'every run'}`);

  const report = await sweep({
    target,
    runId,
    olderThanMs,
    remove: Boolean(v.delete),
    timeoutMs: int('--timeout', v.timeout, 100, 3_600_000) ?? config?.timeoutMs,
    rateLimit: rate,
    now,
  });
  const runs = new Set(report.found.map((l) => l.runId)).size;
  const counted = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  if (v.delete) {
    if (report.removed.length) write(table(report.removed, now, 'deleted  '));
    for (const p of report.problems) write(p);
    write(
      report.found.length
        ? `deleted ${report.removed.length} of ${counted(report.found.length, 'object')} from ${counted(runs, 'run')}`
        : 'nothing to delete',
    );
  } else {
    if (report.found.length) write(table(report.found, now));
    for (const p of report.problems) write(p);
    if (report.found.length) {
      write(`${counted(report.found.length, 'object')} from ${counted(runs, 'run')}; to delete them:`);
      write(`  edgecheck sweep ${[...argv.map(shellWord), '--delete'].join(' ')}`);
    } else write('nothing found');
  }
  return report.problems.length ? 1 : 0;
}
