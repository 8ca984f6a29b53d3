import { existsSync } from 'node:fs';
import path from 'node:path';
import { MarkdownReporter } from '../reporters/markdown.ts';
import { createReporter } from '../reporters/registry.ts';
import { readResultsDocument } from '../reporters/results-document.ts';
import { Outstanding, parseRateCap, processExitCode, type RateCap, runEdgecheck } from '../runner/api.ts';
import { FEATURE_NAMES } from '../runner/model/features.ts';
import type { ClauseResult, Reporter } from '../runner/model/results.ts';
import type { Target } from '../runner/model/target.ts';
import { writableDir } from '../runner/util/dirs.ts';
import { errorMessage, InputError } from '../runner/util/errors.ts';
import { date, int, oneOf, pairs, parse } from './args.ts';
import { type MiniflareProbe, startMiniflareProbe, withBindings } from './bindings-miniflare.ts';
import { type ConfigFile, readConfigFile, resolveTarget } from './config/load-config.ts';
import { runAgainstEmbedded } from './embedded.ts';
import { Interrupts } from './interrupts.ts';
import { configTargets, parseTargets, runSeveral } from './several-targets.ts';
import { githubStepSummary } from './step-summary.ts';

export const LAST_RUN = '.edgecheck/last-run.json';

/** Against a live target: the documented 1,200 per 5 minutes, less room for the user's own automation. */
export const DEFAULT_RATE_LIMIT = '1000/5m';

/** Words filled into lines of at most `width` characters, each line after the first indented by `indent`. */
function fill(words: string[], indent: number, width: number): string {
  const lines = [''];
  for (const word of words) {
    const line = lines[lines.length - 1];
    if (line && indent + line.length + 1 + word.length > width) lines.push(word);
    else lines[lines.length - 1] = line ? `${line} ${word}` : word;
  }
  return lines.join(`\n${' '.repeat(indent)}`);
}

export const RUN_HELP = `Usage: edgecheck run [options]

Runs the suites against a target and reports a verdict for each spec clause.
With no target (no --config, --management-url, --s3-endpoint or EDGECHECK_* endpoint),
the embedded reference target is started for the run.

Target
  --config FILE            target config (YAML; schema: schemas/config.schema.json)
  --management-url URL     management API {base_url} (the API is under /client/v4);
                           env EDGECHECK_MANAGEMENT_URL
  --s3-endpoint URL        S3 endpoint; env EDGECHECK_S3_ENDPOINT
  --public-url URL         public bucket base URL ({url}/{bucket}/{key})
  --account-id ID          account id; env EDGECHECK_ACCOUNT_ID
  --zone-id ID             zone id; env EDGECHECK_ZONE_ID
  --id NAME=VALUE          an id the suites cannot create (invite, certificatePack); repeatable
  --addressing path|virtual  S3 addressing style (default path)
  --region NAME            S3 signing region (default auto)
  --feature NAME           ${fill(`a feature the target offers (repeatable): ${FEATURE_NAMES.join(', ')}`.split(' '), 27, 95)}
  --name LABEL             the target's name in reports
  --bindings-url URL       the bindings probe (suites/s3/bindings-probe/) deployed with the
                           r2_list_honor_include flag; secret in env EDGECHECK_BINDINGS_SECRET;
                           implies --feature worker-bindings
  --bindings-legacy-url URL  the same probe deployed without the flag
  --bindings-bucket NAME   the bucket bound to the probe, when --s3-endpoint reaches it too
  --bindings miniflare     runs the probe in Miniflare on 127.0.0.1 for the run, in place of
                           the target's probe (the embedded reference's, with no target)
  --fault NAME             embedded reference only: break one behaviour (repeatable);
                           'edgecheck serve --list-faults' lists them
  --target NAME=SPEC       several targets in one run (repeatable): SPEC is a config file, or
                           embedded (the reference; embedded:FAULT,FAULT with faults on). The
                           cases run against all at once, each with its own concurrency and
                           teardown and the same seed; the console ends with the side-by-side
                           table of 'edgecheck compare', a file reporter writes one file per
                           target (out/r.json: out/r.NAME.json) and html=FILE also the
                           comparison page at FILE
                           (or a config file's targets: map, NAME: SPEC, paths relative to
                           it); each target's own file sets its concurrency, timeoutMs,
                           rateLimit, maxRequests and retries unless a flag sets them for all
  --exit-from NAME         with --target: the exit code is this target's (default: 130 if
                           interrupted, else 1 when any target's run is not clean, else 0)
  Secrets come from the environment or files only: EDGECHECK_API_TOKEN, or
  EDGECHECK_AUTH_EMAIL + EDGECHECK_AUTH_KEY; EDGECHECK_S3_ACCESS_KEY_ID +
  EDGECHECK_S3_SECRET_ACCESS_KEY; EDGECHECK_BINDINGS_SECRET (or the *Env / *File fields of
  the config).

Selection
  --suite NAME             management, s3, deprecations (repeatable; default all)
  --case ID                case id, or prefix* (repeatable)
  --clause ID              clause id, or prefix* (repeatable)
  --tag TAG                case tag (repeatable)
  --failed                 only the clauses that failed or errored in the last run
                           (${LAST_RUN}), narrowed by the other selection
                           flags; when none did, says so and exits 0 without running
  --shard I/N              run the I-th of N shards; 'edgecheck merge' joins their JSON
                           results
  --as-of YYYY-MM-DD       the date whose behaviour applies to dated clauses (default today)
  --profile quick|full     payload sizes and property runs (default quick)
  --read-only              run only the cases that change nothing on the target

Execution
  --concurrency N          cases in parallel (default 8)
  --timeout MS             bounds each request as a whole, headers and body (default 30000;
                           large bodies get 1 s more per MiB)
  --seed N                 seed for property checks (printed; replays a failure)

Live targets (see "Running against production" in the README)
  --allow-disruptive       also run checks whose change cannot be put back (accepting an
                           invitation; a setting whose current value can no longer be set);
                           the run lists them before it starts
  --rate-limit N/WINDOW    at most N management API requests in any WINDOW (ms, s, m, h);
                           default ${DEFAULT_RATE_LIMIT} against a live target (the service allows
                           1,200 per 5 minutes per user, dashboard and tokens included); off
  --max-requests N         request budget: cases that would cross it are skipped (teardown
                           always runs); the run prints how many requests it sent
  --retries N              retries of a 429/502/503/504 answer (default 3; 429 for any method,
                           5xx only for idempotent ones), honouring Retry-After
  --max-retry-wait MS      the longest wait before a retry (default 30000); an answer that
                           stays throttled or unavailable is judged 'error', never 'fail'
  --teardown-timeout MS    each teardown action's own deadline (default 60000)
  --max-duration S         the whole run's deadline in seconds (default 3600): past it no new
                           request starts, the run tears down and exits 1

Output
  --reporter SPEC          console, json[=FILE], junit[=FILE], markdown[=FILE], html[=FILE]
                           (repeatable; default console; html is one self-contained page);
                           with GITHUB_STEP_SUMMARY set, the markdown summary is also
                           appended to that file
  --baseline FILE          known failures (YAML); exit 0 when the run matches it exactly
  --verbose                console: a line per case, and every clause rather than those
                           that did not pass
  --no-last-run            do not write ${LAST_RUN} (see below)
  --suites-dir DIR         read suites from DIR instead of the project's suites/

A run against one target also writes its results to ${LAST_RUN} (in the current folder)
for 'edgecheck clauses' and --failed; its last line of output says so (on stderr when a
reporter writes its document to stdout). --no-last-run skips it.

Interrupting: the first Ctrl-C (or SIGTERM) starts no new request, lets those in flight end
and tears down what the run created; a second one stops at once and prints what is left.

Exit code: 0 when no clause fails or errors (or the run matches --baseline) and nothing is left
on the target; 1 when some do, or teardown left something (listed, with the command that
removes it); 2 for bad input; 3 for an internal error; 130 when interrupted.
`;

/** Flags that describe one target: with --target, each target's config file says them. */
const SINGLE_TARGET_FLAGS = [
  'config',
  'management-url',
  's3-endpoint',
  'public-url',
  'account-id',
  'zone-id',
  'id',
  'addressing',
  'region',
  'feature',
  'name',
  'fault',
  'bindings-url',
  'bindings-legacy-url',
  'bindings-bucket',
  'bindings',
] as const;

export const OPTIONS = {
  config: { type: 'string' },
  'management-url': { type: 'string' },
  's3-endpoint': { type: 'string' },
  'public-url': { type: 'string' },
  'account-id': { type: 'string' },
  'zone-id': { type: 'string' },
  id: { type: 'string', multiple: true },
  addressing: { type: 'string' },
  region: { type: 'string' },
  feature: { type: 'string', multiple: true },
  name: { type: 'string' },
  fault: { type: 'string', multiple: true },
  'bindings-url': { type: 'string' },
  'bindings-legacy-url': { type: 'string' },
  'bindings-bucket': { type: 'string' },
  bindings: { type: 'string' },
  target: { type: 'string', multiple: true },
  'exit-from': { type: 'string' },
  suite: { type: 'string', multiple: true },
  case: { type: 'string', multiple: true },
  clause: { type: 'string', multiple: true },
  tag: { type: 'string', multiple: true },
  failed: { type: 'boolean' },
  shard: { type: 'string' },
  'as-of': { type: 'string' },
  profile: { type: 'string' },
  'read-only': { type: 'boolean' },
  concurrency: { type: 'string' },
  timeout: { type: 'string' },
  'allow-disruptive': { type: 'boolean' },
  'rate-limit': { type: 'string' },
  'max-requests': { type: 'string' },
  retries: { type: 'string' },
  'max-retry-wait': { type: 'string' },
  'teardown-timeout': { type: 'string' },
  'max-duration': { type: 'string' },
  seed: { type: 'string' },
  reporter: { type: 'string', multiple: true },
  baseline: { type: 'string' },
  verbose: { type: 'boolean' },
  'no-last-run': { type: 'boolean' },
  'suites-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A file reporter's folder must be writable before the run starts, not after it. */
function ensureWritable(spec: string): void {
  const eq = spec.indexOf('=');
  if (eq < 0) return;
  const dest = spec.slice(eq + 1).trim();
  if (dest && !writableDir(path.dirname(path.resolve(dest)))) {
    throw new InputError(
      `--reporter ${spec}`,
      `cannot write to ${path.dirname(dest)}; choose a writable folder`,
    );
  }
}

function bestEffort(reporter: Reporter): Reporter {
  return {
    onEvent: (e) => reporter.onEvent(e),
    close: () => reporter.close().catch(() => undefined),
  };
}

/** The management rate cap: the flag or config value, else the default for a live target. */
export function rateLimit(text: string | undefined, live: boolean): RateCap | undefined {
  const value = text ?? (live ? DEFAULT_RATE_LIMIT : undefined);
  if (value === undefined) return undefined;
  const cap = parseRateCap(value);
  if (!cap) throw new InputError(`--rate-limit ${value}`, 'write N/WINDOW, e.g. 1000/5m or 20/2s, or off');
  return cap === 'off' ? undefined : cap;
}

export async function runCommand(
  argv: string[],
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const { values: v } = parse('run', argv, OPTIONS);
  if (v.help) {
    out.write(RUN_HELP);
    return 0;
  }
  if (v.config && !existsSync(v.config)) throw new InputError(`--config ${v.config}`, 'no such file');
  const config = v.config ? readConfigFile(v.config) : undefined;
  const { several, target, miniflare } = runTargets(v, config);
  const failed = v.failed ? failedClauses(v.suite, v.clause) : undefined;
  if (failed?.length === 0) {
    out.write('nothing failed in the last run\n');
    return 0;
  }
  const specs = v.reporter?.length ? v.reporter : ['console'];
  for (const spec of specs) ensureWritable(spec);
  // Several targets get reporters of their own (several-targets.ts).
  const lastRun = several || v['no-last-run'] ? undefined : lastRunReporter();
  const reporters = several ? [] : singleRunReporters(specs, out, v.verbose, lastRun?.reporter);
  const outstanding = new Outstanding();
  const interrupts = new Interrupts(outstanding);
  const settings = targetSettings(v);
  let probe: MiniflareProbe | undefined;
  let code: number | undefined;
  try {
    const options = {
      ...runOptions(v, config),
      ...(failed ? { clauses: failed } : {}),
      ...settings(Boolean(target) || Boolean(several?.some((t) => t.target)), config),
      outstanding,
      reporters,
      signal: interrupts.signal,
    };
    if (several) {
      const { reporters: _none, ...shared } = options;
      code = await runSeveral(
        {
          ...shared,
          targets: several,
          reporterSpecs: specs,
          verbose: v.verbose,
          exitFrom: v['exit-from'],
          // A flag sets every target; else a target's own file; else the config naming the targets.
          settingsFor: (t) => settings(Boolean(t.target), t.config, config),
        },
        out,
      );
      return code;
    }
    // --bindings miniflare: the probe runs in Miniflare for this run, in place of the target's.
    probe = miniflare ? await startMiniflareProbe() : undefined;
    const bindings = probe && { url: probe.url, legacyUrl: probe.legacyUrl, secret: probe.secret };
    // With no target, the embedded reference is started for this run and stopped after it.
    const results = target
      ? await runEdgecheck({ ...options, target: bindings ? withBindings(target, bindings) : target })
      : await runAgainstEmbedded({ ...options, reference: { faults: v.fault, bindings } });
    code = processExitCode(results, interrupts.interrupted);
    // The last line: where the run wrote a file nobody asked for, on the stream no document takes.
    if (lastRun?.written()) {
      const note = specs.some(documentToStdout) ? err : out;
      note.write(`last run written to ${LAST_RUN} (--no-last-run skips it)\n`);
    }
    return code;
  } finally {
    await probe?.close();
    // Until the process ends, a late signal exits with the run's code rather than killing a finished run.
    interrupts.release(code);
  }
}

type RunValues = ReturnType<typeof parse<typeof OPTIONS>>['values'];

/** What --target, --config and the target flags describe: several targets, one, or none (the embedded reference). */
function runTargets(
  v: RunValues,
  config: ConfigFile | undefined,
): { several?: ReturnType<typeof parseTargets>; target?: Target; miniflare: boolean } {
  if (config?.targets && v.target?.length) {
    throw new InputError('--target', `${v.config} names its targets already; give them in one place`);
  }
  const several = v.target?.length
    ? parseTargets(v.target)
    : config?.targets && v.config
      ? parseTargets(configTargets(config, v.config))
      : undefined;
  if (several) {
    // A config naming targets is the one --config allowed with several targets.
    const clash = SINGLE_TARGET_FLAGS.find((f) => v[f] !== undefined && !(f === 'config' && config?.targets));
    if (clash) {
      throw new InputError(
        `--${clash}`,
        'with --target, describe each target in its config file (or embedded:FAULT)',
      );
    }
  } else if (v['exit-from'] !== undefined) {
    throw new InputError('--exit-from', 'give it with --target NAME=SPEC');
  }
  const miniflare = oneOf('--bindings', v.bindings, ['miniflare'] as const) === 'miniflare';
  if (miniflare && v['bindings-url'] !== undefined) {
    throw new InputError(
      '--bindings miniflare',
      'it runs a probe of its own; give either it or --bindings-url',
    );
  }
  const target = several
    ? undefined
    : resolveTarget(config, v.config, {
        name: v.name,
        managementUrl: v['management-url'],
        s3Endpoint: v['s3-endpoint'],
        publicUrl: v['public-url'],
        accountId: v['account-id'],
        zoneId: v['zone-id'],
        ids: pairs('--id', v.id),
        addressing: oneOf('--addressing', v.addressing, ['path', 'virtual'] as const),
        region: v.region,
        features: v.feature,
        bindingsUrl: v['bindings-url'],
        bindingsLegacyUrl: v['bindings-legacy-url'],
        bindingsBucket: v['bindings-bucket'],
      });
  if (target && v.fault?.length) {
    throw new InputError(
      '--fault',
      'faults apply to the embedded reference only; drop --fault or the target options',
    );
  }
  return { several, target, miniflare };
}

/**
 * --failed: the clauses that failed or errored in the last run in this folder, narrowed by --suite
 * and --clause (the engine narrows by --case and --tag); empty when none failed. No last run, or
 * one that cannot be read, is bad input: there is nothing to select from.
 */
function failedClauses(suites: string[] | undefined, patterns: string[] | undefined): string[] {
  if (!existsSync(LAST_RUN)) {
    throw new InputError(
      '--failed',
      `no last run in this folder (${LAST_RUN}); run once without --failed (and without --no-last-run)`,
    );
  }
  let clauses: ClauseResult[];
  try {
    clauses = readResultsDocument(LAST_RUN).clauses;
  } catch (err) {
    throw new InputError(
      '--failed',
      `the last run cannot be read (${errorMessage(err)}); run once without --failed`,
    );
  }
  const failed = clauses.filter((c) => c.verdict === 'fail' || c.verdict === 'error');
  const named = (id: string) =>
    !patterns?.length || patterns.some((p) => (p.endsWith('*') ? id.startsWith(p.slice(0, -1)) : id === p));
  const selected = failed.filter((c) => (!suites?.length || suites.includes(c.area)) && named(c.id));
  if (failed.length && !selected.length) {
    const flags = [
      ...(suites ?? []).map((s) => `--suite ${s}`),
      ...(patterns ?? []).map((p) => `--clause ${p}`),
    ];
    throw new InputError(
      '--failed',
      `${failed.length === 1 ? '1 clause' : `${failed.length} clauses`} failed in the last run, ${failed.length === 1 ? 'not' : 'none of them'} selected by ${flags.join(' ')}`,
    );
  }
  return selected.map((c) => c.id);
}

/** A reporter that writes its document to stdout: a file reporter given no file. */
const documentToStdout = (spec: string) => !spec.includes('=') && spec.trim() !== 'console';

/**
 * The last run's JSON, so that `edgecheck clauses` can show verdicts without flags: best effort
 * only, and `written` once it is on disk, for the run to say where. None where it cannot be written.
 */
function lastRunReporter(): { reporter: Reporter; written: () => boolean } | undefined {
  if (!writableDir(path.dirname(LAST_RUN))) return undefined;
  const json = createReporter(`json=${LAST_RUN}`);
  let written = false;
  const reporter: Reporter = {
    onEvent: (e) => json.onEvent(e),
    close: () =>
      json.close().then(
        () => {
          written = true;
        },
        () => undefined,
      ),
  };
  return { reporter, written: () => written };
}

/**
 * A single target's reporters: those asked for, the last run's JSON (absent with --no-last-run)
 * and the CI step summary, both best effort only.
 */
function singleRunReporters(
  specs: string[],
  out: NodeJS.WritableStream,
  verbose?: boolean,
  lastRun?: Reporter,
): Reporter[] {
  const reporters = specs.map((spec) => createReporter(spec, { stream: out, verbose }));
  if (lastRun) reporters.push(lastRun);
  const stepSummary = githubStepSummary(specs);
  if (stepSummary) reporters.push(bestEffort(new MarkdownReporter({ dest: stepSummary, append: true })));
  return reporters;
}

/** The settings a config may give a target: the flag, else the first config that says (the most specific first). */
function targetSettings(v: RunValues) {
  return (live: boolean, ...configs: (ConfigFile | undefined)[]) => {
    const from = <K extends keyof ConfigFile>(key: K) => configs.find((c) => c?.[key] !== undefined)?.[key];
    return {
      concurrency: int('--concurrency', v.concurrency, 1, 256) ?? from('concurrency'),
      timeoutMs: int('--timeout', v.timeout, 100, 3_600_000) ?? from('timeoutMs'),
      rateLimit: rateLimit(v['rate-limit'] ?? from('rateLimit'), live),
      maxRequests: int('--max-requests', v['max-requests'], 1, 10_000_000) ?? from('maxRequests'),
      retries: int('--retries', v.retries, 0, 10) ?? from('retries'),
    };
  };
}

/** The selection and the run's own settings, from the flags and the config file. */
function runOptions(v: RunValues, config: ConfigFile | undefined) {
  return {
    suites: v.suite,
    cases: v.case,
    clauses: v.clause,
    tags: v.tag,
    shard: v.shard,
    asOf: date('--as-of', v['as-of'] ?? config?.asOf),
    profile: oneOf('--profile', v.profile ?? config?.profile, ['quick', 'full'] as const),
    readOnly: v['read-only'] ?? config?.readOnly,
    allowDisruptive: v['allow-disruptive'],
    maxRetryWaitMs: int('--max-retry-wait', v['max-retry-wait'], 0, 600_000),
    teardownTimeoutMs: int('--teardown-timeout', v['teardown-timeout'], 1000, 3_600_000),
    maxDurationMs: (int('--max-duration', v['max-duration'], 1, 7 * 86_400) ?? 3600) * 1000,
    seed: int('--seed', v.seed, 0, 2 ** 31 - 1),
    baseline: v.baseline,
    suitesDir: v['suites-dir'],
  };
}
