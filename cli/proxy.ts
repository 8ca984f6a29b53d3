import { createReporter } from '../reporters/registry.ts';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { Reporter } from '../runner/model/results.ts';
import {
  HarRecorder,
  PassiveJudge,
  passiveResults,
  type ResignCredentials,
  startProxy,
} from '../runner/passive/index.ts';
import { errorMessage, InputError } from '../runner/util/errors.ts';
import { registerSecret } from '../runner/util/redact.ts';
import { VERSION } from '../runner/version.ts';
import { date, int, parse } from './args.ts';
import { reportDocument } from './report-document.ts';

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
                         (bodies cut at 64 KiB); 'edgecheck judge FILE' judges it again
  --as-of YYYY-MM-DD     the date whose rules the traffic is judged by (default today)
  --timeout MS           each forwarded request's deadline (default 300000)
  --reporter SPEC        console (default), json[=FILE], junit[=FILE], markdown[=FILE], html[=FILE]
  --secret VALUE         a value to redact wherever it appears (repeatable; tokens and keys in
                         Authorization and X-Auth-Key headers are redacted anyway)

Exit code: 0 when no observed clause fails, 1 otherwise, 2 for bad input.
`;

export async function proxyCommand(
  argv: string[],
  out: NodeJS.WritableStream,
  /** Resolves when the proxy is to stop; the first SIGINT or SIGTERM by default. */
  stop?: Promise<unknown>,
): Promise<number> {
  const { values } = parse('proxy', argv, {
    'management-url': { type: 'string' },
    's3-endpoint': { type: 'string' },
    port: { type: 'string' },
    record: { type: 'string' },
    'as-of': { type: 'string' },
    timeout: { type: 'string' },
    reporter: { type: 'string', multiple: true },
    secret: { type: 'string', multiple: true },
    resign: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    out.write(PROXY_HELP);
    return 0;
  }
  const upstream = {
    management: origin('--management-url', values['management-url']),
    s3: origin('--s3-endpoint', values['s3-endpoint']),
  };
  if (!upstream.management && !upstream.s3)
    throw new InputError('proxy', 'give the target: --management-url URL and/or --s3-endpoint URL');
  for (const s of values.secret ?? []) registerSecret(s);
  const resign = values.resign ? resignCredentials(upstream.s3) : undefined;
  const port = int('--port', values.port, 1, 65534);
  const timeoutMs = int('--timeout', values.timeout, 1, 86_400_000) ?? 300_000;
  const asOf = date('--as-of', values['as-of']) ?? today();
  const reporters: Reporter[] = (values.reporter?.length ? values.reporter : ['console']).map((spec) =>
    createReporter(spec, { stream: out }),
  );
  const areas = listAreas();
  const suites = await loadSuites(areas, areas);
  const clauses = [...suites.clauses.values()];
  const judge = new PassiveJudge({ clauses, properties: suites.properties }, asOf);
  let recorder: HarRecorder | undefined;
  if (values.record) {
    try {
      recorder = new HarRecorder(values.record, VERSION);
    } catch (err) {
      throw new InputError(`--record ${values.record}`, `cannot write: ${errorMessage(err)}`);
    }
  }
  const startedAt = new Date();
  const proxy = await startProxy({
    resign,
    upstream,
    port,
    timeoutMs,
    onExchange: (ex) => {
      judge.observe(ex);
      recorder?.add(ex, upstream);
    },
  }).catch((err: NodeJS.ErrnoException) => {
    recorder?.close();
    throw new InputError(`--port ${port ?? 0}`, `cannot listen (${err.code ?? errorMessage(err)})`);
  });
  out.write(
    [
      `edgecheck proxy: judging ${judge.judgeable.length} clauses from the traffic that passes, as of ${asOf}`,
      ...(proxy.urls.management
        ? [`  management API   ${proxy.urls.management}  ->  ${upstream.management}`]
        : []),
      ...(proxy.urls.s3 ? [`  S3 endpoint      ${proxy.urls.s3}  ->  ${upstream.s3}`] : []),
      ...(values.record ? [`  recording to     ${values.record}`] : []),
      'Ctrl-C stops it and reports.',
      '',
    ].join('\n'),
  );
  await (stop ?? signalled());
  await proxy.close();
  recorder?.close();
  const results = passiveResults({
    judge,
    clauses,
    mode: 'proxy',
    target: { name: 'proxied traffic', management: upstream.management, s3: upstream.s3, embedded: false },
    asOf,
    startedAt,
  });
  return reportDocument(results, reporters);
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
  registerSecret(secretAccessKey);
  return { accessKeyId, secretAccessKey };
}
