import type http from 'node:http';
import type { ReferenceContext } from '../context.ts';
import { caseOfUserAgent, requestContext } from '../fault-trace.ts';
import { framedTwice, type Handler } from '../handler.ts';
import { ApiError, CODES, type ErrorObject, noRoute } from './api-error.ts';
import { authenticate } from './auth.ts';
import { readJsonBody } from './body.ts';
import { registerCertificatePacks } from './certificate-packs.ts';
import { registerDnsRecords } from './dns-records.ts';
import { registerDnsSettings } from './dns-settings.ts';
import { failure, JSON_TYPE, sendJson, success } from './envelope.ts';
import { registerInvites } from './invites.ts';
import { registerLogpush } from './logpush.ts';
import { registerMigration } from './migration.ts';
import { registerRetiredEndpoints } from './retired-endpoints.ts';
import { Router } from './router.ts';
import { registerRulesets } from './rulesets.ts';
import { EOL, since } from './schedule.ts';
import { createState, type State } from './store.ts';
import { registerZoneSettings } from './zone-settings.ts';
import { registerZones } from './zones.ts';

const PREFIX = '/client/v4';

export function buildRouter(): Router {
  const router = new Router();
  registerZones(router);
  registerDnsRecords(router);
  registerDnsSettings(router);
  registerRulesets(router);
  registerLogpush(router);
  registerCertificatePacks(router);
  registerInvites(router);
  registerZoneSettings(router);
  registerMigration(router);
  registerRetiredEndpoints(router);
  return router;
}

/** The management API v4 of the reference: one in-memory state per handler (per server). */
export function createManagementHandler(ctx: ReferenceContext, state: State = createState(ctx)): Handler {
  const router = buildRouter();
  return (req, res) => {
    const rctx = requestContext(ctx, () => caseOfUserAgent(req.headers['user-agent']));
    serve(rctx, router, state, req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(rctx, res, internalError(req, err));
      else res.destroy();
    });
  };
}

async function serve(
  ctx: ReferenceContext,
  router: Router,
  state: State,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  try {
    // SPEC Security 3 / Versioning: from 2023-07-01 a request with both headers is declined.
    if (framedTwice(req)) {
      const declined = since(ctx, EOL.transferEncodingWithLength)
        ? !ctx.faults.has('accept-te-with-cl')
        : ctx.faults.has('decline-te-with-cl-early');
      if (declined) {
        sendJson(
          res,
          // Under the fault the decline comes from a handler that failed on the body: a server error.
          ctx.faults.has('decline-te-with-cl-500') ? 500 : 400,
          failure([
            {
              code: CODES.teWithCl,
              message: 'Requests with both Transfer-Encoding and Content-Length are declined',
            },
          ]),
          true,
        );
        req.resume();
        return;
      }
    }
    const url = new URL(req.url ?? '/', 'http://reference.invalid');
    const method = (req.method ?? 'GET').toUpperCase();
    const path = url.pathname.replace(/\/+$/, '');
    if (path !== PREFIX && !path.startsWith(`${PREFIX}/`)) {
      throw noRoute();
    }
    const { handler, params } = router.match(method, path.slice(PREFIX.length) || '/');
    authenticate(ctx, req.headers);
    const body = await readJsonBody(req);
    const out = handler({
      method,
      path,
      params,
      query: url.searchParams,
      body,
      headers: req.headers,
      ctx,
      state,
    });
    if (out.status === 204) {
      res.writeHead(204);
      res.end();
      return;
    }
    const answer = success(out.result, out.resultInfo);
    if (out.errors !== undefined) answer.errors = out.errors as typeof answer.errors;
    // A note about the creation as a bare string, where the service sends {code, message} objects.
    if (method === 'POST' && ctx.faults.has('bare-string-messages')) answer.messages = ['created'];
    sendJson(res, out.status ?? 200, answer, false, jsonLabel(ctx, out.status ?? 200));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    req.resume();
    sendError(ctx, res, err);
  }
}

function sendError(ctx: ReferenceContext, res: http.ServerResponse, err: ApiError): void {
  const unrouted = err.errors.some((e) => e.code === CODES.noRoute || e.code === CODES.methodNotAllowed);
  if (unrouted && ctx.faults.has('no-route-html')) {
    res.writeHead(err.status, { 'content-type': 'text/html' });
    res.end('<html><body><h1>404 Not Found</h1></body></html>');
    return;
  }
  const body = failure(err.errors);
  if (ctx.faults.has('failure-result-not-null')) body.result = {};
  // The codes of a wrapped root cause as strings, where error objects carry integers.
  if (ctx.faults.has('error-chain-code-string'))
    body.errors = body.errors.map((e) =>
      e.error_chain
        ? {
            ...e,
            error_chain: e.error_chain.map((c) => ({ ...c, code: String(c.code) as unknown as number })),
          }
        : e,
    );
  const notFound = err.errors.some((e) => e.code === CODES.notFound);
  // A not-found error that carries its code only.
  if (notFound && ctx.faults.has('not-found-without-message'))
    body.errors = body.errors.map((e) => (e.code === CODES.notFound ? ({ code: e.code } as ErrorObject) : e));
  // The not-found error told in messages, leaving errors empty.
  if (notFound && ctx.faults.has('not-found-in-messages')) [body.messages, body.errors] = [body.errors, []];
  // A code below the service's range of 1000 and up, for a resource that does not exist.
  if (notFound && ctx.faults.has('small-error-code'))
    body.errors = body.errors.map((e) => (e.code === CODES.notFound ? { ...e, code: 5 } : e));
  sendJson(res, err.status, body, false, jsonLabel(ctx, err.status));
}

/**
 * The media type of a JSON answer: application/json, which clients check before parsing. Under
 * faults, every answer is labelled text/plain, or an error answer text/html though its body is JSON.
 */
function jsonLabel(ctx: ReferenceContext, status: number): string {
  if (ctx.faults.has('json-labelled-text-plain')) return 'text/plain; charset=utf-8';
  if (status >= 400 && ctx.faults.has('error-json-labelled-html')) return 'text/html; charset=utf-8';
  return JSON_TYPE;
}

/** Unexpected failures answer a generic envelope; the cause goes to stderr in one line, never to the client. */
function internalError(req: http.IncomingMessage, err: unknown): ApiError {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(
    `management reference: ${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}: ${message}\n`,
  );
  return ApiError.of(500, CODES.internal, 'Internal server error');
}
