import { FAULTS } from '../reference/faults.ts';
import { SERVICE_RATE_LIMIT } from '../reference/management/rate-limit.ts';
import { startReference } from '../reference/server.ts';
import { parseRateCap, type RateCap, today } from '../runner/api.ts';
import type { Target } from '../runner/model/target.ts';
import { InputError } from '../runner/util/errors.ts';
import { date, int, parse } from './args.ts';

export const SERVE_HELP = `Usage: edgecheck serve [options]

Starts the embedded reference target (management API, S3 interface, public buckets) on
127.0.0.1 and prints its URLs and the credentials it accepts. Stops on Ctrl-C.
  --port N            management API port (default: a free port); S3 and public use N+1, N+2
  --as-of YYYY-MM-DD  the date whose behaviour the server implements (default today)
  --fault NAME        break one behaviour (repeatable)
  --data-dir DIR      keep object bodies on disk instead of in memory
  --enforce-rate-limit N/WINDOW
                      refuse management requests past N in any WINDOW with 429 and
                      Retry-After, and every request for a window after, as the service
                      does past its 1200/5m ('service' for that limit)
  --list-faults       print every fault with the clauses it breaks, and exit
`;

/** `--enforce-rate-limit`: N/WINDOW, or `service` for the service's own limit. */
function enforcedLimit(text: string | undefined): RateCap | undefined {
  if (text === undefined) return undefined;
  if (text === 'service') return SERVICE_RATE_LIMIT;
  const cap = parseRateCap(text);
  if (!cap || cap === 'off') {
    throw new InputError(`--enforce-rate-limit ${text}`, "write N/WINDOW, e.g. 1200/5m, or 'service'");
  }
  return cap;
}

/** Shell words as they may be pasted: the reference's values are plain, anything else is quoted. */
const word = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * The `edgecheck run` arguments that target a served reference with everything it offers: the
 * bearer token and the key pair (legacy-auth clauses are skipped without the pair), the S3 keys,
 * the bindings probe and its secret, every id and feature. Unless it enforces a request limit
 * (`paced`) the live-target rate cap is off, and its state is its own, so the checks whose change
 * cannot be put back run too. Credentials go in the environment, never on the command line.
 */
export function runArgsFor(
  t: Target,
  asOf: string,
  opts: { paced?: boolean } = {},
): { env: Record<string, string>; args: string[] } {
  const m = t.management!;
  const s3 = t.s3!;
  const b = t.bindings;
  const pairs: [string, string | undefined][] = [
    ['EDGECHECK_API_TOKEN', m.token],
    ['EDGECHECK_AUTH_EMAIL', m.legacy?.email],
    ['EDGECHECK_AUTH_KEY', m.legacy?.key],
    ['EDGECHECK_S3_ACCESS_KEY_ID', s3.accessKeyId],
    ['EDGECHECK_S3_SECRET_ACCESS_KEY', s3.secretAccessKey],
    ['EDGECHECK_BINDINGS_SECRET', b?.secret],
  ];
  const env: Record<string, string> = {};
  for (const [k, v] of pairs) if (v !== undefined) env[k] = v;
  const args = [
    ...['--management-url', m.baseUrl, '--s3-endpoint', s3.endpoint],
    ...(s3.publicUrl ? ['--public-url', s3.publicUrl] : []),
    ...(m.accountId ? ['--account-id', m.accountId] : []),
    ...(m.zoneId ? ['--zone-id', m.zoneId] : []),
    ...Object.entries(m.ids).flatMap(([k, v]) => ['--id', `${k}=${v}`]),
    ...(b ? ['--bindings-url', b.url] : []),
    ...(b?.legacyUrl ? ['--bindings-legacy-url', b.legacyUrl] : []),
    ...(b?.bucket ? ['--bindings-bucket', b.bucket] : []),
    ...t.features.flatMap((f) => ['--feature', f]),
    // A server enforcing a limit is met with the run's default pacing, as a live target is.
    ...(opts.paced ? [] : ['--rate-limit', 'off']),
    '--allow-disruptive',
    ...['--as-of', asOf],
  ];
  return { env, args };
}

/** runArgsFor as one command to paste: flags paired with their values, about 90 columns a line. */
export function runCommandFor(t: Target, asOf: string, opts: { paced?: boolean } = {}): string {
  const { env, args } = runArgsFor(t, asOf, opts);
  const parts = [...Object.entries(env).map(([k, v]) => `${k}=${word(v)}`), 'npx edgecheck run'];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    const takesValue = flag !== '--allow-disruptive';
    parts.push(takesValue ? `${flag} ${word(args[++i])}` : flag);
  }
  // Continued with a backslash, so the command pastes as it is.
  const lines: string[] = [];
  let line = ' ';
  for (const p of parts) {
    if (line.length > 2 && line.length + p.length > 88) {
      lines.push(`${line} \\`);
      line = '   ';
    }
    line += ` ${p}`;
  }
  lines.push(line);
  return lines.join('\n');
}

export async function serveCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values } = parse('serve', argv, {
    port: { type: 'string' },
    'as-of': { type: 'string' },
    fault: { type: 'string', multiple: true },
    'data-dir': { type: 'string' },
    'enforce-rate-limit': { type: 'string' },
    'list-faults': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    out.write(SERVE_HELP);
    return 0;
  }
  if (values['list-faults']) {
    for (const f of FAULTS)
      out.write(
        `${f.name}  [${f.area}]  ${f.description}\n    breaks: ${f.breaks.join(', ') || '(none listed)'}\n`,
      );
    out.write(`${FAULTS.length} faults\n`);
    return 0;
  }
  const port = int('--port', values.port, 1, 65533);
  const asOf = date('--as-of', values['as-of']) ?? today();
  const limit = enforcedLimit(values['enforce-rate-limit']);
  const handle = await startReference({
    asOf,
    faults: values.fault,
    dataDir: values['data-dir'],
    managementRateLimit: limit,
    managementPort: port,
    s3Port: port && port + 1,
    publicPort: port && port + 2,
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE' || err.code === 'EACCES') {
      throw new InputError(
        `--port ${port}`,
        `cannot listen (${err.code}): the server needs ports ${port}, ${port! + 1} and ${port! + 2}`,
      );
    }
    throw err;
  });
  const c = handle.context.credentials;
  const t = handle.target();
  out.write(
    [
      `edgecheck reference target (as-of ${asOf}${values.fault?.length ? `, faults: ${values.fault.join(', ')}` : ''}${limit ? `, management requests limited to ${limit.requests} per ${limit.windowMs / 1000} s` : ''})`,
      `  management API   ${handle.urls.management}/client/v4`,
      `    token          Authorization: Bearer ${c.token}`,
      `    key pair       X-Auth-Email: ${c.legacyEmail}  X-Auth-Key: ${c.legacyKey}`,
      `    account id     ${t.management!.accountId}`,
      `    zone id        ${t.management!.zoneId}`,
      `    invite id      ${t.management!.ids.invite}   certificate pack id ${t.management!.ids.certificatePack}`,
      `  S3 endpoint      ${handle.urls.s3}   (region auto; virtual-hosted: http://<bucket>.localhost:${new URL(handle.urls.s3).port})`,
      `    access key id  ${c.accessKeyId}`,
      `    secret key     ${c.secretAccessKey}`,
      `  public buckets   ${handle.urls.public}/<bucket>/<key>`,
      '',
      'Run every suite against it, every credential and feature on, from another shell:',
      runCommandFor(t, asOf, { paced: limit !== undefined }),
      'Ctrl-C stops the server.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await handle.close();
  return 0;
}
