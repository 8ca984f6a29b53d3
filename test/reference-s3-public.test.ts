import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3Harness, startS3Harness, xmlValue } from './reference-s3-harness.ts';

let h: S3Harness;
const page = '<p>served compressed</p>'.repeat(20);

beforeAll(async () => {
  h = await startS3Harness();
  await h.raw.send({ method: 'PUT', path: '/pub' });
  await h.raw.send({
    method: 'PUT',
    path: '/pub/page.html',
    body: gzipSync(page),
    headers: { 'content-type': 'text/html', 'content-encoding': 'gzip' },
  });
  await h.raw.send({ method: 'PUT', path: '/pub/plain.txt', body: '0123456789' });
  await h.raw.send({
    method: 'PUT',
    path: '/pub',
    query: { cors: '' },
    body:
      '<CORSConfiguration><CORSRule><AllowedOrigin>https://app.example.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod>' +
      '<AllowedHeader>X-Custom-*</AllowedHeader></CORSRule></CORSConfiguration>',
  });
});
afterAll(async () => {
  await h?.close();
});

const pub = (path: string, method = 'GET', headers: Record<string, string> = {}) =>
  h.raw.send({ method, path, headers, publicEntry: true });

describe('the public bucket entry point', () => {
  it('serves objects unsigned at {public}/{bucket}/{key}, ranges included', async () => {
    const full = await pub('/pub/plain.txt');
    expect(full.status).toBe(200);
    expect(full.text).toBe('0123456789');
    const part = await pub('/pub/plain.txt', 'GET', { range: 'bytes=0-0' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 0-0/10');
    expect((await pub('/pub/absent')).status).toBe(404);
  });

  it('sends gzip content with Content-Encoding gzip to clients that accept gzip, decoded to the others', async () => {
    const gz = await pub('/pub/page.html', 'GET', { 'accept-encoding': 'gzip, br' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(page);
    const identity = await pub('/pub/page.html', 'GET', { 'accept-encoding': 'identity' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.text).toBe(page);
  });

  it('answers OPTIONS without Origin with 400, and preflights against the bucket CORS rules', async () => {
    const noOrigin = await pub('/pub/plain.txt', 'OPTIONS', { 'access-control-request-method': 'GET' });
    expect(noOrigin.status).toBe(400);
    const ok = await pub('/pub/plain.txt', 'OPTIONS', {
      origin: 'https://app.example.com',
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'x-custom-trace',
    });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(ok.headers['access-control-expose-headers']).toBeUndefined();
    const other = await pub('/pub/plain.txt', 'OPTIONS', {
      origin: 'https://elsewhere.example',
      'access-control-request-method': 'GET',
    });
    expect(other.status).not.toBe(403);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('is read-only', async () => {
    const res = await pub('/pub/plain.txt', 'PUT');
    expect(res.status).toBe(405);
    expect(xmlValue(res.text, 'Code')).toBe('MethodNotAllowed');
  });
});
