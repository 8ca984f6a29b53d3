import { createHash } from 'node:crypto';
import { HttpRequest } from '@smithy/protocol-http';
import { signerFor } from '../../runner/transports/sigv4.ts';

/** The keys a request is signed with. */
export interface Keys {
  accessKeyId: string;
  secretAccessKey: string;
}

/** How one request is signed: in the Authorization header, presigned (when, for how long), or not at all. */
export type Signed =
  | { sign: 'header'; region: string }
  | { sign: 'presign'; region: string; signedAt?: Date; expires?: number }
  | { sign: 'none' };

const sha256 = (body: string) => createHash('sha256').update(body).digest('hex');

/**
 * Sends one request through `endpoint` signed as `how` says: a header signature covers Host and
 * x-amz-content-sha256, the SHA-256 of the body (a signed payload); a presigned URL signs
 * UNSIGNED-PAYLOAD. The answer's status; its body is read to the end.
 */
export async function sendSigned(
  endpoint: string,
  keys: Keys,
  how: Signed,
  method: string,
  path: string,
  opts: { body?: string; headers?: Record<string, string> } = {},
): Promise<number> {
  const url = new URL(path, endpoint);
  let headers: Record<string, string> = { ...opts.headers };
  if (how.sign !== 'none') {
    const signer = signerFor({ ...keys, endpoint, region: how.region, addressing: 'path' });
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    const request = new HttpRequest({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query,
      headers: {
        ...headers,
        host: url.host,
        'x-amz-content-sha256': how.sign === 'header' ? sha256(opts.body ?? '') : 'UNSIGNED-PAYLOAD',
      },
    });
    if (how.sign === 'header') {
      headers = (await signer.sign(request)).headers;
    } else {
      const signed = await signer.presign(request, {
        expiresIn: how.expires ?? 300,
        signingDate: how.signedAt,
      });
      url.search = '';
      for (const [k, v] of Object.entries(signed.query ?? {})) url.searchParams.append(k, String(v));
      headers = { ...signed.headers };
    }
    delete headers.host;
  }
  const res = await fetch(url, { method, headers, body: opts.body });
  await res.arrayBuffer();
  return res.status;
}

/**
 * Requests signed the ways applications sign them: a bucket made signed for auto with no
 * LocationConstraint; objects written, read and listed signed for auto, us-east-1 and the empty
 * region, in the Authorization header (a signed payload) and presigned; the account's buckets
 * listed in each region. Then what an application's slips send: requests with no signature at all,
 * a CORS preflight, a presigned URL that expired two hours ago, a read of a missing key. Every
 * answer is taken as it comes.
 */
export async function signingTraffic(endpoint: string, keys: Keys, bucket: string): Promise<void> {
  const send = (
    how: Signed,
    method: string,
    path: string,
    opts?: { body?: string; headers?: Record<string, string> },
  ) => sendSigned(endpoint, keys, how, method, path, opts);
  await send({ sign: 'header', region: 'auto' }, 'PUT', `/${bucket}`);
  for (const region of ['auto', 'us-east-1', '']) {
    const header = { sign: 'header' as const, region };
    const key = `signed-${region || 'empty'}.txt`;
    await send(header, 'PUT', `/${bucket}/${key}`, { body: `signed for "${region}"` });
    await send(header, 'PUT', `/${bucket}/empty-${region || 'empty'}`, { body: '' });
    await send(header, 'GET', `/${bucket}/${key}`);
    await send(header, 'HEAD', `/${bucket}`);
    await send(header, 'GET', `/${bucket}?list-type=2`);
    await send(header, 'GET', '/');
    await send({ sign: 'presign', region }, 'GET', `/${bucket}/${key}`);
  }
  const none = { sign: 'none' as const };
  await send(none, 'GET', `/${bucket}/signed-auto.txt`);
  await send(none, 'HEAD', `/${bucket}/signed-auto.txt`);
  await send(none, 'GET', `/${bucket}?list-type=2`);
  await send(none, 'PUT', `/${bucket}/unsigned.txt`, { body: 'no signature' });
  await send(none, 'OPTIONS', `/${bucket}/signed-auto.txt`, {
    headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
  });
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  await send(
    { sign: 'presign', region: 'auto', signedAt: twoHoursAgo, expires: 60 },
    'GET',
    `/${bucket}/signed-auto.txt`,
  );
  await send({ sign: 'header', region: 'auto' }, 'GET', `/${bucket}/missing.txt`);
}
