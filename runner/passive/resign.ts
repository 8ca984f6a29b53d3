import { presign, signerFor, signHeaders } from '../transports/sigv4.ts';

/** The S3 credentials `edgecheck proxy --resign` signs forwarded requests with. */
export interface ResignCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The query parameters of a presigned URL, all replaced when it is signed again. */
const PRESIGN_PARAMS = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
  'X-Amz-Security-Token',
];

/**
 * A request its client signed for the proxy's address, signed again for the upstream's: SigV4
 * covers the Host header, and a target routes by it, so a request can reach the target neither
 * with the proxy's Host nor with a Host the signature did not cover. The new signature is AWS's
 * signer's, in the region the client signed for, over the payload hash the client declared
 * (UNSIGNED-PAYLOAD, a hex digest, STREAMING-UNSIGNED-PAYLOAD-TRAILER); a presigned URL is
 * presigned again for the time it had. Signed chunks (STREAMING-AWS4-HMAC-SHA256-PAYLOAD) chain
 * their signatures from the one replaced here and cannot be signed again: the answer says why.
 * The region it signed for comes back with the request: the target checked that, not the client's.
 */
export async function resign(
  req: { method: string; url: URL; headers: Record<string, string | string[]> },
  credentials: ResignCredentials,
): Promise<{ url: URL; headers: Record<string, string>; region: string } | { refused: string }> {
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) flat[k] = Array.isArray(v) ? v.join(', ') : v;
  const declared = flat['x-amz-content-sha256'] ?? 'UNSIGNED-PAYLOAD';
  if (/^STREAMING-(AWS4-HMAC-SHA256|AWS4-ECDSA)/.test(declared))
    return {
      refused: `signed chunks (${declared}) cannot be signed again; have the client send unsigned payloads or a payload hash`,
    };
  const credential = /Credential=[^/,]+\/\d{8}\/([^/,]+)\/s3\//.exec(flat.authorization ?? '')?.[1];
  const presigned = req.url.searchParams.get('X-Amz-Credential')?.split('/')[2];
  const region = credential ?? presigned ?? 'auto';
  const signer = signerFor({ region, ...credentials, endpoint: req.url.origin, addressing: 'path' });
  const { authorization: _a, 'x-amz-date': _d, host: _h, 'x-amz-security-token': _t, ...rest } = flat;
  if (req.url.searchParams.has('X-Amz-Signature')) {
    const expires = Number(req.url.searchParams.get('X-Amz-Expires') ?? 3600);
    const url = new URL(req.url);
    for (const p of PRESIGN_PARAMS) url.searchParams.delete(p);
    const { 'x-amz-content-sha256': _s, ...headers } = rest;
    const signed = await presign(
      signer,
      { method: req.method, url, headers, payloadHash: 'UNSIGNED-PAYLOAD' },
      expires,
    );
    return { url: signed.url, headers: { ...headers, ...signed.headers, host: url.host }, region };
  }
  const signed = await signHeaders(signer, {
    method: req.method,
    url: req.url,
    headers: rest,
    payloadHash: declared,
  });
  return { url: signed.url, headers: signed.headers, region };
}
