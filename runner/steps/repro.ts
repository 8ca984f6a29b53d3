import { GeneratedBody } from '../template/resolve.ts';
import type { OutgoingRequest } from '../transports/http.ts';

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A curl command that sends the same request. Credentials are never written out: the
 * command reads them from the environment, and SigV4 requests use curl's own signer.
 */
export function curlFor(
  req: OutgoingRequest,
  auth: 'management' | 'sigv4' | 'presigned' | 'none',
  region = 'auto',
  /** The step sends deliberately wrong credentials: the command must send the same wrong ones. */
  wrong = false,
): string {
  const prefix: string[] = [];
  const parts = ['curl -sS -i', '-X', req.method, q(req.url)];
  for (const [k, v] of Object.entries(req.headers)) {
    const key = k.toLowerCase();
    if (key === 'authorization' && auth === 'management') {
      // A wrong token is no secret, but it is passed the same way so redaction leaves the command whole.
      if (wrong) prefix.push(`EDGECHECK_WRONG_TOKEN=${q(v.replace(/^Bearer\s+/i, ''))}`);
      parts.push(
        '-H',
        wrong
          ? '"Authorization: Bearer $EDGECHECK_WRONG_TOKEN"'
          : '"Authorization: Bearer $EDGECHECK_API_TOKEN"',
      );
    } else if (key === 'x-auth-key') {
      if (wrong) prefix.push(`EDGECHECK_WRONG_KEY=${q(v)}`);
      parts.push('-H', wrong ? '"X-Auth-Key: $EDGECHECK_WRONG_KEY"' : '"X-Auth-Key: $EDGECHECK_AUTH_KEY"');
    } else if (key === 'x-edgecheck-probe-secret') {
      parts.push('-H', '"x-edgecheck-probe-secret: $EDGECHECK_BINDINGS_SECRET"');
    } else if (auth === 'sigv4' && (key === 'authorization' || key === 'x-amz-date')) {
      // curl --aws-sigv4 signs afresh.
    } else {
      parts.push('-H', q(`${k}: ${v}`));
    }
  }
  if (auth === 'sigv4') {
    const secret = wrong ? '$AWS_SECRET_ACCESS_KEY-wrong' : '$AWS_SECRET_ACCESS_KEY';
    parts.push(`--aws-sigv4 'aws:amz:${region}:s3'`, `--user "$AWS_ACCESS_KEY_ID:${secret}"`);
  }
  if (req.body instanceof GeneratedBody) {
    parts.push(
      `--data-binary @<(head -c ${req.body.size} /dev/urandom)`,
      '# generated payload: any bytes of that size',
    );
  } else if (req.body !== undefined) {
    const text = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : req.body;
    parts.push('--data-binary', q(text.length > 2000 ? `${text.slice(0, 2000)}...` : text));
  }
  return [...prefix, ...parts].join(' ');
}

/** The AWS CLI command closest to an SDK step; the CLI needs the region, which may be `auto`. */
export function awsCliFor(
  command: string,
  input: Record<string, unknown>,
  target: { endpoint: string; region: string },
): string {
  const op = command.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  const args = [`aws s3api ${op}`, `--endpoint-url ${q(target.endpoint)}`, `--region ${q(target.region)}`];
  for (const [k, v] of Object.entries(input)) {
    const flag = `--${k.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}`;
    if (v instanceof GeneratedBody) args.push(flag, `<(head -c ${v.size} /dev/urandom)`);
    else args.push(flag, q(typeof v === 'string' ? v : JSON.stringify(v)));
  }
  return args.join(' ');
}
