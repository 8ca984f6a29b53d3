import { describe, expect, it } from 'vitest';
import type { ManagementTarget } from '../runner/model/target.ts';
import { curlFor } from '../runner/steps/repro.ts';
import { authHeaders, buildApiRequest, MissingCredentials } from '../runner/transports/management.ts';

const target: ManagementTarget = {
  baseUrl: 'http://127.0.0.1:8787/',
  token: 'tok-123456',
  legacy: { email: 'ops@example.com', key: 'key-abcdef' },
  ids: {},
};

describe('management requests', () => {
  it('go to {base}/client/v4{path} with query values appended; arrays repeat the key, objects are JSON', () => {
    const req = buildApiRequest(target, {
      method: 'GET',
      path: '/zones',
      query: { page: 2, name: 'a b', match: ['x', 'y'], filter: { a: 1 }, skip: null },
    });
    const url = new URL(req.url);
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:8787/client/v4/zones');
    expect([...url.searchParams]).toEqual([
      ['page', '2'],
      ['name', 'a b'],
      ['match', 'x'],
      ['match', 'y'],
      ['filter', '{"a":1}'],
    ]);
    expect(req.headers).toEqual({ accept: 'application/json', authorization: 'Bearer tok-123456' });
    expect(req.body).toBeUndefined();
  });

  it('a body is sent as JSON with its content type; rawBody as is; step headers win, by lower-case name', () => {
    const json = buildApiRequest(target, { method: 'POST', path: '/zones', body: { name: 'example.com' } });
    expect(json.body).toBe('{"name":"example.com"}');
    expect(json.headers['content-type']).toBe('application/json');
    const raw = buildApiRequest(target, {
      method: 'POST',
      path: '/zones',
      rawBody: '{not json',
      headers: { 'Content-Type': 'text/plain', Accept: '*/*' },
    });
    expect(raw.body).toBe('{not json');
    expect(raw.headers['content-type']).toBe('text/plain');
    expect(raw.headers.accept).toBe('*/*');
  });

  it('each auth mode sends its own headers', () => {
    expect(authHeaders(target, 'default')).toEqual({ authorization: 'Bearer tok-123456' });
    expect(authHeaders({ ...target, token: undefined }, 'default')).toEqual({
      'x-auth-email': 'ops@example.com',
      'x-auth-key': 'key-abcdef',
    });
    expect(authHeaders(target, 'legacy')).toEqual({
      'x-auth-email': 'ops@example.com',
      'x-auth-key': 'key-abcdef',
    });
    expect(authHeaders(target, 'none')).toEqual({});
    const wrongBearer = authHeaders(target, 'wrong-bearer').authorization;
    expect(wrongBearer).toMatch(/^Bearer \S+$/);
    expect(wrongBearer).not.toContain('tok-123456');
    const wrongLegacy = authHeaders(target, 'wrong-legacy');
    expect(wrongLegacy['x-auth-email']).toBe('ops@example.com');
    expect(wrongLegacy['x-auth-key']).not.toBe('key-abcdef');
  });

  it('an auth mode the target has no credentials for says which are missing', () => {
    expect(() => authHeaders({ ...target, legacy: undefined }, 'legacy')).toThrow(MissingCredentials);
    expect(() => authHeaders({ ...target, token: undefined }, 'bearer')).toThrow(
      'the target has no API token (EDGECHECK_API_TOKEN)',
    );
  });

  it('the curl reproduction sends the same request and reads credentials from the environment', () => {
    const req = buildApiRequest(target, {
      method: 'POST',
      path: '/zones',
      query: { q: "it's" },
      body: { name: "o'neil" },
      auth: 'legacy',
    });
    const curl = curlFor(req, 'management');
    expect(curl).toBe(
      "curl -sS -i -X POST 'http://127.0.0.1:8787/client/v4/zones?q=it%27s' -H 'accept: application/json' " +
        `-H 'x-auth-email: ops@example.com' -H "X-Auth-Key: $EDGECHECK_AUTH_KEY" -H 'content-type: application/json' ` +
        `--data-binary '{"name":"o'\\''neil"}'`,
    );
    expect(curl).not.toContain('key-abcdef');
    const bearer = curlFor(
      buildApiRequest(target, { method: 'GET', path: '/user/tokens/verify' }),
      'management',
    );
    expect(bearer).toContain('-H "Authorization: Bearer $EDGECHECK_API_TOKEN"');
    expect(bearer).not.toContain('tok-123456');
  });
});
