import type { ApiRequest, AuthMode } from '../model/case.ts';
import type { ManagementTarget } from '../model/target.ts';
import { InputError, TargetLacks } from '../util/errors.ts';
import { VERSION } from '../version.ts';
import type { OutgoingRequest } from './http.ts';

/** Appends query values; arrays repeat the key, objects are JSON. */
export function withQuery(url: URL, query: Record<string, unknown> | undefined): URL {
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) {
      url.searchParams.append(k, typeof item === 'object' ? JSON.stringify(item) : String(item));
    }
  }
  return url;
}

/** The step asks for credentials the target config does not hold: the check is skipped. */
export class MissingCredentials extends TargetLacks {}

/** The headers one auth mode adds. Wrong credentials are syntactically right but unknown. */
export function authHeaders(target: ManagementTarget, mode: AuthMode = 'default'): Record<string, string> {
  const pick = mode === 'default' ? (target.token ? 'bearer' : target.legacy ? 'legacy' : 'none') : mode;
  switch (pick) {
    case 'bearer':
      if (!target.token) throw new MissingCredentials('the target has no API token (EDGECHECK_API_TOKEN)');
      return { authorization: `Bearer ${target.token}` };
    case 'legacy':
      if (!target.legacy) {
        throw new MissingCredentials('the target has no key pair (EDGECHECK_AUTH_EMAIL, EDGECHECK_AUTH_KEY)');
      }
      return { 'x-auth-email': target.legacy.email, 'x-auth-key': target.legacy.key };
    case 'wrong-bearer':
      return { authorization: 'Bearer edgecheck-wrong-token-0000000000000000000000' };
    case 'wrong-legacy':
      return {
        'x-auth-email': target.legacy?.email ?? 'nobody@example.com',
        'x-auth-key': 'edgecheck0wrong0key000000000000000000',
      };
    case 'none':
      return {};
    default:
      throw new InputError('auth', `unknown auth mode '${mode}'`);
  }
}

export function managementUrl(target: ManagementTarget, path: string): URL {
  return new URL(`${target.baseUrl.replace(/\/+$/, '')}/client/v4${path}`);
}

/**
 * What requests call themselves: the case (or property) and the step in the User-Agent let a
 * target's access log say which step of which case sent a request; the reference's fault trace
 * reads the case.
 */
export function userAgent(caseId: string, step?: string): string {
  return `edgecheck/${VERSION} (case ${caseId}${step ? `; step ${step}` : ''})`;
}

/**
 * What a case's (or property's) teardown requests call themselves: apart from its steps, so that
 * a target's access log tells what a run removed from what it tested; the reference's fault trace
 * reads it too.
 */
export function teardownAgent(caseId: string): string {
  return `edgecheck/${VERSION} (case ${caseId}; teardown)`;
}

/** A resolved `api:` step as an HTTP request. */
export function buildApiRequest(
  target: ManagementTarget,
  api: ApiRequest,
  userAgent?: string,
): OutgoingRequest {
  const url = withQuery(managementUrl(target, api.path), api.query);
  const headers: Record<string, string> = { accept: 'application/json', ...authHeaders(target, api.auth) };
  if (userAgent) headers['user-agent'] = userAgent;
  let body: string | undefined;
  if (api.rawBody !== undefined) body = api.rawBody;
  else if (api.body !== undefined) {
    body = JSON.stringify(api.body);
    headers['content-type'] = 'application/json';
  }
  for (const [k, v] of Object.entries(api.headers ?? {})) headers[k.toLowerCase()] = v;
  return { method: api.method, url: url.toString(), headers, body };
}
