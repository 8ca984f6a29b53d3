import http from 'node:http';
import type { ReferenceContext } from '../context.ts';
import { framedTwice, type Handler } from '../handler.ts';
import { addressedBucket, parseAddress, virtualHostBucket } from './address.ts';
import { BINDINGS_PATH, serveBinding } from './bindings.ts';
import type { S3Call } from './call.ts';
import { corsHeaders, preflight } from './cors.ts';
import { accessDenied, S3Error } from './errors.ts';
import { asHandler, sendError } from './respond.ts';
import { dispatch } from './router.ts';
import { authenticate } from './sigv4.ts';
import type { S3Store } from './store.ts';

/** The S3-compatible endpoint: addressing, CORS preflight, SigV4, then the operation. */
export function createS3Endpoint(ctx: ReferenceContext, store: S3Store): Handler {
  return asHandler(
    ctx,
    (req) => addressedBucket(req.url ?? '/', req.headers.host),
    (req, res, rctx) => handle(req, res, rctx, store),
  );
}

async function handle(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  ctx: ReferenceContext,
  store: S3Store,
) {
  const method = (req.method ?? 'GET').toUpperCase();
  const url = req.url ?? '/';
  if (url.startsWith(BINDINGS_PATH))
    return serveBinding(req, res, ctx, store, url === `${BINDINGS_PATH}legacy`);
  const resourceOf = (bucket: string, key: string) => `/${bucket}${key ? `/${key}` : ''}`;
  let address: ReturnType<typeof parseAddress>;
  try {
    const host = req.headers.host;
    const pathStyle = virtualHostBucket(host) !== undefined && ctx.faults.has('s3-virtual-hosted-off');
    address = parseAddress(req.url ?? '/', pathStyle ? undefined : host);
  } catch (err) {
    req.resume();
    throw err;
  }
  const { bucket, key, rawPath, query } = address;
  const resource = resourceOf(bucket, key);
  try {
    if (method === 'OPTIONS') {
      // Preflights are never signed (SPEC behaviour 14).
      req.resume();
      if (!req.headers.origin) {
        throw new S3Error(400, 'BadRequest', 'Insufficient information. Origin request header needed.');
      }
      if (ctx.faults.has('s3-preflight-s3-forbidden')) {
        throw accessDenied('CORS preflight is not served here.');
      }
      return preflight(req, res, store.bucket(bucket), ctx);
    }
    // Expect: 100-continue (RFC 9110): the body is invited once the credentials hold, so a request
    // whose headers fail gets its refusal at once; under a fault, before they are checked.
    const invite = /100-continue/i.test(String(req.headers.expect ?? ''));
    const early = invite && ctx.faults.has('s3-continue-before-auth');
    if (early) res.writeContinue();
    // The call the request makes, once its payload's hash is known.
    const callWith = (payloadHash: string, chunkSignature?: S3Call['chunkSignature']): S3Call => ({
      req,
      res,
      ctx,
      store,
      method,
      query,
      bucket,
      key,
      payloadHash,
      chunkSignature,
      resource,
    });
    let authenticated: Awaited<ReturnType<typeof authenticate>>;
    try {
      authenticated = await authenticate({ method, rawPath, query, headers: req.headers, bucket, key }, ctx);
    } catch (err) {
      // Under a fault, an unsigned PutObject is carried out before its refusal is sent.
      if (
        method === 'PUT' &&
        key &&
        !invite &&
        req.headers.authorization === undefined &&
        !query.has('X-Amz-Signature') &&
        ctx.faults.has('s3-unsigned-put-stored-then-refused')
      ) {
        await dispatch({ ...callWith('UNSIGNED-PAYLOAD'), res: new http.ServerResponse(req) }).catch(
          () => undefined,
        );
      }
      throw err;
    }
    const { payloadHash, chunkSignature, region } = authenticated;
    if (invite && !early) res.writeContinue();
    const call = { ...callWith(payloadHash, chunkSignature), region };
    // SPEC Authentication rule 3: Transfer-Encoding with Content-Length is declined (the server's parser lets
    // such requests through to be answered here, framed by Transfer-Encoding).
    if (framedTwice(req) && !ctx.faults.has('s3-te-cl-served')) {
      // Under a fault, the request is carried out first and declined afterwards.
      if (ctx.faults.has('s3-te-cl-declined-after-write'))
        await dispatch({ ...call, res: new http.ServerResponse(req) }).catch(() => undefined);
      throw new S3Error(
        400,
        'BadRequest',
        'A request may not carry both Transfer-Encoding and Content-Length.',
      );
    }
    // Under a fault, CORS is applied to requests signed in the Authorization header only.
    const cors = Object.entries(corsHeaders(req, store.buckets.get(bucket), ctx));
    const bare =
      cors.length > 0 && call.query.has('X-Amz-Signature') && ctx.faults.has('s3-cors-presigned-bare');
    if (!bare) for (const [name, value] of cors) res.setHeader(name, value);
    await dispatch(call);
  } catch (err) {
    // Drain what the client is still sending, so that it reads the error instead of a reset.
    if (!req.readableEnded) req.resume();
    sendError(res, err, ctx, method, resource);
  }
}
