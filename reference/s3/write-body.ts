import type { Blob } from './blobs.ts';
import { type BodyDigest, incomingBody } from './body.ts';
import type { S3Call } from './call.ts';

/** Streams the request body into the blob store; nothing is kept when the body or a digest check fails. */
export async function storeBody(call: S3Call): Promise<{ blob: Blob; digest: BodyDigest }> {
  const body = incomingBody(call.req, call.payloadHash, {
    verifyChecksums: () => !call.ctx.faults.has('s3-put-checksum-unverified'),
    chunkSignature: call.chunkSignature,
  });
  const blob = await call.store.blobs.write(body.stream);
  try {
    return { blob, digest: body.finish() };
  } catch (err) {
    call.store.blobs.release(blob);
    throw err;
  }
}

const STORED_HEADERS = [
  'content-disposition',
  'content-language',
  'cache-control',
  'expires',
  'content-encoding',
];

/** The representation headers and user metadata an object keeps. */
export function storedHeaders(call: S3Call): {
  headers: Record<string, string>;
  metadata: Record<string, string>;
} {
  const headers: Record<string, string> = {};
  const metadata: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    let v = call.req.headers[name];
    if (Array.isArray(v)) v = v.join(',');
    if (v === undefined) continue;
    if (name === 'content-language' && call.ctx.faults.has('s3-content-language-dropped')) continue;
    if (name === 'content-encoding') {
      // aws-chunked is the transfer framing of the upload, not a property of the object; the rest
      // is kept as sent, spacing included (`deflate, gzip` comes back as `deflate, gzip`).
      const tokens = v.split(',').map((s) => s.trim());
      const kept = tokens.filter((s) => s && s.toLowerCase() !== 'aws-chunked');
      if (kept.length === 0) continue;
      if (
        kept.length < tokens.length ||
        (kept.length > 1 && call.ctx.faults.has('s3-content-encoding-joined'))
      )
        v = kept.join(',');
    }
    headers[name] = v;
  }
  for (const [name, v] of Object.entries(call.req.headers)) {
    if (name.startsWith('x-amz-meta-') && v !== undefined) {
      metadata[name.slice('x-amz-meta-'.length)] = Array.isArray(v) ? v.join(',') : v;
    }
  }
  if (Object.keys(metadata).length > 0 && call.ctx.faults.has('s3-metadata-dropped'))
    return { headers, metadata: {} };
  return { headers, metadata };
}
