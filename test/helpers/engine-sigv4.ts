import { createHash, createHmac } from 'node:crypto';
import type { SeenRequest } from './engine-server.ts';

/**
 * An independent SigV4 verifier (AWS Signature Version 4, as the S3 documentation describes it),
 * written from the specification rather than with the signer the runner uses, so a signing
 * mistake in the runner cannot cancel out.
 */
const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s, 'utf8').digest();

function canonicalQuery(pairs: [string, string][]): string {
  return pairs
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function queryPairs(search: string): [string, string][] {
  if (!search) return [];
  return search.split('&').map((p) => {
    const i = p.indexOf('=');
    const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return i < 0 ? [dec(p), ''] : [dec(p.slice(0, i)), dec(p.slice(i + 1))];
  });
}

export type SigV4Outcome = 'valid' | 'invalid' | 'unsigned';

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Checks the Authorization header or the presigned query of a request the test server saw. */
export function verifySigV4(req: SeenRequest, creds: SigV4Credentials): SigV4Outcome {
  const [path, search = ''] = req.url.split(/\?(.*)/s);
  const query = queryPairs(search);
  const q = Object.fromEntries(query);
  const auth = String(req.headers.authorization ?? '');
  let credential: string;
  let signedHeaders: string[];
  let signature: string;
  let amzDate: string;
  let payload: string;
  let canonicalPairs = query;
  if (auth.startsWith('AWS4-HMAC-SHA256 ')) {
    const fields = Object.fromEntries(
      auth
        .slice(17)
        .split(/,\s*/)
        .map((f) => f.split('=') as [string, string]),
    );
    [credential, signature] = [fields.Credential, fields.Signature];
    signedHeaders = fields.SignedHeaders.split(';');
    amzDate = String(req.headers['x-amz-date']);
    payload = String(req.headers['x-amz-content-sha256'] ?? 'UNSIGNED-PAYLOAD');
  } else if (q['X-Amz-Signature']) {
    [credential, signature, amzDate] = [q['X-Amz-Credential'], q['X-Amz-Signature'], q['X-Amz-Date']];
    signedHeaders = q['X-Amz-SignedHeaders'].split(';');
    payload = 'UNSIGNED-PAYLOAD';
    canonicalPairs = query.filter(([k]) => k !== 'X-Amz-Signature');
  } else {
    return 'unsigned';
  }
  const [keyId, date, region, service, terminator] = credential.split('/');
  if (keyId !== creds.accessKeyId || terminator !== 'aws4_request') return 'invalid';
  const canonicalHeaders = signedHeaders
    .map(
      (h) =>
        `${h}:${String(req.headers[h] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const canonical = [
    req.method,
    path,
    canonicalQuery(canonicalPairs),
    canonicalHeaders,
    signedHeaders.join(';'),
    payload,
  ].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  let key: Buffer = hmac(`AWS4${creds.secretAccessKey}`, date);
  for (const part of [region, service, 'aws4_request']) key = hmac(key, part);
  return createHmac('sha256', key).update(toSign, 'utf8').digest('hex') === signature ? 'valid' : 'invalid';
}
