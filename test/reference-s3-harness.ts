import { createHash } from 'node:crypto';
import http from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { S3Client } from '@aws-sdk/client-s3';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { type ReferenceHandle, startReference } from '../reference/server.ts';
import type { S3Target } from '../runner/model/target.ts';

/** A running reference and what tests need to talk to its S3 side. */
export interface S3Harness {
  ref: ReferenceHandle;
  target: S3Target;
  sdk: S3Client;
  raw: RawS3;
  close(): Promise<void>;
}

export async function startS3Harness(faults: string[] = [], dataDir?: string): Promise<S3Harness> {
  const ref = await startReference({ asOf: '2025-06-01', faults, dataDir });
  const target = ref.target().s3!;
  const sdk = sdkClient(target);
  return {
    ref,
    target,
    sdk,
    raw: new RawS3(target),
    close: async () => {
      sdk.destroy();
      await ref.close();
    },
  };
}

export function sdkClient(target: S3Target, secret = target.secretAccessKey): S3Client {
  return new S3Client({
    endpoint: target.endpoint,
    region: 'auto',
    forcePathStyle: true,
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: secret },
    maxAttempts: 1,
  });
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

export interface RawRequest {
  method: string;
  /** Path-style path, already encoded: /bucket/key. */
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** header (default), presign, none, bad (signed with a wrong secret), presign-bad (presigned with one). */
  sign?: 'header' | 'presign' | 'none' | 'bad' | 'presign-bad';
  /** Sign the SHA-256 of the body instead of UNSIGNED-PAYLOAD. */
  signedPayload?: boolean;
  /** Region of the credential scope (default auto). */
  region?: string;
  /** Host header to send (for virtual-hosted requests); the connection still goes to 127.0.0.1. */
  host?: string;
  /** Presigned URL validity and signing time. */
  expiresIn?: number;
  signingDate?: Date;
  /** Send to the public entry point (never signed). */
  publicEntry?: boolean;
}

const encodeQuery = (q: Record<string, string>) =>
  Object.entries(q)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');

/** Raw S3 HTTP requests signed with AWS's own signer: for answers no SDK lets a test shape. */
export class RawS3 {
  constructor(readonly target: S3Target) {}

  /** AWS's SigV4 signer for this target (a wrong secret for a bad signature). */
  signer(region = 'auto', secret = this.target.secretAccessKey): SignatureV4 {
    return new SignatureV4({
      service: 's3',
      region,
      credentials: { accessKeyId: this.target.accessKeyId, secretAccessKey: secret },
      sha256: Sha256,
      uriEscapePath: false,
      applyChecksum: false,
    });
  }

  /** The headers send() signs r with (header signing, unsigned payload), for requests written to a raw socket. */
  async signedHeaders(r: Pick<RawRequest, 'method' | 'path' | 'headers'>): Promise<Record<string, string>> {
    const base = new URL(this.target.endpoint);
    const signer = this.signer();
    const request = new HttpRequest({
      method: r.method,
      protocol: 'http:',
      hostname: base.hostname,
      path: r.path,
      headers: { ...(r.headers ?? {}), host: base.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    });
    return (await signer.sign(request)).headers;
  }

  async send(r: RawRequest): Promise<RawResponse> {
    const base = new URL(r.publicEntry ? this.target.publicUrl! : this.target.endpoint);
    const host = r.host ?? base.host;
    const body = r.body === undefined ? undefined : Buffer.from(r.body);
    const headers: Record<string, string> = { ...(r.headers ?? {}), host };
    let query: Record<string, string> = { ...(r.query ?? {}) };
    const sign = r.publicEntry ? 'none' : (r.sign ?? 'header');
    if (sign !== 'none') {
      const wrong = sign === 'bad' || sign === 'presign-bad';
      const signer = this.signer(r.region, wrong ? 'not-the-secret' : undefined);
      const payload =
        r.headers?.['x-amz-content-sha256'] ??
        (r.signedPayload
          ? createHash('sha256')
              .update(body ?? Buffer.alloc(0))
              .digest('hex')
          : 'UNSIGNED-PAYLOAD');
      const request = new HttpRequest({
        method: r.method,
        protocol: 'http:',
        hostname: base.hostname,
        path: r.path,
        query,
        headers: { ...headers, 'x-amz-content-sha256': payload },
      });
      if (sign === 'presign' || sign === 'presign-bad') {
        const signed = await signer.presign(request, {
          expiresIn: r.expiresIn ?? 300,
          signingDate: r.signingDate,
          unhoistableHeaders: new Set(Object.keys(headers)),
        });
        query = Object.fromEntries(Object.entries(signed.query ?? {}).map(([k, v]) => [k, String(v)]));
      } else {
        const signed = await signer.sign(request, { signingDate: r.signingDate });
        Object.assign(headers, signed.headers);
      }
    }
    const qs = encodeQuery(query);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: Number(base.port),
          method: r.method,
          path: r.path + (qs ? `?${qs}` : ''),
          headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const buf = Buffer.concat(chunks);
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: buf,
              text: buf.toString('utf8'),
            });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
}

/** Text of the first `<Name>` element of an XML answer. */
export function xmlValue(xml: string, name: string): string | undefined {
  return new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
}

export function xmlValues(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1]);
}
