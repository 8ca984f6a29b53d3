import type http from 'node:http';
import type { ReferenceContext } from '../context.ts';
import type { Handler } from '../handler.ts';
import { addressedBucket, parseAddress } from './address.ts';
import { corsHeaders, preflight } from './cors.ts';
import { accessDenied, noSuchKey, S3Error } from './errors.ts';
import { asHandler, sendError } from './respond.ts';
import { serveObject } from './serve-object.ts';
import type { S3Store } from './store.ts';

/**
 * The public entry point: `{public}/{bucket}/{key}`, unsigned, read-only. Every bucket is publicly readable
 * there (a reference choice). SPEC behaviour 10: gzip content carries Content-Encoding for clients that
 * accept gzip; behaviour 14: OPTIONS without Origin is 400.
 */
export function createPublicEntry(ctx: ReferenceContext, store: S3Store): Handler {
  return asHandler(
    ctx,
    (req) => addressedBucket((req.url ?? '/').split('?')[0], undefined),
    (req, res, rctx) => handle(req, res, rctx, store),
  );
}

async function handle(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  ctx: ReferenceContext,
  store: S3Store,
) {
  req.resume();
  const method = (req.method ?? 'GET').toUpperCase();
  const url = (req.url ?? '/').split('?')[0];
  const { bucket, key } = parseAddress(url, undefined);
  const resource = `/${bucket}/${key}`;
  try {
    if (method === 'OPTIONS') {
      if (!req.headers.origin) {
        if (ctx.faults.has('s3-public-options-401')) throw new S3Error(401, 'Unauthorized', 'Unauthorized.');
        if (ctx.faults.has('s3-public-options-403')) throw accessDenied();
        throw new S3Error(400, 'BadRequest', 'An OPTIONS request needs an Origin header.');
      }
      if (ctx.faults.has('s3-preflight-public-no-cors')) return void res.writeHead(200).end();
      // Under a fault, a public bucket grants every preflight, whatever its CORS rules say.
      if (ctx.faults.has('s3-preflight-public-any-origin'))
        return void res
          .writeHead(200, {
            'access-control-allow-origin': '*',
            'access-control-allow-methods': String(req.headers['access-control-request-method'] ?? 'GET'),
          })
          .end();
      return preflight(req, res, store.bucket(bucket), ctx);
    }
    if (method !== 'GET' && method !== 'HEAD') {
      throw new S3Error(405, 'MethodNotAllowed', 'The public entry point is read-only.');
    }
    const b = store.bucket(bucket);
    const obj = key ? b.objects.get(key) : undefined;
    if (!obj) throw noSuchKey(key);
    await serveObject(req, res, ctx, store.blobs, obj, {
      publicEntry: true,
      extraHeaders: corsHeaders(req, b, ctx),
    });
  } catch (err) {
    sendError(res, err, ctx, method, resource);
  }
}
