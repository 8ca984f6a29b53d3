import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FAULTS } from '../reference/faults.ts';
import { s3Faults } from '../reference/s3/faults.ts';
import {
  type RawResponse,
  type RawS3,
  type S3Harness,
  startS3Harness,
  xmlValue,
} from './reference-s3-harness.ts';

// Multi-MiB bodies and a server per check: generous under a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const MiB = 1024 * 1024;

/** What a scenario saw, without what differs between any two servers anyway (ids, clocks). */
function snap(res: RawResponse, headers: string[] = []): unknown {
  const body = res.text
    .replace(/<(RequestId|LastModified|Initiated|CreationDate|UploadId|NextUploadIdMarker)>[^<]*</g, '<$1>*<')
    .replace(/127\.0\.0\.1:\d+/g, 'HOST');
  return {
    status: res.status,
    headers: Object.fromEntries(headers.map((n) => [n, res.headers[n] ?? null])),
    body,
  };
}

type Scenario = (s3: RawS3, log: unknown[]) => Promise<void>;

const obj = (bucket: string, key = '') =>
  `/${bucket}${key ? `/${key.split('/').map(encodeURIComponent).join('/')}` : ''}`;

async function bucket(s3: RawS3, name: string): Promise<void> {
  const r = await s3.send({ method: 'PUT', path: obj(name) });
  if (r.status !== 200) throw new Error(`cannot create bucket ${name}: ${r.status}`);
}

async function put(
  s3: RawS3,
  b: string,
  key: string,
  body: string | Buffer,
  headers?: Record<string, string>,
) {
  return s3.send({ method: 'PUT', path: obj(b, key), body, headers });
}

async function multipart(
  s3: RawS3,
  b: string,
  key: string,
  sizes: number[],
  headers?: Record<string, string>,
) {
  const init = await s3.send({ method: 'POST', path: obj(b, key), query: { uploads: '' }, headers });
  const uploadId = xmlValue(init.text, 'UploadId') ?? '';
  const etags: string[] = [];
  for (const [i, size] of sizes.entries()) {
    const r = await s3.send({
      method: 'PUT',
      path: obj(b, key),
      query: { partNumber: String(i + 1), uploadId },
      body: Buffer.alloc(size, i + 1),
    });
    etags.push(String(r.headers.etag ?? ''));
  }
  return { init, uploadId, etags };
}

const completeXml = (parts: [number, string][]) =>
  `<CompleteMultipartUpload>${parts.map(([n, e]) => `<Part><PartNumber>${n}</PartNumber><ETag>${e}</ETag></Part>`).join('')}</CompleteMultipartUpload>`;

const SCENARIOS: Record<string, Scenario> = {
  async addressing(s3, log) {
    await bucket(s3, 'vhost');
    const host = `vhost.localhost:${new URL(s3.target.endpoint).port}`;
    log.push(snap(await s3.send({ method: 'PUT', path: '/v.txt', host, body: 'virtual' })));
    log.push(snap(await s3.send({ method: 'GET', path: obj('vhost', 'v.txt') })));
  },

  async region(s3, log) {
    await bucket(s3, 'reg');
    for (const region of ['us-east-1', ''])
      log.push(snap(await s3.send({ method: 'HEAD', path: obj('reg'), region })));
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('reg') }), ['x-amz-bucket-region']));
    log.push(snap(await s3.send({ method: 'GET', path: obj('reg'), query: { location: '' } })));
    const config = (loc: string) =>
      `<CreateBucketConfiguration><LocationConstraint>${loc}</LocationConstraint></CreateBucketConfiguration>`;
    log.push(snap(await s3.send({ method: 'PUT', path: obj('reg-eu'), body: config('eu-west-1') })));
    log.push(
      snap(await s3.send({ method: 'PUT', path: obj('reg-auto'), body: config('auto') }), ['location']),
    );
    const lock = (v: string) => ({ 'x-amz-bucket-object-lock-enabled': v });
    log.push(snap(await s3.send({ method: 'PUT', path: obj('reg-lock-on'), headers: lock('true') })));
    log.push(snap(await s3.send({ method: 'PUT', path: obj('reg-lock-off'), headers: lock('false') })));
  },

  async bucketConfig(s3, log) {
    await bucket(s3, 'cfg');
    for (const sub of [
      'acl',
      'versioning',
      'lifecycle',
      'replication',
      'tagging',
      'object-lock',
      'encryption',
    ]) {
      log.push(
        snap(await s3.send({ method: 'GET', path: obj('cfg'), query: { [sub]: '' } }), ['content-type']),
      );
    }
    const sse = (alg: string) =>
      `<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>${alg}</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`;
    log.push(
      snap(
        await s3.send({ method: 'PUT', path: obj('cfg'), query: { encryption: '' }, body: sse('AES256') }),
      ),
    );
    log.push(
      snap(
        await s3.send({ method: 'PUT', path: obj('cfg'), query: { encryption: '' }, body: sse('aws:kms') }),
      ),
    );
    log.push(snap(await s3.send({ method: 'DELETE', path: obj('cfg'), query: { encryption: '' } })));
    const lifecycle =
      '<?xml version="1.0" encoding="UTF-8"?><LifecycleConfiguration><Rule><ID>r1</ID><Status>Enabled</Status><Filter><Prefix>logs/</Prefix></Filter><Expiration><Days>7</Days></Expiration></Rule></LifecycleConfiguration>';
    log.push(
      snap(await s3.send({ method: 'PUT', path: obj('cfg'), query: { lifecycle: '' }, body: lifecycle })),
    );
    log.push(snap(await s3.send({ method: 'GET', path: obj('cfg'), query: { lifecycle: '' } })));
    log.push(
      snap(await s3.send({ method: 'PUT', path: obj('cfg'), query: { lifecycle: '' }, body: '<Lifecycle' })),
    );
  },

  async unsupported(s3, log) {
    await bucket(s3, 'uns');
    await put(s3, 'uns', 'k', 'value');
    log.push(
      snap(await s3.send({ method: 'GET', path: obj('uns'), query: { policy: '' } }), ['content-type']),
    );
    log.push(
      snap(
        await s3.send({ method: 'PUT', path: obj('uns', 'k'), query: { tagging: '' }, body: '<Tagging/>' }),
      ),
    );
    log.push(snap(await s3.send({ method: 'GET', path: obj('uns', 'k') })));
    log.push(
      snap(
        await s3.send({
          method: 'GET',
          path: obj('uns'),
          query: { 'list-type': '2', 'fetch-everything': '1' },
        }),
      ),
    );
    log.push(
      snap(await s3.send({ method: 'GET', path: obj('uns', 'k'), query: { 'x-id': 'DeleteObject' } })),
    );
    log.push(
      snap(await s3.send({ method: 'GET', path: obj('uns', 'k'), headers: { 'x-purpose': 'preview' } })),
    );
    log.push(
      snap(await s3.send({ method: 'GET', path: obj('uns', 'k'), query: { 'x-purpose': 'preview' } })),
    );
  },

  async put(s3, log) {
    await bucket(s3, 'put');
    log.push(snap(await s3.send({ method: 'POST', path: obj('put', 'posted'), body: 'by post' })));
    const sha256 = createHash('sha256').update('summed').digest('base64');
    const sha1 = createHash('sha1').update('summed').digest('base64');
    log.push(snap(await put(s3, 'put', 'sha256', 'summed', { 'x-amz-checksum-sha256': sha256 })));
    log.push(snap(await put(s3, 'put', 'sha1', 'summed', { 'x-amz-checksum-sha1': sha1 })));
    log.push(snap(await put(s3, 'put', 'bad-sum', 'other', { 'x-amz-checksum-sha256': sha256 })));
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    await put(s3, 'put', 'image', png);
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('put', 'image') }), ['content-type']));
    log.push(snap(await put(s3, 'put', 'posted', 'again', { 'if-none-match': '*' })));
    log.push(
      snap(
        await s3.send({
          method: 'POST',
          path: obj('put', 'posted'),
          query: { uploads: '' },
          headers: { 'if-none-match': '*' },
        }),
      ),
    );
    log.push(snap(await put(s3, 'put-new', 'k', 'v', { 'cf-create-bucket-if-missing': 'true' })));
  },

  async conditionals(s3, log) {
    await bucket(s3, 'cond');
    const etag = String((await put(s3, 'cond', 'k', 'conditional')).headers.etag);
    const get = (headers: Record<string, string>) =>
      s3.send({ method: 'GET', path: obj('cond', 'k'), headers });
    log.push(snap(await get({ 'if-match': `"nope", ${etag}` })));
    log.push(snap(await get({ 'if-none-match': `W/${etag}` })));
    log.push(snap(await get({ 'if-match': '*' })));
    log.push(snap(await get({ 'if-none-match': etag })));
    log.push(snap(await get({ 'if-match': '"nope"' })));
  },

  async copy(s3, log) {
    await bucket(s3, 'copies');
    await put(s3, 'copies', 'src', 'source bytes');
    await put(s3, 'copies', 'taken', 'already here');
    const copy = (key: string, headers: Record<string, string>, b = 'copies') =>
      s3.send({ method: 'PUT', path: obj(b, key), headers });
    log.push(
      snap(await copy('d1', { 'x-amz-copy-source': '/copies/src', 'x-amz-copy-source-if-match': '"nope"' })),
    );
    log.push(
      snap(
        await copy('taken', { 'x-amz-copy-source': '/copies/src', 'cf-copy-destination-if-none-match': '*' }),
      ),
    );
    log.push(snap(await copy('d2', { 'x-amz-copy-source': 'copies/src' })));
    log.push(snap(await copy('d3', { 'x-amz-copy-source': '/copies/src' }, 'copies-missing')));
    const ok = await copy('d4', { 'x-amz-copy-source': '/copies/src' });
    log.push({
      status: ok.status,
      version: !!ok.headers['x-amz-version-id'],
      src: !!ok.headers['x-amz-copy-source-version-id'],
    });
    log.push(snap(await copy('d5', { 'x-amz-copy-source': '/copies/missing-key' })));
    log.push(snap(await copy('d6', { 'x-amz-copy-source': '/copies-missing/src' })));
    const mp = await multipart(s3, 'copies', 'mp', [5 * MiB, 1]);
    await s3.send({
      method: 'POST',
      path: obj('copies', 'mp'),
      query: { uploadId: mp.uploadId },
      body: completeXml(mp.etags.map((e, i) => [i + 1, e])),
    });
    log.push(snap(await copy('mp-copy', { 'x-amz-copy-source': '/copies/mp' })));
    const up = await multipart(s3, 'copies', 'assembled', []);
    log.push(
      snap(
        await s3.send({
          method: 'PUT',
          path: obj('copies', 'assembled'),
          query: { partNumber: '1', uploadId: up.uploadId },
          headers: { 'x-amz-copy-source': '/copies/src', 'x-amz-copy-source-range': 'bytes=0-5' },
        }),
      ),
    );
  },

  async ranges(s3, log) {
    await bucket(s3, 'rng');
    await put(s3, 'rng', 'digits', '0123456789');
    for (const range of ['bytes=0-0', 'bytes=2-5', 'bytes=-3', 'bytes=7-', 'bytes=20-']) {
      log.push(
        snap(await s3.send({ method: 'GET', path: obj('rng', 'digits'), headers: { range } }), [
          'content-range',
        ]),
      );
    }
    log.push(snap(await s3.send({ method: 'GET', path: obj('rng', 'digits') }), ['content-range']));
    await put(s3, 'rng', 'page.html', gzipSync('<p>compressed</p>'), {
      'content-encoding': 'gzip',
      'content-type': 'text/html',
    });
    const pub = await s3.send({
      method: 'GET',
      path: obj('rng', 'page.html'),
      publicEntry: true,
      headers: { 'accept-encoding': 'gzip' },
    });
    log.push({ status: pub.status, encoding: pub.headers['content-encoding'] ?? null });
  },

  async multipart(s3, log) {
    await bucket(s3, 'mpu');
    const unequal = await multipart(s3, 'mpu', 'unequal', [5 * MiB, 5 * MiB + 1, 10]);
    const done = (
      key: string,
      uploadId: string,
      parts: [number, string][],
      headers?: Record<string, string>,
    ) =>
      s3.send({
        method: 'POST',
        path: obj('mpu', key),
        query: { uploadId },
        body: completeXml(parts),
        headers,
      });
    log.push(
      snap(
        await done(
          'unequal',
          unequal.uploadId,
          unequal.etags.map((e, i) => [i + 1, e]),
        ),
      ),
    );
    const m = await multipart(s3, 'mpu', 'dir/two parts', [5 * MiB, 1]);
    log.push(
      snap(
        await s3.send({ method: 'GET', path: obj('mpu', 'dir/two parts'), query: { uploadId: m.uploadId } }),
      ),
    );
    log.push(
      snap(
        await s3.send({ method: 'GET', path: obj('mpu'), query: { uploads: '', 'encoding-type': 'url' } }),
      ),
    );
    const unquoted = m.etags.map((e, i) => [i + 1, e.replace(/"/g, '')] as [number, string]).reverse();
    log.push(snap(await done('dir/two parts', m.uploadId, unquoted)));
    const zero = await multipart(s3, 'mpu', 'zero', [0]);
    log.push(zero.etags);
    await put(s3, 'mpu', 'exists', 'x');
    const cond = await multipart(s3, 'mpu', 'exists', [1]);
    log.push(snap(await done('exists', cond.uploadId, [[1, cond.etags[0]]], { 'if-none-match': '*' })));
    log.push(
      snap(await s3.send({ method: 'GET', path: obj('mpu', 'exists'), query: { uploadId: cond.uploadId } })),
    );
    const abort = () =>
      s3.send({ method: 'DELETE', path: obj('mpu', 'zero'), query: { uploadId: zero.uploadId } });
    log.push(snap(await abort()), snap(await abort()));
    log.push(
      snap(
        await s3.send({ method: 'DELETE', path: obj('mpu', 'zero'), query: { uploadId: 'never-issued' } }),
      ),
    );
  },

  async deletes(s3, log) {
    await bucket(s3, 'del');
    for (const key of ['k', ' k ']) await put(s3, 'del', key, key);
    const del = (keys: string[], body?: string) =>
      s3.send({
        method: 'POST',
        path: obj('del'),
        query: { delete: '' },
        body:
          body ??
          `<Delete><Quiet>true</Quiet>${keys.map((k) => `<Object><Key>${k}</Key></Object>`).join('')}</Delete>`,
      });
    log.push(snap(await del([' k '])));
    log.push(snap(await s3.send({ method: 'GET', path: obj('del'), query: { 'list-type': '2' } })));
    log.push(snap(await del(Array.from({ length: 1000 }, (_, i) => `n${i}`))));
    log.push(snap(await del(Array.from({ length: 1001 }, (_, i) => `n${i}`))));
    log.push(snap(await del([], '<Delete><Object><Key>k</Key>')));
  },

  async listing(s3, log) {
    await bucket(s3, 'lst');
    for (const key of ['a/1', 'a/2', 'b', 'c d', 'e/']) await put(s3, 'lst', key, key);
    const list = (query: Record<string, string>) => s3.send({ method: 'GET', path: obj('lst'), query });
    log.push(snap(await list({ 'list-type': '2', delimiter: '/' }), ['content-type']));
    log.push(snap(await list({ 'list-type': '2', prefix: 'a/' })));
    log.push(snap(await list({ 'list-type': '2', 'start-after': 'b' })));
    log.push(snap(await list({ marker: 'b' })));
    const page1 = await list({ 'list-type': '2', 'max-keys': '2' });
    log.push(snap(page1));
    const token = xmlValue(page1.text, 'NextContinuationToken') ?? '';
    log.push(snap(await list({ 'list-type': '2', 'max-keys': '2', 'continuation-token': token })));
    log.push(snap(await list({ 'list-type': '2', prefix: 'c', 'encoding-type': 'url' })));
    log.push(snap(await list({ 'max-keys': '5' })));
    log.push(snap(await list({ 'list-type': '2', 'max-keys': '5' })));
    log.push(snap(await list({ 'list-type': '2', 'continuation-token': 'not-a-token' })));
    log.push(snap(await list({ 'list-type': '2', 'max-keys': '0' })));
    await bucket(s3, 'lst2');
    log.push(snap(await s3.send({ method: 'GET', path: '/', headers: { 'cf-max-keys': '1' } })));
  },

  async cors(s3, log) {
    await bucket(s3, 'crs');
    await put(s3, 'crs', 'k', 'cors');
    const putCors = (rules: string) =>
      s3.send({
        method: 'PUT',
        path: obj('crs'),
        query: { cors: '' },
        body: `<CORSConfiguration>${rules}</CORSConfiguration>`,
      });
    log.push(
      snap(
        await putCors(
          '<CORSRule><AllowedOrigin>not an origin</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule>',
        ),
      ),
    );
    log.push(
      snap(
        await putCors(
          '<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><Colour>red</Colour></CORSRule>',
        ),
      ),
    );
    log.push(
      snap(
        await putCors(
          '<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedHeader></AllowedHeader></CORSRule>',
        ),
      ),
    );
    log.push(
      snap(
        await putCors(
          '<CORSRule><AllowedOrigin>https://app.example.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedHeader>X-Custom</AllowedHeader></CORSRule>' +
            '<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>PUT</AllowedMethod><ExposeHeader>ETag</ExposeHeader></CORSRule>',
        ),
      ),
    );
    const cors = [
      'access-control-allow-origin',
      'access-control-allow-headers',
      'access-control-expose-headers',
    ];
    const preflight = (headers: Record<string, string>, publicEntry = false) =>
      s3.send({ method: 'OPTIONS', path: obj('crs', 'k'), headers, sign: 'none', publicEntry });
    const app = { origin: 'https://app.example.com' };
    log.push(
      snap(
        await preflight({
          ...app,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-custom',
        }),
        cors,
      ),
    );
    log.push(
      snap(
        await preflight({ origin: 'https://other.example', 'access-control-request-method': 'PUT' }),
        cors,
      ),
    );
    log.push(
      snap(
        await preflight({ origin: 'https://other.example', 'access-control-request-method': 'DELETE' }),
        cors,
      ),
    );
    log.push(snap(await preflight({ ...app, 'access-control-request-method': 'GET' }, true), cors));
    log.push(snap(await preflight({ 'access-control-request-method': 'GET' }, true), cors));
    log.push(
      snap(await s3.send({ method: 'GET', path: obj('crs', 'k'), sign: 'presign', headers: app }), cors),
    );
  },

  async auth(s3, log) {
    await bucket(s3, 'auth');
    await put(s3, 'auth', 'k', 'secret stuff');
    log.push(snap(await s3.send({ method: 'GET', path: obj('auth', 'k'), sign: 'none' })));
    log.push(snap(await s3.send({ method: 'GET', path: obj('auth', 'k'), sign: 'bad' })));
    log.push(
      snap(
        await s3.send({
          method: 'PUT',
          path: obj('auth', 'signed'),
          body: 'signed body',
          signedPayload: true,
        }),
      ),
    );
    log.push(
      snap(await s3.send({ method: 'GET', path: obj('auth', 'k'), headers: { 'accept-encoding': 'gzip' } })),
    );
    log.push(snap(await s3.send({ method: 'GET', path: obj('auth', 'k'), sign: 'presign' })));
    log.push(snap(await s3.send({ method: 'GET', path: obj('auth'), sign: 'presign' })));
    log.push(snap(await s3.send({ method: 'GET', path: '/', sign: 'presign' })));
    const hourAgo = new Date(Date.now() - 3600_000);
    log.push(
      snap(
        await s3.send({
          method: 'GET',
          path: obj('auth', 'k'),
          sign: 'presign',
          expiresIn: 60,
          signingDate: hourAgo,
        }),
      ),
    );
  },

  async errors(s3, log) {
    await bucket(s3, 'err');
    log.push(snap(await s3.send({ method: 'GET', path: obj('err-missing') }), ['content-type']));
    log.push(snap(await s3.send({ method: 'GET', path: obj('err', 'missing') })));
  },
};

/** Which scenario shows each fault. */
const SCENARIO_OF: Record<string, keyof typeof SCENARIOS> = {};
const byPrefix: [RegExp, keyof typeof SCENARIOS][] = [
  [/^s3-virtual-hosted/, 'addressing'],
  [/^s3-(region|location|create-bucket-no-location|object-lock)/, 'region'],
  [/^s3-(standin|encryption|lifecycle|xml-declaration|malformed-xml)/, 'bucketConfig'],
  [/^s3-(unsupported|list-unknown-params|x-id|x-purpose|xml-text|error-xmlns)/, 'unsupported'],
  [/^s3-(put-|checksum|content-type|create-bucket-if-missing|precondition)/, 'put'],
  [/^s3-cond-/, 'conditionals'],
  [/^s3-(copy|multipart-copy|upload-part-copy)/, 'copy'],
  [/^s3-(range|content-range|public-gzip)/, 'ranges'],
  [
    /^s3-(list-parts|list-uploads|zero-length|multipart-|part-size|complete-|abort|no-such-upload)/,
    'multipart',
  ],
  [/^s3-delete-objects/, 'deletes'],
  [/^s3-list-/, 'listing'],
  [/^s3-(cors|preflight|public-options)/, 'cors'],
  [/^s3-(presign|signed-payload|accept-encoding|unsigned|signature|secret)/, 'auth'],
  [/^s3-(missing-bucket|no-such-key)/, 'errors'],
];
for (const f of s3Faults) {
  const hit = byPrefix.find(([re]) => re.test(f.name));
  if (hit) SCENARIO_OF[f.name] = hit[1];
}

const clean = new Map<string, string>();
const harnesses: S3Harness[] = [];

async function observe(scenario: keyof typeof SCENARIOS, faults: string[]): Promise<string> {
  const h = await startS3Harness(faults);
  harnesses.push(h);
  try {
    const log: unknown[] = [];
    await SCENARIOS[scenario](h.raw, log);
    return JSON.stringify(log, null, 1);
  } finally {
    await h.close();
  }
}

afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
});

describe('the S3 fault catalog', () => {
  it('names each fault once, in the s3 area, with a description and the clauses it breaks', () => {
    const names = s3Faults.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const f of s3Faults) {
      expect(f.area).toBe('s3');
      expect(f.description.length).toBeGreaterThan(10);
      expect(f.breaks.length).toBeGreaterThan(0);
      expect(f.breaks.every((c) => c.startsWith('s3.'))).toBe(true);
    }
    expect(FAULTS.filter((f) => f.area === 's3').map((f) => f.name)).toEqual(names);
  });

  it('has a scenario for every fault', () => {
    expect(s3Faults.filter((f) => !SCENARIO_OF[f.name]).map((f) => f.name)).toEqual([]);
  });

  it('sees the same answers from two clean servers (the comparison is deterministic)', async () => {
    for (const scenario of ['listing', 'multipart'] as const) {
      expect((await observe(scenario, [])).split('\n')).toEqual((await observe(scenario, [])).split('\n'));
    }
  });

  for (const fault of s3Faults) {
    it(`fault ${fault.name} changes an answer`, async () => {
      const scenario = SCENARIO_OF[fault.name];
      if (!clean.has(scenario)) clean.set(scenario, await observe(scenario, []));
      const faulted = await observe(scenario, [fault.name]);
      expect(faulted, `${fault.name} left every answer of scenario '${scenario}' unchanged`).not.toBe(
        clean.get(scenario),
      );
    });
  }
});
