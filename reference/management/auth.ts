import { timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import type { ReferenceContext } from '../context.ts';
import { ApiError, CODES, type ErrorObject } from './api-error.ts';

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function header(headers: http.IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * SPEC: Authentication. A bearer token or the legacy X-Auth-Email + X-Auth-Key pair.
 * Missing credentials are a bad request, wrong ones are forbidden; neither message echoes what was sent.
 */
export function authenticate(ctx: ReferenceContext, headers: http.IncomingHttpHeaders): void {
  const authorization = header(headers, 'authorization');
  const email = header(headers, 'x-auth-email');
  const key = header(headers, 'x-auth-key');
  const { credentials } = ctx;

  if (authorization === undefined && email === undefined && key === undefined) {
    if (ctx.faults.has('accept-missing-auth')) return;
    const status = ctx.faults.has('auth-error-status-200') ? 200 : 400;
    // An error object with neither code nor message.
    if (ctx.faults.has('empty-auth-error')) throw new ApiError(status, [{} as ErrorObject]);
    throw ApiError.of(status, CODES.missingAuth, 'Missing X-Auth-Key, X-Auth-Email or Authorization headers');
  }
  if (ctx.faults.has('accept-wrong-credentials')) return;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw ApiError.of(400, CODES.badAuth, 'Invalid format for Authorization header');
    if (!same(match[1], credentials.token)) throw ApiError.of(403, CODES.badAuth, 'Authentication error');
    return;
  }
  if (email === undefined || key === undefined) {
    throw ApiError.of(400, CODES.missingAuth, 'Missing X-Auth-Key, X-Auth-Email or Authorization headers');
  }
  if (ctx.faults.has('reject-legacy-auth')) throw ApiError.of(403, CODES.badAuth, 'Authentication error');
  if (
    !same(email.toLowerCase(), credentials.legacyEmail.toLowerCase()) ||
    // Under the fault the pair is checked by its email only.
    (!same(key, credentials.legacyKey) && !ctx.faults.has('legacy-key-not-compared'))
  ) {
    throw ApiError.of(403, CODES.badAuth, 'Authentication error');
  }
}
