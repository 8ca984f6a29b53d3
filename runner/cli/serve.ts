import { FAULTS } from '../../reference/faults.ts';
import { startReference } from '../../reference/server.ts';
import { today } from '../api.ts';
import { InputError } from '../util/errors.ts';
import { date, int, parse } from './args.ts';

export const SERVE_HELP = `Usage: edgecheck serve [options]

Starts the embedded reference target (management API, S3 interface, public buckets) on
127.0.0.1 and prints its URLs and the credentials it accepts. Stops on Ctrl-C.
  --port N            management API port (default: a free port); S3 and public use N+1, N+2
  --as-of YYYY-MM-DD  the date whose behaviour the server implements (default today)
  --fault NAME        break one behaviour (repeatable)
  --data-dir DIR      keep object bodies on disk instead of in memory
  --list-faults       print every fault with the clauses it breaks, and exit
`;

export async function serveCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values } = parse('serve', argv, {
    port: { type: 'string' },
    'as-of': { type: 'string' },
    fault: { type: 'string', multiple: true },
    'data-dir': { type: 'string' },
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
  const handle = await startReference({
    asOf,
    faults: values.fault,
    dataDir: values['data-dir'],
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
      `edgecheck reference target (as-of ${asOf}${values.fault?.length ? `, faults: ${values.fault.join(', ')}` : ''})`,
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
      'Run the suites against it from another shell:',
      `  EDGECHECK_API_TOKEN=${c.token} EDGECHECK_S3_ACCESS_KEY_ID=${c.accessKeyId} \\`,
      `  EDGECHECK_S3_SECRET_ACCESS_KEY=${c.secretAccessKey} npx edgecheck run \\`,
      `    --management-url ${handle.urls.management} --s3-endpoint ${handle.urls.s3} --public-url ${handle.urls.public} \\`,
      `    --account-id ${t.management!.accountId} --zone-id ${t.management!.zoneId} \\`,
      `    --id invite=${t.management!.ids.invite} --id certificatePack=${t.management!.ids.certificatePack} \\`,
      `    ${t.features.map((f) => `--feature ${f}`).join(' ')} --as-of ${asOf}`,
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
