import type http from 'node:http';
import type { ReferenceContext } from '../context.ts';
import type { ChunkSignature } from './sigv4.ts';
import type { S3Store } from './store.ts';

/** One S3 request after addressing and authentication: what every operation handler receives. */
export interface S3Call {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  ctx: ReferenceContext;
  store: S3Store;
  method: string;
  query: URLSearchParams;
  /** Decoded bucket and key ('' when absent). */
  bucket: string;
  key: string;
  /** x-amz-content-sha256 of the request (UNSIGNED-PAYLOAD for presigned URLs). */
  payloadHash: string;
  /** Chunk signatures to verify for streaming-signed bodies. */
  chunkSignature?: ChunkSignature;
  /** The region the request was signed for, where it was signed. */
  region?: string;
  /** For error documents: /bucket/key. */
  resource: string;
}

export function headerValue(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}
