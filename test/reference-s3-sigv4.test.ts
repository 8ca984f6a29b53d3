import { createHash } from 'node:crypto';
import http from 'node:http';
import { HttpRequest } from '@smithy/protocol-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3Harness, startS3Harness, xmlValue } from './reference-s3-harness.ts';

let h: S3Harness;

beforeAll(async () => {
  h = await startS3Harness();
  await h.raw.send({ method: 'PUT', path: '/sig' });
  await h.raw.send({ method: 'PUT', path: '/sig/k', body: 'signed content' });
});
afterAll(async () => {
  await h?.close();
});

describe('SigV4 verification of the S3 reference', () => {
  it('rejects a header signature made with the wrong secret: 403 SignatureDoesNotMatch, no signature echoed', async () => {
    const res = await h.raw.send({ method: 'GET', path: '/sig/k', sign: 'bad' });
    expect(res.status).toBe(403);
    expect(xmlValue(res.text, 'Code')).toBe('SignatureDoesNotMatch');
    expect(res.text).not.toMatch(/[0-9a-f]{64}/);
    expect(res.text).not.toContain(h.target.secretAccessKey);
  });

  it('rejects unsigned requests with 403 AccessDenied', async () => {
    const res = await h.raw.send({ method: 'GET', path: '/sig/k', sign: 'none' });
    expect(res.status).toBe(403);
    expect(xmlValue(res.text, 'Code')).toBe('AccessDenied');
  });

  it('accepts region auto and its aliases "" and us-east-1, and refuses another region', async () => {
    for (const region of ['auto', '', 'us-east-1']) {
      expect((await h.raw.send({ method: 'GET', path: '/sig/k', region })).status).toBe(200);
    }
    const other = await h.raw.send({ method: 'GET', path: '/sig/k', region: 'eu-west-1' });
    expect(other.status).toBe(400);
  });

  it('accepts a signed payload and refuses a body that does not match its signed hash', async () => {
    const ok = await h.raw.send({
      method: 'PUT',
      path: '/sig/payload',
      body: 'exact bytes',
      signedPayload: true,
    });
    expect(ok.status).toBe(200);
    const res = await h.raw.send({
      method: 'PUT',
      path: '/sig/payload2',
      body: 'other bytes',
      headers: { 'x-amz-content-sha256': createHash('sha256').update('exact bytes').digest('hex') },
    });
    // The header is part of the signature, so the claimed hash is signed; only the body differs.
    expect(res.status).toBe(400);
    expect(xmlValue(res.text, 'Code')).toBe('XAmzContentSHA256Mismatch');
    expect((await h.raw.send({ method: 'HEAD', path: '/sig/payload2' })).status).toBe(404);
  });

  it('accepts Accept-Encoding among the SignedHeaders', async () => {
    const res = await h.raw.send({
      method: 'GET',
      path: '/sig/k',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('signed content');
  });

  it('serves presigned GET, ListObjects and ListBuckets, and refuses an expired presigned URL', async () => {
    expect((await h.raw.send({ method: 'GET', path: '/sig/k', sign: 'presign' })).text).toBe(
      'signed content',
    );
    expect((await h.raw.send({ method: 'GET', path: '/sig', sign: 'presign' })).text).toContain(
      '<Key>k</Key>',
    );
    expect((await h.raw.send({ method: 'GET', path: '/', sign: 'presign' })).text).toContain(
      '<Name>sig</Name>',
    );
    const expired = await h.raw.send({
      method: 'GET',
      path: '/sig/k',
      sign: 'presign',
      expiresIn: 60,
      signingDate: new Date(Date.now() - 3600_000),
    });
    expect(expired.status).toBe(403);
  });

  it('verifies the chunk signatures of a STREAMING-AWS4-HMAC-SHA256-PAYLOAD body', async () => {
    const send = async (tamper: boolean) => {
      const url = new URL(h.target.endpoint);
      const chunks = [Buffer.from('first chunk, '), Buffer.from('second chunk')];
      const decoded = Buffer.concat(chunks);
      const signer = h.raw.signer();
      const date = new Date();
      const headers: Record<string, string> = {
        host: url.host,
        'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
        'content-encoding': 'aws-chunked',
        'x-amz-decoded-content-length': String(decoded.length),
      };
      const signed = await signer.sign(
        new HttpRequest({
          method: 'PUT',
          protocol: 'http:',
          hostname: url.hostname,
          path: '/sig/streamed',
          headers,
        }),
        { signingDate: date },
      );
      let previous = /Signature=([0-9a-f]+)/.exec(String(signed.headers.authorization))![1];
      const longDate = String(signed.headers['x-amz-date']);
      const scope = `${longDate.slice(0, 8)}/auto/s3/aws4_request`;
      const empty = createHash('sha256').digest('hex');
      const parts: Buffer[] = [];
      for (const data of [...chunks, Buffer.alloc(0)]) {
        const toSign = [
          'AWS4-HMAC-SHA256-PAYLOAD',
          longDate,
          scope,
          previous,
          empty,
          createHash('sha256').update(data).digest('hex'),
        ];
        let sig = await signer.sign(toSign.join('\n'), { signingDate: date });
        if (tamper && data.length > 0 && data === chunks[1])
          sig = sig.replace(/^./, (c) => (c === '0' ? '1' : '0'));
        parts.push(
          Buffer.from(`${data.length.toString(16)};chunk-signature=${sig}\r\n`),
          data,
          Buffer.from('\r\n'),
        );
        previous = sig;
      }
      const body = Buffer.concat(parts);
      return new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: Number(url.port),
            method: 'PUT',
            path: '/sig/streamed',
            headers: { ...signed.headers, 'content-length': String(body.length) },
          },
          (res) => {
            let text = '';
            res.on('data', (c) => {
              text += c;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    };
    const ok = await send(false);
    expect(ok.status).toBe(200);
    expect((await h.raw.send({ method: 'GET', path: '/sig/streamed' })).text).toBe(
      'first chunk, second chunk',
    );
    const bad = await send(true);
    expect(bad.status).toBe(403);
    expect(xmlValue(bad.text, 'Code')).toBe('SignatureDoesNotMatch');
  });

  it('decodes an aws-chunked body with a trailing checksum and verifies it', async () => {
    const data = Buffer.from('chunked body, in two chunks');
    const crc = (await import('node:zlib')).crc32(data);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc >>> 0);
    const frame = (trailer: string) =>
      Buffer.concat([
        Buffer.from(`10\r\n`),
        data.subarray(0, 16),
        Buffer.from(`\r\n${(data.length - 16).toString(16)}\r\n`),
        data.subarray(16),
        Buffer.from(`\r\n0\r\nx-amz-checksum-crc32:${trailer}\r\n\r\n`),
      ]);
    const headers = {
      'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      'content-encoding': 'aws-chunked',
      'x-amz-decoded-content-length': String(data.length),
      'x-amz-trailer': 'x-amz-checksum-crc32',
    };
    const ok = await h.raw.send({
      method: 'PUT',
      path: '/sig/chunked',
      headers,
      body: frame(sum.toString('base64')),
    });
    expect(ok.status).toBe(200);
    expect((await h.raw.send({ method: 'GET', path: '/sig/chunked' })).text).toBe(data.toString());
    const head = await h.raw.send({ method: 'HEAD', path: '/sig/chunked' });
    expect(head.headers['content-encoding']).toBeUndefined();
    const bad = await h.raw.send({
      method: 'PUT',
      path: '/sig/chunked-bad',
      headers,
      body: frame('AAAAAA=='),
    });
    expect(bad.status).toBe(400);
    expect(xmlValue(bad.text, 'Code')).toBe('BadDigest');
  });
});
