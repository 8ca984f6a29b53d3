import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_CREDENTIALS } from '../reference/context.ts';
import { type ManagementServer, startManagement } from './reference-management-harness.ts';

let srv: ManagementServer;
beforeAll(async () => {
  srv = await startManagement('2025-06-01');
});
afterAll(async () => {
  await srv.close();
});

const zonePath = () => `/zones/${srv.ids.zoneId}`;
const { token, legacyEmail, legacyKey } = REFERENCE_CREDENTIALS;

describe('management API authentication', () => {
  it('accepts a bearer token and the legacy email + key pair', async () => {
    expect((await srv.api('GET', zonePath())).body.success).toBe(true);
    const legacy = await srv.api('GET', zonePath(), undefined, {
      'x-auth-email': legacyEmail,
      'x-auth-key': legacyKey,
    });
    expect(legacy.status).toBe(200);
    expect(legacy.body.success).toBe(true);
  });

  const refused: [string, Record<string, string>][] = [
    ['no credentials', {}],
    ['a wrong token', { authorization: 'Bearer wrong-token' }],
    ['a malformed Authorization header', { authorization: `Token ${token}` }],
    ['a wrong key', { 'x-auth-email': legacyEmail, 'x-auth-key': 'wrong-key' }],
    ['a wrong email', { 'x-auth-email': 'someone@example.org', 'x-auth-key': legacyKey }],
    ['an email without a key', { 'x-auth-email': legacyEmail }],
  ];
  for (const [what, headers] of refused) {
    it(`answers ${what} with a 4xx error envelope`, async () => {
      const res = await srv.api('GET', zonePath(), undefined, headers);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body).toMatchObject({ success: false, result: null });
      expect(res.body.errors[0].code).toBeTypeOf('number');
      expect(JSON.stringify(res.body)).not.toContain(token);
      expect(JSON.stringify(res.body)).not.toContain(legacyKey);
    });
  }

  it('tells missing credentials (400) from wrong ones (403)', async () => {
    expect((await srv.api('GET', zonePath(), undefined, {})).status).toBe(400);
    expect((await srv.api('GET', zonePath(), undefined, { authorization: 'Bearer nope' })).status).toBe(403);
  });
});

describe('routing', () => {
  it('answers an unknown route and an unknown method with a no-route error envelope, not HTML', async () => {
    const unknown = await srv.api('GET', '/no/such/route');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, result: null, errors: [{ code: 7000 }] });
    const method = await srv.api('DELETE', zonePath());
    expect(method.status).toBe(405);
    expect(method.body).toMatchObject({ success: false, errors: [{ code: 7001 }] });
  });

  it('answers malformed JSON with a one-line error envelope', async () => {
    const res = await fetch(`${srv.base}/zones/${srv.ids.zoneId}/dns_records`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"type":',
    });
    expect(res.status).toBe(400);
    const body: any = await res.json();
    expect(body.success).toBe(false);
    expect(body.errors[0].message).not.toMatch(/\n|at .*\.ts/);
  });
});
