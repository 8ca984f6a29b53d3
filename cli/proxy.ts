import { createReporter } from '../reporters/registry.ts';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { Reporter, RunResults } from '../runner/model/results.ts';
import {
  HarRecorder,
  PassiveJudge,
  type ProxyHandle,
  ProxyStats,
  passiveResults,
  type RecordLimits,
  type ResignCredentials,
  type StatusHandle,
  startProxy,
  startStatus,
} from '../runner/passive/index.ts';
import { errorMessage, InputError } from '../runner/util/errors.ts';
import { registerSecret, SECRET_ACCESS_KEY } from '../runner/util/redact.ts';
import { VERSION } from '../runner/version.ts';
import { bytes, date, duration, int, parse } from './args.ts';
import { renderDocument, reportDocument } from './report-document.ts';

export const PROXY_HELP = `Usage: edgecheck proxy --management-url URL --s3-endpoint URL [options]

Listens on 127.0.0.1 (a port for the management API, the next for S3), forwards every request
unchanged to the target, streams every answer back unchanged, and judges each exchange against
every clause that can be judged from what passes. Point your applications at it. Ctrl-C (or
SIGTERM) stops it and reports: a clause observed and never contradicted passes with the number of
exchanges, one contradicted fails with that exchange (redacted), one never observed is untested.

Options
  --management-url URL   the target's management API (either or both)
  --s3-endpoint URL      the target's S3 endpoint; the Host header goes as the client signed it,
                         unless --resign
  --resign               sign each S3 request again for the target's Host, with the keys in
                         EDGECHECK_S3_ACCESS_KEY_ID and EDGECHECK_S3_SECRET_ACCESS_KEY: a hosted
                         target routes by Host, which the client signed for the proxy's address.
                         Signed chunks (STREAMING-AWS4-HMAC-SHA256-PAYLOAD) cannot be signed again
  --port N               the management port (default: a free one); S3 listens on N+1
  --record FILE          also write the traffic as a HAR file, secrets redacted before writing
                         (bodies cut at 64 KiB); 'edgecheck judge FILE...' judges it again. The
                         file is a complete HAR after every exchange; past its bounds it is
                         renamed with the time (FILE's name.2026-01-01T00-00-00-000Z.har) and a
                         new one begun
  --record-max-bytes SIZE  a file's bound (default 100M): 64M, 1G
  --record-max-age DURATION  a file's age bound (default none): 1h, 1d
  --record-keep N        rotated files kept, the oldest deleted (default 10): a recording takes
                         at most (N + 1) x --record-max-bytes
  --as-of YYYY-MM-DD     the date whose rules the traffic is judged by (default today)
  --timeout MS           each forwarded request's deadline (default 300000)
  --reporter SPEC        console (default), json[=FILE], junit[=FILE], markdown[=FILE], html[=FILE]
  --report-every DURATION  also write every reporter that has a FILE on this schedule (30s, 15m,
                         1h), as the verdicts stand; SIGHUP writes them at once. Each file is
                         written beside and renamed over: a reader never sees half of one
  --status-port N        serve the status on this port: /metrics (Prometheus text format),
                         /report.json, /report.html (the documents as they stand) and /healthz
                         (200 while forwarding works)
  --status-host HOST     where the status port listens (default 127.0.0.1: what it shows is
                         about your traffic; expose it on purpose only)
  --secret VALUE         a value to redact wherever it appears (repeatable; tokens and keys in
                         Authorization and X-Auth-Key headers are redacted anyway)

Exit code: 0 when no observed clause fails, 1 otherwise, 2 for bad input.
`;

const PROXY_FLAGS = {
  'management-url': { type: 'string' },
  's3-endpoint': { type: 'string' },
  port: { type: 'string' },
  record: { type: 'string' },
  'record-max-bytes': { type: 'string' },
  'record-keep': { type: 'string' },
  'record-max-age': { type: 'string' },
  'as-of': { type: 'string' },
  timeout: { type: 'string' },
  reporter: { type: 'string', multiple: true },
  'report-every': { type: 'string' },
  'status-port': { type: 'string' },
  'status-host': { type: 'string' },
  secret: { type: 'string', multiple: true },
  resign: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** What the command line asks of the proxy, checked. */
interface ProxyConfig {
  upstream: { management?: string; s3?: string };
  resign?: ResignCredentials;
  port?: number;
  timeoutMs: number;
  asOf: string;
  reporters: string[];
  reportEveryMs?: number;
  status?: { host: string; port: number };
  record?: { file: string } & RecordLimits;
}

function proxyConfig(argv: string[]): ProxyConfig | 'help' {
  const { values } = parse('proxy', argv, PROXY_FLAGS);
  if (values.help) return 'help';
  const upstream = {
    management: origin('--management-url', values['management-url']),
    s3: origin('--s3-endpoint', values['s3-endpoint']),
  };
  if (!upstream.management && !upstream.s3)
    throw new InputError('proxy', 'give the target: --management-url URL and/or --s3-endpoint URL');
  for (const s of values.secret ?? []) registerSecret(s);
  const statusPort = int('--status-port', values['status-port'], 0, 65535);
  if (values['status-host'] !== undefined && statusPort === undefined)
    throw new InputError('--status-host', 'give --status-port N too');
  return {
    upstream,
    resign: values.resign ? resignCredentials(upstream.s3) : undefined,
    port: int('--port', values.port, 1, 65534),
    timeoutMs: int('--timeout', values.timeout, 1, 86_400_000) ?? 300_000,
    asOf: date('--as-of', values['as-of']) ?? today(),
    reporters: values.reporter?.length ? values.reporter : ['console'],
    reportEveryMs: duration('--report-every', values['report-every'], 100),
    status:
      statusPort === undefined ? undefined : { host: values['status-host'] ?? '127.0.0.1', port: statusPort },
    record: recordConfig(values),
  };
}

function recordConfig(values: {
  record?: string;
  'record-max-bytes'?: string;
  'record-keep'?: string;
  'record-max-age'?: string;
}): ProxyConfig['record'] {
  const limits: RecordLimits = {
    maxBytes: bytes('--record-max-bytes', values['record-max-bytes'], 4096),
    keep: int('--record-keep', values['record-keep'], 0, 100_000),
    maxAgeMs: duration('--record-max-age', values['record-max-age'], 1000),
  };
  if (!values.record) {
    const given = Object.entries(limits).find(([, v]) => v !== undefined);
    if (given) throw new InputError('--record-*', 'bounds a recording: give --record FILE too');
    return undefined;
  }
  return { file: values.record, ...limits };
}

export async function proxyCommand(
  argv: string[],
  out: NodeJS.WritableStream,
  /** Resolves when the proxy is to stop; the first SIGINT or SIGTERM by default. */
  stop?: Promise<unknown>,
): Promise<number> {
  const config = proxyConfig(argv);
  if (config === 'help') {
    out.write(PROXY_HELP);
    return 0;
  }
  const { upstream, asOf } = config;
  const reporters: Reporter[] = config.reporters.map((spec) => createReporter(spec, { stream: out }));
  const areas = listAreas();
  const suites = await loadSuites(areas, areas);
  const clauses = [...suites.clauses.values()];
  const judge = new PassiveJudge({ clauses, properties: suites.properties }, asOf);
  const stats = new ProxyStats();
  const recorder = config.record ? openRecorder(config.record) : undefined;
  let recordingStopped = false;
  const startedAt = new Date();
  const proxy = await startProxy({
    resign: config.resign,
    upstream,
    port: config.port,
    timeoutMs: config.timeoutMs,
    stats,
    onExchange: (ex) => {
      judge.observe(ex);
      recorder?.add(ex, upstream);
      if (recorder?.error && !recordingStopped) {
        recordingStopped = true;
        out.write(`edgecheck proxy: ${recorder.error}; forwarding and judging go on\n`);
      }
    },
  }).catch((err: NodeJS.ErrnoException) => {
    recorder?.close();
    throw new InputError(`--port ${config.port ?? 0}`, `cannot listen (${err.code ?? errorMessage(err)})`);
  });
  const results = () =>
    passiveResults({
      judge,
      clauses,
      mode: 'proxy',
      target: { name: 'proxied traffic', management: upstream.management, s3: upstream.s3, embedded: false },
      asOf,
      startedAt,
      upstreamErrors: stats.upstreamErrorsByKind(),
    });
  let status: StatusHandle | undefined;
  let schedule: ReportSchedule | undefined;
  try {
    status = config.status && (await openStatus(config.status, judge, stats, proxy, results, recorder));
    schedule = scheduleReports(config, results, out);
    out.write(banner(config, judge, proxy, status));
    await (stop ?? signalled());
  } finally {
    await schedule?.stop();
    await status?.close();
    await proxy.close();
    recorder?.close();
  }
  return reportDocument(results(), reporters);
}

/** The lines the proxy starts with: what it judges, where each door listens, where it reports. */
function banner(config: ProxyConfig, judge: PassiveJudge, proxy: ProxyHandle, status?: StatusHandle): string {
  const { upstream } = config;
  return [
    `edgecheck proxy: judging ${judge.judgeable.length} clauses from the traffic that passes, as of ${config.asOf}`,
    ...(proxy.urls.management
      ? [`  management API   ${proxy.urls.management}  ->  ${upstream.management}`]
      : []),
    ...(proxy.urls.s3 ? [`  S3 endpoint      ${proxy.urls.s3}  ->  ${upstream.s3}`] : []),
    ...(config.record ? [`  recording to     ${config.record.file}`] : []),
    ...(status ? [`  status           ${status.url}/metrics, /report.json, /report.html, /healthz`] : []),
    ...(config.reportEveryMs
      ? [`  reports          written every ${config.reportEveryMs / 1000} s and on SIGHUP`]
      : []),
    'Ctrl-C stops it and reports.',
    '',
  ].join('\n');
}

function openRecorder({ file, ...limits }: NonNullable<ProxyConfig['record']>): HarRecorder {
  try {
    return new HarRecorder(file, VERSION, limits);
  } catch (err) {
    throw new InputError(`--record ${file}`, `cannot write: ${errorMessage(err)}`);
  }
}

/** The status port, its documents rendered by the same reporters as at exit. */
async function openStatus(
  where: { host: string; port: number },
  judge: PassiveJudge,
  stats: ProxyStats,
  proxy: ProxyHandle,
  results: () => RunResults,
  recorder: HarRecorder | undefined,
): Promise<StatusHandle> {
  try {
    return await startStatus({
      ...where,
      version: VERSION,
      judge,
      stats,
      results,
      recording: recorder && (() => ({ stopped: Boolean(recorder.error), rotations: recorder.rotations })),
      render: (doc, format) => renderDocument(doc, format),
      listening: () => proxy.listening(),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(
      `--status-port ${where.port}`,
      `cannot listen on ${where.host} (${code ?? errorMessage(err)})`,
    );
  }
}

interface ReportSchedule {
  stop(): Promise<void>;
}

/**
 * Writes every reporter that has a file (json=FILE, html=FILE, ...) every --report-every and at
 * each SIGHUP, the proxy going on: each file is written beside and renamed over, so a reader never
 * sees half of one. Writes are one at a time.
 */
function scheduleReports(
  config: ProxyConfig,
  results: () => RunResults,
  out: NodeJS.WritableStream,
): ReportSchedule {
  const files = config.reporters.filter((spec) => spec.includes('='));
  let chain: Promise<void> = Promise.resolve();
  const write = () => {
    chain = chain.then(async () => {
      const doc = results();
      // One reporter at a time, so that one that cannot write leaves the others theirs; the proxy goes on.
      for (const spec of files) {
        await reportDocument(doc, [createReporter(spec, { stream: out })]).catch((err) =>
          out.write(
            `edgecheck proxy: ${spec}: ${err instanceof InputError ? err.what : errorMessage(err)}\n`,
          ),
        );
      }
    });
    return chain;
  };
  // With no file to write, a hangup keeps Node's meaning (the process ends) and no timer runs idle.
  if (files.length === 0) return { stop: () => chain };
  const timer = config.reportEveryMs ? setInterval(write, config.reportEveryMs) : undefined;
  timer?.unref();
  const onHangup = () => void write();
  process.on('SIGHUP', onHangup);
  return {
    stop: async () => {
      if (timer) clearInterval(timer);
      process.off('SIGHUP', onHangup);
      await chain;
    },
  };
}

/** The origin of a URL flag, or an InputError naming it. */
function origin(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
    return u.origin;
  } catch {
    throw new InputError(`${flag} ${value}`, 'write an http:// or https:// URL');
  }
}

/** Resolves at the first SIGINT or SIGTERM. */
function signalled(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

/** The keys --resign signs with, from the environment a run reads them from. */
function resignCredentials(s3: string | undefined): ResignCredentials {
  if (!s3) throw new InputError('--resign', 'signs S3 requests: give --s3-endpoint URL too');
  const accessKeyId = process.env.EDGECHECK_S3_ACCESS_KEY_ID;
  const secretAccessKey = process.env.EDGECHECK_S3_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey)
    throw new InputError(
      '--resign',
      'set EDGECHECK_S3_ACCESS_KEY_ID and EDGECHECK_S3_SECRET_ACCESS_KEY to the keys to sign with',
    );
  registerSecret(secretAccessKey, SECRET_ACCESS_KEY);
  return { accessKeyId, secretAccessKey };
}
