import type { HttpRequest } from '@smithy/protocol-http';
import type { SignatureV4 } from '@smithy/signature-v4';
import type { S3Target } from '../model/target.ts';
import { onFirstUse } from '../util/packages.ts';
import { nodeSha256 } from './sha256.ts';

// Loaded by the first raw S3 request: a run of the management API alone signs nothing.
const smithyRequest = onFirstUse<typeof import('@smithy/protocol-http')>('@smithy/protocol-http');
const smithySigner = onFirstUse<typeof import('@smithy/signature-v4')>('@smithy/signature-v4');

/** AWS's own SigV4 signer, for raw S3 requests. */
export function signerFor(target: S3Target, secretOverride?: string): SignatureV4 {
  const { SignatureV4 } = smithySigner();
  return new SignatureV4({
    service: 's3',
    region: target.region,
    credentials: {
      accessKeyId: target.accessKeyId,
      secretAccessKey: secretOverride ?? target.secretAccessKey,
    },
    sha256: nodeSha256(),
    uriEscapePath: false,
    applyChecksum: false,
  });
}

export interface Unsigned {
  method: string;
  url: URL;
  headers: Record<string, string>;
  /** Hex SHA-256 of the body, or UNSIGNED-PAYLOAD. */
  payloadHash: string;
}

function toSmithy(req: Unsigned): HttpRequest {
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of req.url.searchParams) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return new (smithyRequest().HttpRequest)({
    method: req.method,
    protocol: req.url.protocol,
    hostname: req.url.hostname,
    port: req.url.port ? Number(req.url.port) : undefined,
    path: req.url.pathname,
    query,
    headers: { ...req.headers, host: req.url.host, 'x-amz-content-sha256': req.payloadHash },
  });
}

function toUrl(signed: { query?: Record<string, string | string[] | null> }, base: URL): URL {
  const url = new URL(base.toString());
  url.search = '';
  for (const [k, v] of Object.entries(signed.query ?? {})) {
    for (const item of Array.isArray(v) ? v : [v])
      if (item !== null && item !== undefined) url.searchParams.append(k, item);
  }
  // URLSearchParams encodes spaces as '+'; SigV4 canonicalizes them as %20.
  url.search = url.search.replace(/\+/g, '%20');
  return url;
}

export async function signHeaders(
  signer: SignatureV4,
  req: Unsigned,
): Promise<{ url: URL; headers: Record<string, string> }> {
  const signed = await signer.sign(toSmithy(req));
  return { url: toUrl(signed, req.url), headers: signed.headers };
}

export async function presign(
  signer: SignatureV4,
  req: Unsigned,
  expiresIn: number,
): Promise<{ url: URL; headers: Record<string, string> }> {
  const smithy = toSmithy(req);
  // S3 presigned URLs sign UNSIGNED-PAYLOAD; presign hoists the header into the query, as AWS's presigner does.
  smithy.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
  const signed = await signer.presign(smithy, { expiresIn });
  const headers = { ...signed.headers };
  delete headers.host;
  return { url: toUrl(signed, req.url), headers };
}
