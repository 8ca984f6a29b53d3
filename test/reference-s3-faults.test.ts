import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import pLimit from 'p-limit';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { REFERENCE_CREDENTIALS } from '../reference/context.ts';
import { FAULTS } from '../reference/faults.ts';
import { s3Faults } from '../reference/s3/faults.ts';
import { sendRaw } from '../suites/s3/properties/support/raw-socket.ts';
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

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest();

const sseConfig = (alg: string) =>
  `<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>${alg}</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`;

/** What a lifecycle read shows of its rules' IDs, which a server makes up at random: whether they are there and distinct. */
function ruleIds(res: RawResponse): unknown {
  const ids = [...res.text.matchAll(/<ID>([^<]*)<\/ID>/g)].map((m) => m[1]);
  return {
    status: res.status,
    ids: ids.length,
    blank: ids.filter((i) => !i).length,
    distinct: new Set(ids).size,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One call of the reference's bindings probe contract: its answer, {result} or {error: {name, message}}. */
async function binding(
  s3: RawS3,
  call: Record<string, unknown>,
  deployment: 'include' | 'legacy' = 'include',
): Promise<any> {
  const res = await fetch(`${s3.target.endpoint}/.edgecheck-bindings/${deployment}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-edgecheck-probe-secret': REFERENCE_CREDENTIALS.bindingsSecret,
    },
    body: JSON.stringify(call),
  });
  if (res.status !== 200) throw new Error(`bindings probe: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A binding's answer without what differs between any two servers (versions, clocks, upload ids). */
function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      ['version', 'uploaded', 'uploadId'].includes(k) ? '*' : scrub(v),
    ]),
  );
}

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
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('reg-lock-on') })));
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
    // DeleteBucketEncryption on a bucket nothing configured, and the bucket after it.
    log.push(snap(await s3.send({ method: 'DELETE', path: obj('cfg'), query: { encryption: '' } })));
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('cfg') })));
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
    // The refused value is not applied: the bucket still reports AES256.
    log.push(snap(await s3.send({ method: 'GET', path: obj('cfg'), query: { encryption: '' } })));
    log.push(snap(await s3.send({ method: 'DELETE', path: obj('cfg'), query: { encryption: '' } })));
    // After the deletion: the AES256 default again, read back and applied to a write.
    log.push(snap(await s3.send({ method: 'GET', path: obj('cfg'), query: { encryption: '' } })));
    log.push(snap(await put(s3, 'cfg', 'after-delete', 'v'), ['x-amz-server-side-encryption']));
    await s3.send({ method: 'DELETE', path: obj('cfg', 'after-delete') });
    const lifecycle =
      '<?xml version="1.0" encoding="UTF-8"?><LifecycleConfiguration><Rule><ID>r1</ID><Status>Enabled</Status><Filter><Prefix>logs/</Prefix></Filter><Expiration><Days>7</Days></Expiration></Rule></LifecycleConfiguration>';
    log.push(
      snap(await s3.send({ method: 'PUT', path: obj('cfg'), query: { lifecycle: '' }, body: lifecycle })),
    );
    log.push(snap(await s3.send({ method: 'GET', path: obj('cfg'), query: { lifecycle: '' } })));
    // The same document declared as Python's ElementTree writes it, not as the AWS SDKs do.
    const otherDeclaration = lifecycle.replace(/^<\?xml[^>]*\?>/, "<?xml version='1.0' encoding='utf-8'?>");
    log.push(
      snap(
        await s3.send({ method: 'PUT', path: obj('cfg'), query: { lifecycle: '' }, body: otherDeclaration }),
      ),
    );
    log.push(
      snap(await s3.send({ method: 'PUT', path: obj('cfg'), query: { lifecycle: '' }, body: '<Lifecycle' })),
    );
    // Rules without an ID get one each; a Status in the wrong case is malformed.
    const noIds =
      '<LifecycleConfiguration><Rule><Status>Enabled</Status><Filter><Prefix>a/</Prefix></Filter><Expiration><Days>1</Days></Expiration></Rule><Rule><Status>Enabled</Status><Filter><Prefix>b/</Prefix></Filter><Expiration><Days>2</Days></Expiration></Rule></LifecycleConfiguration>';
    log.push(snap(await s3.send({ method: 'PUT', path: obj('cfg'), query: { lifecycle: '' }, body: noIds })));
    log.push(ruleIds(await s3.send({ method: 'GET', path: obj('cfg'), query: { lifecycle: '' } })));
    // Rules Amazon S3 refuses: an expiration after 0 days, a Status other than Enabled or Disabled.
    for (const rule of [
      '<ID>lower</ID><Status>enabled</Status><Filter/><Expiration><Days>1</Days></Expiration>',
      '<ID>zero</ID><Status>Enabled</Status><Filter/><Expiration><Days>0</Days></Expiration>',
      '<ID>on</ID><Status>On</Status><Filter/><Expiration><Days>1</Days></Expiration>',
    ]) {
      const body = `<LifecycleConfiguration><Rule>${rule}</Rule></LifecycleConfiguration>`;
      log.push(snap(await s3.send({ method: 'PUT', path: obj('cfg'), query: { lifecycle: '' }, body })));
    }
  },

  async unsupported(s3, log) {
    await bucket(s3, 'uns');
    await put(s3, 'uns', 'k', 'value');
    // Unsupported reads and writes: never answered as GetObject, ListObjects or CreateBucket would answer.
    log.push(snap(await s3.send({ method: 'GET', path: obj('uns', 'k'), query: { torrent: '' } })));
    log.push(snap(await s3.send({ method: 'GET', path: obj('uns'), query: { accelerate: '' } })));
    log.push(
      snap(
        await s3.send({
          method: 'PUT',
          path: obj('uns'),
          query: { versioning: '' },
          body: '<VersioningConfiguration><Status>Suspended</Status></VersioningConfiguration>',
        }),
      ),
    );
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
    log.push(snap(await s3.send({ method: 'GET', path: obj('uns'), query: { 'fetch-everything': '1' } })));
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
    log.push(snap(await put(s3, 'put', 'bad-sha1', 'other', { 'x-amz-checksum-sha1': sha1 })));
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('put', 'bad-sha1') })));
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    await put(s3, 'put', 'image', png);
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('put', 'image') }), ['content-type']));
    log.push(snap(await put(s3, 'put', 'posted', 'again', { 'if-none-match': '*' })));
    log.push(snap(await put(s3, 'put', 'posted', 'again', { 'if-match': '"nope"' })));
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
    log.push(
      snap(await s3.send({ method: 'HEAD', path: obj('cond', 'k'), headers: { 'if-match': '"nope"' } })),
    );
    // Both conditions: If-Match first (RFC 9110).
    log.push(snap(await get({ 'if-match': '"nope"', 'if-none-match': etag })));
    log.push(snap(await get({ 'if-match': etag, 'if-none-match': etag })));
    // CreateMultipartUpload over the object: a failing condition is 412, one that holds is served.
    const create = (headers: Record<string, string>) =>
      s3.send({ method: 'POST', path: obj('cond', 'k'), query: { uploads: '' }, headers });
    log.push(snap(await create({ 'if-none-match': '*' })));
    log.push(snap(await create({ 'if-match': '"nope"' })));
    log.push((await create({ 'if-match': etag })).status);
    // Weak tags in If-Match on a read and in If-None-Match on a write match too.
    log.push(snap(await get({ 'if-match': `W/${etag}` })));
    log.push(snap(await put(s3, 'cond', 'k', 'weakly refused', { 'if-none-match': `W/${etag}` })));
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
    // A range ending past the 12-byte source is refused, not clipped.
    log.push(
      snap(
        await s3.send({
          method: 'PUT',
          path: obj('copies', 'assembled'),
          query: { partNumber: '2', uploadId: up.uploadId },
          headers: { 'x-amz-copy-source': '/copies/src', 'x-amz-copy-source-range': 'bytes=0-100' },
        }),
      ),
    );
    // So is one whose last byte is just past the source's last (offset 12 of 12 bytes).
    log.push(
      snap(
        await s3.send({
          method: 'PUT',
          path: obj('copies', 'assembled'),
          query: { partNumber: '3', uploadId: up.uploadId },
          headers: { 'x-amz-copy-source': '/copies/src', 'x-amz-copy-source-range': 'bytes=10-12' },
        }),
      ),
    );
    // Metadata and content headers: kept by COPY, replaced by REPLACE.
    // A part copied from a whole object: its ETag is the MD5 of the bytes.
    log.push(
      snap(
        await s3.send({
          method: 'PUT',
          path: obj('copies', 'assembled'),
          query: { partNumber: '4', uploadId: up.uploadId },
          headers: { 'x-amz-copy-source': '/copies/src' },
        }),
      ),
    );
    await put(s3, 'copies', 'described', 'described bytes', {
      'content-disposition': 'inline',
      'content-encoding': 'br',
      'x-amz-meta-colour': 'blue',
    });
    const described = ['content-type', 'content-disposition', 'content-encoding', 'x-amz-meta-colour'];
    const head = async (key: string) =>
      snap(await s3.send({ method: 'HEAD', path: obj('copies', key) }), described);
    const replace = (colour: string) => ({
      'x-amz-copy-source': '/copies/described',
      'x-amz-metadata-directive': 'REPLACE',
      'x-amz-meta-colour': colour,
    });
    log.push(snap(await copy('kept', { 'x-amz-copy-source': '/copies/described' })));
    log.push(await head('kept'));
    log.push(snap(await copy('replaced', replace('red'))));
    log.push(await head('replaced'));
    // Onto itself: refused without REPLACE, accepted with it.
    log.push(snap(await copy('described', { 'x-amz-copy-source': '/copies/described' })));
    log.push(snap(await copy('described', replace('green'))));
    log.push(await head('described'));
  },

  async ranges(s3, log) {
    await bucket(s3, 'rng');
    await put(s3, 'rng', 'digits', '0123456789');
    for (const range of [
      'bytes=0-0',
      'bytes=2-5',
      'bytes=-3',
      'bytes=7-',
      'bytes=20-',
      'bytes=10-',
      'bytes=5-2',
      'bytes=x-3',
    ]) {
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
    // An upload with no part yet is in progress too.
    await s3.send({ method: 'POST', path: obj('mpu', 'no parts'), query: { uploads: '' } });
    // A key beyond ASCII, encoded as its UTF-8 bytes.
    await s3.send({ method: 'POST', path: obj('mpu', 'café'), query: { uploads: '' } });
    log.push(
      snap(
        await s3.send({ method: 'GET', path: obj('mpu'), query: { uploads: '', 'encoding-type': 'url' } }),
      ),
    );
    // Without encoding-type, keys as stored ('no parts' holds a space).
    log.push(snap(await s3.send({ method: 'GET', path: obj('mpu'), query: { uploads: '' } })));
    const unquoted = m.etags.map((e, i) => [i + 1, e.replace(/"/g, '')] as [number, string]).reverse();
    log.push(snap(await done('dir/two parts', m.uploadId, unquoted)));
    // Completing a completed upload again answers as the first Complete did.
    log.push(snap(await done('dir/two parts', m.uploadId, unquoted)));
    // A part ETag with a stray leading quote.
    const stray = await multipart(s3, 'mpu', 'stray', [1]);
    log.push(snap(await done('stray', stray.uploadId, [[1, stray.etags[0].replace(/"$/, '')]])));
    // One part numbered 2: the ETag's suffix counts parts, not part numbers.
    const second = await multipart(s3, 'mpu', 'second', []);
    const part2 = await s3.send({
      method: 'PUT',
      path: obj('mpu', 'second'),
      query: { partNumber: '2', uploadId: second.uploadId },
      body: 'two',
    });
    log.push(snap(await done('second', second.uploadId, [[2, String(part2.headers.etag ?? '')]])));
    const zero = await multipart(s3, 'mpu', 'zero', [0]);
    log.push(zero.etags);
    // The 0-length part is kept.
    log.push(
      snap(await s3.send({ method: 'GET', path: obj('mpu', 'zero'), query: { uploadId: zero.uploadId } })),
    );
    await put(s3, 'mpu', 'exists', 'x');
    const cond = await multipart(s3, 'mpu', 'exists', [1]);
    log.push(snap(await done('exists', cond.uploadId, [[1, cond.etags[0]]], { 'if-none-match': '*' })));
    log.push(
      snap(await s3.send({ method: 'GET', path: obj('mpu', 'exists'), query: { uploadId: cond.uploadId } })),
    );
    const abort = () =>
      s3.send({ method: 'DELETE', path: obj('mpu', 'zero'), query: { uploadId: zero.uploadId } });
    log.push(snap(await abort()), snap(await abort()));
    // The aborted upload is gone: ListParts, UploadPart and Complete of it are each NoSuchUpload.
    const aborted = { uploadId: zero.uploadId };
    log.push(snap(await s3.send({ method: 'GET', path: obj('mpu', 'zero'), query: aborted })));
    log.push(
      snap(
        await s3.send({
          method: 'PUT',
          path: obj('mpu', 'zero'),
          query: { partNumber: '2', ...aborted },
          body: 'late',
        }),
      ),
    );
    log.push(snap(await done('zero', zero.uploadId, [[1, zero.etags[0]]])));
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
    log.push(snap(await list({ prefix: 'a/' })));
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
    // An empty token is no token the server issued: refused, as Amazon S3 refuses it.
    log.push(snap(await list({ 'list-type': '2', 'continuation-token': '' })));
    // Decodes (base64 of {"x":1}), and still is no cursor.
    log.push(snap(await list({ 'list-type': '2', 'continuation-token': 'eyJ4IjoxfQ' })));
    log.push(snap(await list({ 'list-type': '2', 'max-keys': '0' })));
    await bucket(s3, 'lst2');
    log.push(snap(await s3.send({ method: 'GET', path: '/', headers: { 'cf-max-keys': '1' } })));
    log.push(
      snap(
        await s3.send({ method: 'GET', path: '/', headers: { 'cf-max-keys': '1', 'cf-start-after': 'lst' } }),
      ),
    );
    // Keys two delimiters deep, common prefixes that need encoding, a marker past a whole common prefix.
    await bucket(s3, 'lst3');
    for (const key of ['a/1', 'a/2', 'b', 'c/d/e', 'x+y/z', 'é/1']) await put(s3, 'lst3', key, key);
    const list3 = (query: Record<string, string>) => s3.send({ method: 'GET', path: obj('lst3'), query });
    log.push(snap(await list3({ 'list-type': '2', delimiter: '/' })));
    await put(s3, 'lst3', 'a-x', 'a-x');
    log.push(snap(await list3({ 'list-type': '2', 'max-keys': '3' })));
    log.push(snap(await list3({ delimiter: '/', marker: 'a/2' })));
    log.push(snap(await list3({ 'list-type': '2', delimiter: '/', 'start-after': 'a/2' })));
    log.push(snap(await list3({ delimiter: '/', 'encoding-type': 'url' })));
    // Echoes that need encoding: Prefix, Delimiter and StartAfter (V2); Marker and NextMarker (V1).
    const echoes = { 'list-type': '2', prefix: 'é', delimiter: ' ', 'start-after': 'x+y' };
    log.push(snap(await list3({ ...echoes, 'encoding-type': 'url' })));
    log.push(snap(await list3({ delimiter: '/', marker: 'x+', 'max-keys': '1', 'encoding-type': 'url' })));
    // Keys either side of U+FFFF; a token's page that ended on a common prefix start-after sorts inside.
    for (const key of ['u/\uE000', 'u/\u{10000}']) await put(s3, 'lst3', key, key);
    log.push(snap(await list3({ 'list-type': '2', prefix: 'u/' })));
    const inside = { 'list-type': '2', delimiter: '/', 'start-after': 'a/1', 'max-keys': '1' };
    const ended = await list3(inside);
    log.push(snap(ended));
    const resume = xmlValue(ended.text, 'NextContinuationToken') ?? '';
    log.push(snap(await list3({ ...inside, 'continuation-token': resume })));
    // ListBuckets continued from a page's token, by URL parameter and by cf- header.
    const first = await s3.send({
      method: 'GET',
      path: '/',
      query: { 'start-after': 'lst', 'max-keys': '1' },
    });
    const next = xmlValue(first.text, 'ContinuationToken') ?? '';
    log.push(snap(first));
    log.push(
      snap(
        await s3.send({ method: 'GET', path: '/', query: { 'continuation-token': next, 'max-keys': '1' } }),
      ),
    );
    log.push(
      snap(
        await s3.send({
          method: 'GET',
          path: '/',
          headers: { 'cf-continuation-token': next, 'cf-max-keys': '1' },
        }),
      ),
    );
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
    // What the refusals left: no configuration at all.
    log.push(snap(await s3.send({ method: 'GET', path: obj('crs'), query: { cors: '' } })));
    log.push(
      snap(
        await putCors(
          '<CORSRule><AllowedOrigin>https://app.example.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedHeader>X-Custom</AllowedHeader></CORSRule>' +
            '<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>PUT</AllowedMethod><ExposeHeader>ETag</ExposeHeader></CORSRule>',
        ),
      ),
    );
    // A body that is not well-formed XML.
    log.push(
      snap(
        await s3.send({
          method: 'PUT',
          path: obj('crs'),
          query: { cors: '' },
          body: '<CORSConfiguration><CORSRule>',
        }),
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
    // An origin no rule lists, asking for a method the first rule lists.
    log.push(
      snap(
        await preflight({ origin: 'https://other.example', 'access-control-request-method': 'GET' }),
        cors,
      ),
    );
    // The listed origin asking for a method its rule does not list.
    log.push(snap(await preflight({ ...app, 'access-control-request-method': 'DELETE' }), cors));
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
    // Unsigned: a listing, a write (which must store nothing); an Authorization header that is no SigV4 header.
    log.push(
      snap(await s3.send({ method: 'GET', path: obj('auth'), query: { 'list-type': '2' }, sign: 'none' })),
    );
    log.push(snap(await s3.send({ method: 'PUT', path: obj('auth', 'anon'), body: 'anon', sign: 'none' })));
    log.push(snap(await s3.send({ method: 'GET', path: obj('auth', 'anon') })));
    const garbage = { authorization: 'garbage' };
    log.push(snap(await s3.send({ method: 'GET', path: obj('auth', 'k'), headers: garbage, sign: 'none' })));
    // Signed once, sent as signed, then with the signed header changed; then a signature of zeros.
    const signed = await s3.signedHeaders({
      method: 'GET',
      path: obj('auth', 'k'),
      headers: { 'x-amz-meta-probe': 'signed' },
    });
    log.push(snap(await s3.send({ method: 'GET', path: obj('auth', 'k'), headers: signed, sign: 'none' })));
    const changed = { ...signed, 'x-amz-meta-probe': 'changed' };
    log.push(snap(await s3.send({ method: 'GET', path: obj('auth', 'k'), headers: changed, sign: 'none' })));
    const zeros = {
      ...signed,
      authorization: signed.authorization.replace(/Signature=[0-9a-f]+/, `Signature=${'0'.repeat(64)}`),
    };
    log.push(snap(await s3.send({ method: 'GET', path: obj('auth', 'k'), headers: zeros, sign: 'none' })));
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
    log.push(snap(await s3.send({ method: 'GET', path: obj('auth', 'k'), sign: 'presign-bad' })));
    log.push(
      snap(
        await s3.send({
          method: 'GET',
          path: obj('auth', 'k'),
          headers: { 'accept-encoding': 'gzip' },
          sign: 'presign',
        }),
      ),
    );
    log.push(snap(await s3.send({ method: 'GET', path: obj('auth'), sign: 'presign' })));
    // A presigned URL whose query holds a parameter besides the X-Amz-* ones.
    log.push(
      snap(await s3.send({ method: 'GET', path: obj('auth'), query: { 'list-type': '2' }, sign: 'presign' })),
    );
    log.push(snap(await s3.send({ method: 'GET', path: '/', sign: 'presign' })));
    log.push(snap(await s3.send({ method: 'PUT', path: obj('auth', 'up'), body: 'up', sign: 'presign' })));
    // Two minutes old: valid for 15 minutes, expired for 60 seconds.
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    for (const expiresIn of [900, 60]) {
      log.push(
        snap(
          await s3.send({
            method: 'GET',
            path: obj('auth', 'k'),
            sign: 'presign',
            expiresIn,
            signingDate: twoMinutesAgo,
          }),
        ),
      );
    }
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
    // With the headers a refusal may carry beyond its document.
    log.push(snap(await s3.send({ method: 'GET', path: obj('err', 'missing') }), ['x-debug-credentials']));
    log.push(snap(await s3.send({ method: 'DELETE', path: obj('err', 'never-there') })));
  },

  async names(s3, log) {
    for (const name of ['UPPER-name', 'under_score', 'ok-name']) {
      log.push(snap(await s3.send({ method: 'PUT', path: obj(name) })));
      log.push(snap(await s3.send({ method: 'HEAD', path: obj(name) })));
    }
  },

  async expectContinue(s3, log) {
    await bucket(s3, 'cont');
    // Raw bytes: Node's client waits for 100 Continue itself, and the first status line is the answer here.
    const url = new URL(s3.target.endpoint);
    const head = `PUT ${obj('cont', 'k')} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n`;
    log.push(`first status ${await sendRaw(url, head, 'hello')}`);
  },

  async teWithCl(s3, log) {
    await bucket(s3, 'tecl');
    // Raw bytes: no HTTP client sends both headers. The PUT is signed; only the framing is at fault.
    const url = new URL(s3.target.endpoint);
    const signed = await s3.signedHeaders({
      method: 'PUT',
      path: obj('tecl', 'k'),
      headers: { 'content-length': '5' },
    });
    const head = Object.entries(signed)
      .filter(([k]) => k !== 'content-length' && k !== 'host')
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const request = `PUT ${obj('tecl', 'k')} HTTP/1.1\r\nHost: ${url.host}\r\n${head}Content-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`;
    log.push(`first status ${await sendRaw(url, request, '5\r\nhello\r\n0\r\n\r\n')}`);
    log.push(snap(await s3.send({ method: 'GET', path: obj('tecl', 'k') })));
  },

  async sse(s3, log) {
    await bucket(s3, 'sse');
    const sse = ['x-amz-server-side-encryption'];
    const aes = { 'x-amz-server-side-encryption': 'AES256' };
    log.push(snap(await put(s3, 'sse', 'aes', 'encrypted', aes), sse));
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('sse', 'aes') }), sse));
    log.push(snap(await s3.send({ method: 'GET', path: obj('sse', 'aes') }), sse));
    const kms = { 'x-amz-server-side-encryption': 'aws:kms' };
    log.push(snap(await put(s3, 'sse', 'kms', 'encrypted', kms), sse));
    const key = Buffer.alloc(32, 7);
    const customer = {
      'x-amz-server-side-encryption-customer-algorithm': 'AES256',
      'x-amz-server-side-encryption-customer-key': key.toString('base64'),
      'x-amz-server-side-encryption-customer-key-md5': createHash('md5').update(key).digest('base64'),
    };
    log.push(snap(await put(s3, 'sse', 'customer', 'encrypted', customer), sse));
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('sse', 'kms') })));
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('sse', 'customer') })));
    // A KMS key without x-amz-server-side-encryption; an SSE header on reads.
    const keyId = { 'x-amz-server-side-encryption-aws-kms-key-id': 'arn:aws:kms:us-east-1:1:key/k' };
    log.push(snap(await put(s3, 'sse', 'kms-key', 'encrypted', keyId), sse));
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('sse', 'kms-key') })));
    log.push(snap(await s3.send({ method: 'GET', path: obj('sse', 'aes'), headers: aes }), sse));
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('sse', 'aes'), headers: aes }), sse));
    // The bucket's default, once PutBucketEncryption set it: on a write that asks for none.
    await s3.send({ method: 'PUT', path: obj('sse'), query: { encryption: '' }, body: sseConfig('AES256') });
    log.push(snap(await put(s3, 'sse', 'by-default', 'encrypted'), sse));
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('sse', 'by-default') }), sse));
    log.push(snap(await s3.send({ method: 'GET', path: obj('sse', 'by-default') }), sse));
    // Copies and multipart uploads.
    const source = { 'x-amz-copy-source': '/sse/by-default' };
    log.push(snap(await put(s3, 'sse', 'copy', '', { ...source, ...aes }), sse));
    const mp = await multipart(s3, 'sse', 'mp', [], aes);
    log.push(snap(mp.init, sse));
    const query = { uploadId: mp.uploadId };
    log.push(
      snap(
        await s3.send({
          method: 'PUT',
          path: obj('sse', 'mp'),
          query: { ...query, partNumber: '2' },
          headers: source,
        }),
        sse,
      ),
    );
    const part = await s3.send({
      method: 'PUT',
      path: obj('sse', 'mp'),
      query: { ...query, partNumber: '1' },
      body: 'one',
    });
    log.push(snap(part, ['etag', ...sse]));
    const done = completeXml([[1, String(part.headers.etag)]]);
    log.push(snap(await s3.send({ method: 'POST', path: obj('sse', 'mp'), query, body: done }), sse));
  },

  async metadata(s3, log) {
    await bucket(s3, 'meta');
    const described = [
      'content-type',
      'content-encoding',
      'content-language',
      'cache-control',
      'x-amz-meta-colour',
      'content-length',
    ];
    await put(s3, 'meta', 'k', 'described', {
      'content-encoding': 'deflate, gzip',
      'content-language': 'en',
      'x-amz-meta-colour': 'blue',
    });
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('meta', 'k') }), described));
    log.push(snap(await s3.send({ method: 'GET', path: obj('meta', 'k') }), described));
    const mp = await multipart(s3, 'meta', 'mp', [3], {
      'content-type': 'text/plain',
      'cache-control': 'no-store',
      'content-encoding': 'deflate, gzip',
      'x-amz-meta-colour': 'green',
    });
    log.push(
      snap(
        await s3.send({
          method: 'POST',
          path: obj('meta', 'mp'),
          query: { uploadId: mp.uploadId },
          body: completeXml([[1, mp.etags[0]]]),
        }),
      ),
    );
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('meta', 'mp') }), described));
    // aws-chunked in Content-Encoding of ordinary (not streaming-signed) PutObjects.
    for (const coding of ['gzip, aws-chunked', 'aws-chunked, gzip', 'aws-chunked']) {
      const key = `chunked-${coding.replace(/\W+/g, '-')}`;
      log.push(snap(await put(s3, 'meta', key, 'plain bytes', { 'content-encoding': coding })));
      log.push(snap(await s3.send({ method: 'GET', path: obj('meta', key) }), ['content-encoding']));
    }
  },

  async checksums(s3, log) {
    await bucket(s3, 'sum');
    const sums = ['x-amz-checksum-sha256', 'x-amz-checksum-type'];
    const body = 'summed bytes';
    const sum = sha256(body).toString('base64');
    log.push(snap(await put(s3, 'sum', 'k', body, { 'x-amz-checksum-sha256': sum }), sums));
    const mode = { 'x-amz-checksum-mode': 'ENABLED' };
    for (const method of ['GET', 'HEAD'])
      log.push(snap(await s3.send({ method, path: obj('sum', 'k'), headers: mode }), sums));
    // A multipart upload with SHA-256: each part's checksum, then the composite of them.
    const init = await s3.send({
      method: 'POST',
      path: obj('sum', 'mp'),
      query: { uploads: '' },
      headers: { 'x-amz-checksum-algorithm': 'SHA256' },
    });
    const uploadId = xmlValue(init.text, 'UploadId') ?? '';
    const parts = [Buffer.alloc(5 * MiB, 1), Buffer.from('last part')];
    const etags: string[] = [];
    for (const [i, part] of parts.entries()) {
      const r = await s3.send({
        method: 'PUT',
        path: obj('sum', 'mp'),
        query: { partNumber: String(i + 1), uploadId },
        body: part,
        headers: { 'x-amz-checksum-sha256': sha256(part).toString('base64') },
      });
      log.push(snap(r, ['etag', ...sums]));
      etags.push(String(r.headers.etag ?? ''));
    }
    const composite = `${sha256(Buffer.concat(parts.map((p) => sha256(p)))).toString('base64')}-${parts.length}`;
    log.push(
      snap(
        await s3.send({
          method: 'POST',
          path: obj('sum', 'mp'),
          query: { uploadId },
          body: completeXml(etags.map((e, i) => [i + 1, e])),
          headers: { 'x-amz-checksum-sha256': composite },
        }),
      ),
    );
    log.push(snap(await s3.send({ method: 'HEAD', path: obj('sum', 'mp'), headers: mode }), sums));
  },

  async clientReads(s3, log) {
    await bucket(s3, 'reads');
    const path = obj('reads', 'k');
    log.push(snap(await put(s3, 'reads', 'k', 'etag-me'), ['etag']));
    log.push(snap(await put(s3, 'reads', 'empty', ''), ['etag']));
    const got = await s3.send({ method: 'GET', path });
    log.push({
      ...(snap(got, ['etag']) as object),
      lastModified: got.headers['last-modified'] !== undefined,
    });
    const first = String((await s3.send({ method: 'HEAD', path })).headers['last-modified']);
    // In a later second, an overwrite moves Last-Modified on, and a listing still gives the earlier
    // write of 'empty' its own second. Last-Modified counts whole seconds: waiting for the clock to
    // pass the first write's second is enough, half a second on average rather than a fixed one.
    // A Last-Modified that is not this second's (a fault's) gets the whole second, as it always did.
    const at = Date.parse(first);
    const current = Number.isFinite(at) && Date.now() - at >= 0 && Date.now() - at < 1000;
    await sleep(current ? at + 1000 - Date.now() + 5 : 1100);
    const etag = String((await put(s3, 'reads', 'k', 'second write')).headers.etag);
    const modified = String((await s3.send({ method: 'HEAD', path })).headers['last-modified']);
    log.push({ moved: modified !== first });
    const empty = await s3.send({ method: 'HEAD', path: obj('reads', 'empty') });
    const listed = await s3.send({ method: 'GET', path: obj('reads'), query: { 'list-type': '2' } });
    const listedAt = /<Key>empty<\/Key><LastModified>([^<]*)</.exec(listed.text)?.[1] ?? '';
    const second = (date: unknown) => Math.floor(Date.parse(String(date)) / 1000);
    log.push({
      etags: [...listed.text.matchAll(/<ETag>([^<]*)<\/ETag>/g)].map((m) => m[1]),
      sameSecond: second(listedAt) === second(empty.headers['last-modified']),
      iso: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(listedAt),
    });
    // Date conditions, to the second.
    const earlier = 'Sat, 01 Jan 2000 00:00:00 GMT';
    for (const headers of <Record<string, string>[]>[
      { 'if-modified-since': modified },
      { 'if-modified-since': earlier },
      { 'if-unmodified-since': earlier },
      { 'if-unmodified-since': modified },
      { 'if-match': etag, 'if-unmodified-since': earlier },
    ]) {
      log.push(snap(await s3.send({ method: 'GET', path, headers })));
    }
    // response-* parameters.
    const query = {
      'response-content-type': 'application/pdf',
      'response-content-disposition': 'attachment',
      'response-cache-control': 'no-store',
    };
    log.push(
      snap(
        await s3.send({ method: 'GET', path, query }),
        Object.keys(query).map((q) => q.slice(9)),
      ),
    );
  },

  async bindings(s3, log) {
    const b = (call: Record<string, unknown>, deployment?: 'include' | 'legacy') =>
      binding(s3, call, deployment);
    const put = (key: string, value: string, options?: Record<string, unknown>) =>
      b({ call: 'put', key, value, options });
    const first = await put('b/k', 'one');
    log.push(scrub(first));
    const etag = String(first.result?.etag);
    // Conditional writes: a failing onlyIf writes nothing and returns null.
    log.push(scrub(await put('b/k', 'two', { onlyIf: { etagMatches: '0'.repeat(32) } })));
    log.push(scrub(await b({ call: 'get', key: 'b/k' })));
    // Checksums: returned by put(), stored, MD5 included for an object written whole.
    const sha384 = createHash('sha384').update('hello').digest('hex');
    log.push(scrub(await put('b/sum', 'hello', { sha384 })));
    const sha512 = createHash('sha512').update('hello').digest('hex');
    log.push(scrub(await put('b/sum512', 'hello', { sha512 })));
    log.push(scrub(await b({ call: 'head', key: 'b/sum' })));
    // delete() of several keys.
    for (const k of ['b/d/a', 'b/d/b', 'b/d/c']) await put(k, k);
    log.push(scrub(await b({ call: 'delete', keys: ['b/d/a', 'b/d/b'] })));
    for (const k of ['b/d/a', 'b/d/b', 'b/d/c']) log.push(scrub(await b({ call: 'head', key: k })));
    // Multipart.
    const created = await b({ call: 'createMultipartUpload', key: 'b/mp' });
    log.push(scrub(created));
    const uploadId = created.result?.uploadId;
    if (uploadId) {
      const part = await b({ call: 'uploadPart', key: 'b/mp', uploadId, partNumber: 1, value: 'part' });
      log.push(scrub(part));
      const parts = [{ partNumber: 1, etag: part.result?.etag }];
      log.push(scrub(await b({ call: 'completeMultipartUpload', key: 'b/mp', uploadId, parts })));
    }
    // Conditional headers on get(): a list of ETags, a weak ETag, the wildcard.
    for (const $headers of [
      { 'if-match': `"nope", "${etag}"` },
      { 'if-none-match': `W/"${etag}"` },
      { 'if-match': '*' },
    ]) {
      log.push(scrub(await b({ call: 'get', key: 'b/k', options: { onlyIf: { $headers } } })));
    }
    // A malformed range.
    log.push(scrub(await b({ call: 'get', key: 'b/k', options: { range: { offset: -1 } } })));
    // list(): limit, include, and a page made smaller by the size of its metadata.
    for (const k of ['b/l/1', 'b/l/2', 'b/l/3'])
      await put(k, k, { httpMetadata: { contentType: 'text/plain' }, customMetadata: { k } });
    log.push(scrub(await b({ call: 'list', options: { prefix: 'b/l/', limit: 2 } })));
    for (const deployment of ['include', 'legacy'] as const) {
      const options = { prefix: 'b/l/', include: ['customMetadata'] };
      log.push(scrub(await b({ call: 'list', options }, deployment)));
    }
    for (const k of ['b/big/1', 'b/big/2', 'b/big/3'])
      await put(k, k, { customMetadata: { pad: 'x'.repeat(9000) } });
    const big = await b({ call: 'list', options: { prefix: 'b/big/', include: ['customMetadata'] } });
    log.push({
      keys: big.result?.objects.map((o: { key: string }) => o.key),
      truncated: big.result?.truncated,
      cursor: big.result?.cursor ?? null,
    });
  },

  /** What clients rely on beyond SPEC: Content-MD5 checked on PutObject and UploadPart; DeleteObjects' Quiet; CORS origins; x-amz-expiration. */
  async clientHabits(s3, log) {
    await bucket(s3, 'habits');
    const md5 = (body: string) => createHash('md5').update(body).digest('base64');
    log.push(snap(await put(s3, 'habits', 'right', 'sent-whole', { 'content-md5': md5('sent-whole') })));
    log.push(snap(await put(s3, 'habits', 'wrong', 'sent-corrupted', { 'content-md5': md5('sent-whole') })));
    log.push((await s3.send({ method: 'HEAD', path: obj('habits', 'wrong') })).status);
    const init = await s3.send({ method: 'POST', path: obj('habits', 'mp'), query: { uploads: '' } });
    const uploadId = xmlValue(init.text, 'UploadId') ?? '';
    const part = (partNumber: string, body: string, sum: string) =>
      s3.send({
        method: 'PUT',
        path: obj('habits', 'mp'),
        query: { partNumber, uploadId },
        body,
        headers: { 'content-md5': md5(sum) },
      });
    log.push(snap(await part('1', 'part-one', 'part-one')));
    log.push(snap(await part('2', 'part-corrupted', 'part-one')));
    // DeleteObjects, verbose and quiet, of keys there and not.
    for (const key of ['v1', 'f1', 'q1']) await put(s3, 'habits', key, key);
    for (const body of [
      '<Delete><Object><Key>v1</Key></Object><Object><Key>v-missing</Key></Object></Delete>',
      '<Delete><Quiet>false</Quiet><Object><Key>f1</Key></Object></Delete>',
      '<Delete><Quiet>true</Quiet><Object><Key>q1</Key></Object><Object><Key>q-missing</Key></Object></Delete>',
    ])
      log.push(snap(await s3.send({ method: 'POST', path: obj('habits'), query: { delete: '' }, body })));
    // Access-Control-Allow-Origin of a rule listing origins, by name and by pattern, and of a rule of *.
    await s3.send({
      method: 'PUT',
      path: obj('habits'),
      query: { cors: '' },
      body:
        '<CORSConfiguration><CORSRule><AllowedOrigin>https://app.example.com</AllowedOrigin><AllowedOrigin>https://*.example.org</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule>' +
        '<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>',
    });
    for (const origin of [
      'https://app.example.com',
      'https://files.example.org',
      'https://elsewhere.example.net',
    ])
      log.push(
        snap(await s3.send({ method: 'GET', path: obj('habits', 'right'), headers: { origin } }), [
          'access-control-allow-origin',
        ]),
      );
    // x-amz-expiration of objects under an enabled rule, outside its prefix and under a Disabled rule.
    await s3.send({
      method: 'PUT',
      path: obj('habits'),
      query: { lifecycle: '' },
      body:
        '<LifecycleConfiguration><Rule><ID>expire-logs</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>3</Days></Expiration></Rule>' +
        '<Rule><ID>paused</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>',
    });
    const expiration = (r: { headers: Record<string, unknown> }) => {
      const v = r.headers['x-amz-expiration'];
      // The date moves with the clock: whether it is a midnight, and the rule, are what stay.
      return v === undefined
        ? null
        : String(v).replace(/\w{3}, \d\d \w{3} \d{4} (\d\d:\d\d:\d\d) GMT/, (_, t) =>
            t === '00:00:00' ? 'midnight' : 'not midnight',
          );
    };
    for (const key of ['logs/a', 'other/b', 'tmp/c']) log.push(expiration(await put(s3, 'habits', key, key)));
    for (const method of ['HEAD', 'GET'])
      log.push(expiration(await s3.send({ method, path: obj('habits', 'logs/a') })));
    // The CRC32 boto3 sends with every PutObject: of the body, and of other bytes.
    const crc32 = { 'x-amz-sdk-checksum-algorithm': 'CRC32', 'x-amz-checksum-crc32': 'jA8cDQ==' };
    log.push(snap(await put(s3, 'habits', 'crc-right', 'sent-whole', crc32)));
    log.push(snap(await put(s3, 'habits', 'crc-wrong', 'sent-corrupted', crc32)));
    log.push((await s3.send({ method: 'HEAD', path: obj('habits', 'crc-wrong') })).status);
    // DeleteObjects naming no Object, with Quiet alone and bare.
    for (const body of ['<Delete><Quiet>true</Quiet></Delete>', '<Delete></Delete>'])
      log.push(snap(await s3.send({ method: 'POST', path: obj('habits'), query: { delete: '' }, body })));
    // GET and HEAD of a missing key with If-Match (an ETag, and *) and If-None-Match.
    for (const method of ['GET', 'HEAD'])
      for (const headers of [
        { 'if-match': '"x"' },
        { 'if-match': '*' },
        { 'if-none-match': '"x"' },
      ] as Record<string, string>[])
        log.push(snap(await s3.send({ method, path: obj('habits', 'gone'), headers })));
  },

  /** What clients rely on beyond SPEC, of listings: the order of a page's keys; Owner with fetch-owner; StartAfter. */
  async clientListings(s3, log) {
    await bucket(s3, 'listings');
    for (const key of ['😀', 'café', 'banana~', 'apple', 'ｚ', 'cafz', 'Zebra', 'bananas', 'cafe', 'banana'])
      await put(s3, 'listings', key, key);
    for (const query of [
      { 'list-type': '2' },
      {},
      { 'list-type': '2', 'fetch-owner': 'true' },
      { 'list-type': '2', 'fetch-owner': 'false' },
      { 'list-type': '2', 'start-after': 'b é+c' },
    ] as Record<string, string>[])
      log.push(snap(await s3.send({ method: 'GET', path: obj('listings'), query })));
  },
};

/** Which scenario shows each fault. */
const SCENARIO_OF: Record<string, keyof typeof SCENARIOS> = {};
const byPrefix: [RegExp, keyof typeof SCENARIOS][] = [
  [
    /^s3-(content-md5|part-content-md5|delete-objects-quiet|delete-objects-missing|cors-allow-origin|cors-wildcard-echoes|expiration-|checksum-crc32|cond-missing|delete-objects-empty)/,
    'clientHabits',
  ],
  [
    /^s3-list-(case-insensitive-order|v1-locale-order|fetch-owner|start-after-not-echoed|start-after-echo-encoded)/,
    'clientListings',
  ],
  [
    /^s3-(put-etag|object-etag|empty-object-etag|get-etag|last-modified|list-etag|list-last-modified|response-overrides|cond-modified|cond-unmodified|cond-dates)/,
    'clientReads',
  ],
  [/^s3-(aws-chunked|multipart-content-encoding)/, 'metadata'],
  [/^s3-sse-/, 'sse'],
  [/^s3-(content-encoding|content-language|metadata-|multipart-headers|head-content-)/, 'metadata'],
  [/^s3-(checksum-not-answered|checksum-mode|part-checksum|complete-checksum)/, 'checksums'],
  [/^bindings-/, 'bindings'],
  [/^s3-virtual-hosted/, 'addressing'],
  // The region scenario makes its bucket signed for auto, which this fault refuses; names makes buckets alone.
  [/^s3-region-auto-create/, 'names'],
  [/^s3-(region|location|create-bucket-no-location|object-lock)/, 'region'],
  [/^s3-(standin|encryption|lifecycle|xml-declaration|malformed-xml|xml-result)/, 'bucketConfig'],
  [
    /^s3-(unsupported|list-unknown-params|list-v1-unknown-params|x-id|x-purpose|xml-text|xml-error|error-xmlns)/,
    'unsupported',
  ],
  [/^s3-(put-|checksum|content-type|create-bucket-if-missing|precondition)/, 'put'],
  [/^s3-cond-/, 'conditionals'],
  [/^s3-(copy|multipart-copy|upload-part-copy|part-copy)/, 'copy'],
  [/^s3-(range|content-range|public-gzip)/, 'ranges'],
  [
    /^s3-(list-parts|list-uploads|zero-length|multipart-|part-size|complete-|abort|no-such-upload|upload-part-unknown)/,
    'multipart',
  ],
  [/^s3-delete-objects/, 'deletes'],
  [/^s3-list-/, 'listing'],
  [/^s3-(cors|preflight|public-options)/, 'cors'],
  [/^s3-(presign|signed-payload|payload-hash|accept-encoding|unsigned|signature|secret)/, 'auth'],
  [/^s3-(missing-bucket|no-such-key|delete-missing)/, 'errors'],
  [/^s3-bucket-name/, 'names'],
  [/^s3-continue/, 'expectContinue'],
  [/^s3-head-bucket/, 'region'],
  [/^s3-te-cl/, 'teWithCl'],
];
for (const f of s3Faults) {
  const hit = byPrefix.find(([re]) => re.test(f.name));
  if (hit) SCENARIO_OF[f.name] = hit[1];
}

/** Each scenario's answers from a clean server, observed once for all its faults. */
const clean = new Map<string, Promise<string>>();
const harnesses: S3Harness[] = [];

/**
 * Scenarios at once. Each has a server of its own; most of a scenario's time is its requests'
 * round trips and, in clientReads, the wait for the clock's next second, which overlap.
 */
const scenarios = pLimit(3);

function observe(scenario: keyof typeof SCENARIOS, faults: string[]): Promise<string> {
  return scenarios(() => observeNow(scenario, faults));
}

async function observeNow(scenario: keyof typeof SCENARIOS, faults: string[]): Promise<string> {
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
  it('names each fault once, in the s3 area, with a description and the clauses it breaks (none for a control)', () => {
    const names = s3Faults.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const f of s3Faults) {
      expect(f.area).toBe('s3');
      expect(f.description.length).toBeGreaterThan(10);
      // A control fault breaks nothing, and says so (test/suite-s3-sensitivity.test.ts runs it).
      if (f.breaks.length === 0) expect(f.description).toMatch(/^Control: /);
      expect(f.breaks.every((c) => c.startsWith('s3.'))).toBe(true);
    }
    expect(FAULTS.filter((f) => f.area === 's3').map((f) => f.name)).toEqual(names);
  });

  it('has a scenario for every fault', () => {
    expect(s3Faults.filter((f) => !SCENARIO_OF[f.name]).map((f) => f.name)).toEqual([]);
  });

  it('sees the same answers from two clean servers (the comparison is deterministic)', async () => {
    for (const scenario of [
      'listing',
      'multipart',
      'copy',
      'sse',
      'metadata',
      'checksums',
      'bindings',
    ] as const) {
      // One after the other: two readings taken at once would agree on an answer that follows the clock.
      const first = await observe(scenario, []);
      const second = await observe(scenario, []);
      expect(first.split('\n')).toEqual(second.split('\n'));
      // Either serves as the scenario's clean answers below.
      clean.set(scenario, Promise.resolve(first));
    }
  });

  for (const fault of s3Faults) {
    it.concurrent(`fault ${fault.name} changes an answer`, async () => {
      const scenario = SCENARIO_OF[fault.name];
      if (!clean.has(scenario)) {
        const answers = observe(scenario, []);
        // Awaited below; a failure must not count as unhandled meanwhile.
        answers.catch(() => {});
        clean.set(scenario, answers);
      }
      const faulted = await observe(scenario, [fault.name]);
      expect(faulted, `${fault.name} left every answer of scenario '${scenario}' unchanged`).not.toBe(
        await clean.get(scenario),
      );
    });
  }
});
