import {
  buildS3Request,
  fc,
  type PropertyContext,
  type PropertyDef,
  type S3Target,
  signerFor,
} from 'edgecheck/kit';
import { destroyBucket, rawBucket } from './support/bucket.ts';
import { keyArb, utf8Compare } from './support/keys.ts';
import { sendRaw } from './support/raw-socket.ts';
import { type Answer, expectThat, s3Target, sendOutgoing, sendS3 } from './support/wire.ts';
import { listBucketsHeaders } from './support/wire-observers.ts';
import { xmlResult } from './support/xml.ts';

/** The target addressed virtual-hosted; a loopback IP becomes `localhost` so `<bucket>.localhost` resolves. */
function virtualTarget(t: S3Target): S3Target {
  const url = new URL(t.endpoint);
  if (url.hostname === '127.0.0.1' || url.hostname === '[::1]') url.hostname = 'localhost';
  return { ...t, endpoint: url.origin, addressing: 'virtual' };
}

const pathTarget = (t: S3Target): S3Target => ({ ...t, addressing: 'path' });

/** The S3 error code of an answer the property read itself, if it is an error document. */
const codeOf = (a: Answer): string | undefined => /<Code>([^<]*)<\/Code>/.exec(a.text)?.[1];

/** The root element of an XML answer, if it is one. */
const rootOf = (a: Answer): string | undefined =>
  /^\s*(?:<\?xml[^>]*\?>\s*)?<([A-Za-z][\w.-]*)/.exec(a.text)?.[1];

// The first bytes of a PNG file: content sniffing anywhere recognises them.
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

/**
 * Every kind of request the region rule covers, signed for `region`: the bucket's own (CreateBucket,
 * HeadBucket, ListBuckets) as well as the object's (PutObject, GetObject, ListObjectsV2). Accepted
 * means served as auto would serve it: the bucket is listed, the object reads back and is listed.
 * A CreateBucket refused here is the clause's own evidence, never a blocked setup.
 */
async function acceptedFor(ctx: PropertyContext, region: string): Promise<void> {
  const t = { ...s3Target(ctx), region };
  const shown = JSON.stringify(region);
  const bucket = ctx.bucketName('region');
  ctx.defer(() => destroyBucket(ctx, bucket), `bucket ${bucket}`);
  const made = await sendS3(ctx, t, { method: 'PUT', bucket });
  expectThat(made.status === 200, `CreateBucket signed for region ${shown}`, made);
  const head = await sendS3(ctx, t, { method: 'HEAD', bucket });
  expectThat(head.status === 200, `HeadBucket signed for region ${shown}`, head);
  const all = await sendS3(ctx, t, { method: 'GET' });
  const listed = xmlResult(all.text, 'ListAllMyBucketsResult');
  const names = [listed?.Buckets?.Bucket ?? []].flat().map((b: { Name?: unknown }) => String(b?.Name));
  // An account with more buckets than a page holds may list this one later: then the page is enough.
  const paged = listed?.ContinuationToken !== undefined;
  expectThat(
    all.status === 200 && listed !== undefined && (paged || names.includes(bucket)),
    `ListBuckets signed for region ${shown} lists ${bucket}`,
    all,
  );
  const key = `r-${region || 'empty'}.txt`;
  const body = `signed for ${shown}`;
  const put = await sendS3(ctx, t, { method: 'PUT', bucket, key, body });
  expectThat(put.status === 200, `PUT signed for region ${shown}`, put);
  const get = await sendS3(ctx, t, { method: 'GET', bucket, key });
  expectThat(
    get.status === 200 && get.text === body,
    `GET signed for region ${shown} returns the object`,
    get,
  );
  const list = await sendS3(ctx, t, { method: 'GET', bucket, query: { 'list-type': '2' } });
  const keys = [xmlResult(list.text, 'ListBucketResult')?.Contents ?? []]
    .flat()
    .map((c: { Key?: unknown }) => String(c?.Key));
  expectThat(
    list.status === 200 && keys.includes(key),
    `ListObjectsV2 signed for region ${shown} lists ${key}`,
    list,
  );
}

const properties: PropertyDef[] = [
  {
    id: 's3.prop.virtual-hosted',
    title: 'Objects written through <bucket>.<host> are the ones read path-style, and back',
    clauses: ['s3.addressing.virtual-hosted'],
    features: ['virtual-hosted'],
    async run(ctx) {
      const t = s3Target(ctx);
      const bucket = await rawBucket(ctx, 'vh');
      const runs = Math.min(ctx.fc.numRuns, 6);
      await fc.assert(
        fc.asyncProperty(keyArb, fc.boolean(), async (key, writeVirtual) => {
          const [writer, reader] = writeVirtual
            ? [virtualTarget(t), pathTarget(t)]
            : [pathTarget(t), virtualTarget(t)];
          const body = `vh:${key}`;
          const put = await sendS3(ctx, writer, { method: 'PUT', bucket, key, body });
          expectThat(
            put.status === 200,
            `PUT ${JSON.stringify(key)} ${writeVirtual ? 'virtual-hosted' : 'path-style'}`,
            put,
          );
          const get = await sendS3(ctx, reader, { method: 'GET', bucket, key });
          expectThat(
            get.status === 200 && get.text === body,
            `GET ${JSON.stringify(key)} ${writeVirtual ? 'path-style' : 'virtual-hosted'}`,
            get,
          );
          const list = await sendS3(ctx, virtualTarget(t), {
            method: 'GET',
            bucket,
            query: { 'list-type': '2', prefix: key },
          });
          expectThat(
            list.status === 200 && list.text.includes('<ListBucketResult'),
            'ListObjectsV2 virtual-hosted',
            list,
          );
        }),
        { seed: ctx.fc.seed, numRuns: runs },
      );
    },
  },
  {
    id: 's3.prop.region-auto',
    title:
      'Requests signed for region auto are accepted: CreateBucket, HeadBucket, ListBuckets, and object writes, reads and listings',
    clauses: ['s3.region.auto'],
    async run(ctx) {
      await acceptedFor(ctx, 'auto');
    },
  },
  {
    id: 's3.prop.region-aliases',
    title:
      'Requests signed for us-east-1 or an empty region are accepted as auto, bucket and object requests alike',
    clauses: ['s3.region.aliases'],
    async run(ctx) {
      for (const region of ['us-east-1', '']) await acceptedFor(ctx, region);
    },
  },
  {
    id: 's3.prop.content-type-inferred',
    title: 'PutObject without Content-Type infers it from the body',
    clauses: ['s3.put.content-type-inferred'],
    async run(ctx) {
      const bucket = await rawBucket(ctx, 'ctype');
      const t = s3Target(ctx);
      const out = await buildS3Request(t, { method: 'PUT', bucket, key: 'pixel', body: PNG as any });
      expectThat(
        !Object.keys(out.headers).some((h) => h.toLowerCase() === 'content-type'),
        'the request would carry a Content-Type',
      );
      const put = await sendOutgoing(ctx, out);
      expectThat(put.status === 200, 'PUT of PNG bytes without Content-Type', put);
      const get = await sendS3(ctx, t, { method: 'GET', bucket, key: 'pixel' });
      const type = get.headers['content-type'] ?? '';
      expectThat(
        type.startsWith('image/png'),
        `PNG bytes stored without Content-Type are served as ${JSON.stringify(type)}, expected image/png`,
      );
    },
  },
  {
    id: 's3.prop.accept-encoding-signed',
    title:
      'A request with Accept-Encoding among its SignedHeaders, in its Authorization header or its presigned URL, is accepted',
    clauses: ['s3.presign.accept-encoding-signed'],
    async run(ctx) {
      const bucket = await rawBucket(ctx, 'ae');
      const t = s3Target(ctx);
      await sendS3(ctx, t, { method: 'PUT', bucket, key: 'ae.txt', body: 'accept-encoding' });
      // SPEC states it in its sentence on presigned URLs: their X-Amz-SignedHeaders as well as the header's.
      for (const sign of ['header', 'presign'] as const) {
        if (sign === 'presign') {
          // The valid twin: the same URL presigned without Accept-Encoding is served, or a refusal shows nothing.
          const twin = await sendS3(ctx, t, { method: 'GET', bucket, key: 'ae.txt', sign });
          if (twin.status !== 200)
            ctx.blocked(`a presigned GET without Accept-Encoding is refused too (status ${twin.status})`);
        }
        for (const value of ['identity', 'gzip, deflate, br']) {
          const out = await buildS3Request(t, {
            method: 'GET',
            bucket,
            key: 'ae.txt',
            headers: { 'accept-encoding': value },
            sign,
          });
          const signedHeaders =
            sign === 'presign'
              ? (new URL(out.url).searchParams.get('X-Amz-SignedHeaders') ?? '')
              : (/SignedHeaders=([^,]+)/.exec(out.headers.authorization ?? '')?.[1] ?? '');
          if (!signedHeaders.split(';').includes('accept-encoding'))
            ctx.unjudgeable(`the signer left accept-encoding out of SignedHeaders (${sign})`);
          const res = await sendOutgoing(ctx, out);
          // Accepted means served: the object's bytes, unless the target chose to compress them.
          const served =
            res.text === 'accept-encoding' || /gzip|br|deflate/i.test(res.headers['content-encoding'] ?? '');
          expectThat(
            res.status === 200 && served,
            `GET with Accept-Encoding: ${value} signed (${sign === 'presign' ? 'presigned URL' : 'Authorization header'}) returns the object`,
            res,
          );
        }
      }
    },
  },
  {
    id: 's3.prop.presign-expired',
    title:
      'A presigned URL is refused with 403 once its own X-Amz-Expires has passed, and served before (Amazon S3)',
    clauses: ['s3.presign.expired'],
    async run(ctx) {
      const bucket = await rawBucket(ctx, 'exp');
      const t = s3Target(ctx);
      await sendS3(ctx, t, { method: 'PUT', bucket, key: 'old.txt', body: 'old' });
      const url = new URL(`${t.endpoint.replace(/\/+$/, '')}/${bucket}/old.txt`);
      const signer = signerFor(t);
      const signingDate = new Date(Date.now() - 2 * 3600_000);
      const fresh = new Date(Date.now() - 10_000);
      const twoMinutesAgo = new Date(Date.now() - 120_000);
      // The signer takes a plain request object (it copies it before signing).
      const request = () => ({
        method: 'GET',
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port ? Number(url.port) : undefined,
        path: url.pathname,
        query: {},
        // Hoisted into the query by presign: S3 presigned URLs sign UNSIGNED-PAYLOAD.
        headers: { host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      });
      const toUrl = (q: Record<string, unknown> = {}) => {
        const u = new URL(url.toString());
        for (const [k, v] of Object.entries(q)) u.searchParams.set(k, String(v));
        return u.toString().replace(/\+/g, '%20');
      };
      const get = async (expiresIn: number, signedAt: Date) => {
        const signed = await signer.presign(request(), { expiresIn, signingDate: signedAt });
        return sendOutgoing(ctx, { method: 'GET', url: toUrl(signed.query), headers: {} });
      };
      const ok = await get(300, fresh);
      if (ok.status !== 200) ctx.blocked(`a fresh presigned URL was refused (status ${ok.status})`);
      // Two minutes old: within 15 minutes, past 60 seconds. The window is the URL's own X-Amz-Expires,
      // so a fixed window (or the wrong unit) gets one of the two wrong; a minute either way absorbs clock skew.
      const live = await get(900, twoMinutesAgo);
      expectThat(
        live.status === 200,
        'presigned URL signed two minutes ago for 15 minutes (still valid)',
        live,
      );
      const lapsed = await get(60, twoMinutesAgo);
      expectThat(
        lapsed.status === 403,
        'presigned URL signed two minutes ago for 60 seconds (expired)',
        lapsed,
      );
      const old = await get(60, signingDate);
      expectThat(old.status === 403, 'presigned URL that expired two hours ago', old);
    },
  },
  {
    id: 's3.prop.secret-not-echoed',
    title: 'No answer, successful or not, carries the secret access key',
    clauses: ['s3.auth.secret-not-echoed'],
    async run(ctx) {
      const bucket = await rawBucket(ctx, 'secret');
      const t = s3Target(ctx);
      const secret = t.secretAccessKey;
      const answers = [
        await sendS3(ctx, t, { method: 'PUT', bucket, key: 's.txt', body: 'x' }),
        await sendS3(ctx, t, { method: 'GET', bucket, key: 's.txt' }),
        await sendS3(ctx, t, { method: 'GET', bucket, key: 'absent.txt' }),
        await sendS3(ctx, t, { method: 'GET', bucket, key: 's.txt', sign: 'bad-signature' }),
        await sendS3(ctx, t, { method: 'GET', bucket, key: 's.txt', sign: 'presign', expires: 60 }),
        await sendS3(ctx, t, { method: 'GET', bucket, query: { 'list-type': '2' } }),
      ];
      for (const [i, a] of answers.entries()) {
        const everything = `${JSON.stringify(a.headers)}\n${a.text}`;
        // Never print the secret itself: only which answer carried it.
        expectThat(
          !everything.includes(secret),
          `answer ${i + 1} (status ${a.status}) contains the secret access key`,
        );
      }
    },
  },
  {
    id: 's3.prop.te-with-cl',
    title: 'An S3 request with both Transfer-Encoding and Content-Length is declined and stores nothing',
    clauses: ['s3.auth.te-cl-declined'],
    async run(ctx) {
      const bucket = await rawBucket(ctx, 'tecl');
      const t = s3Target(ctx);
      const raw = async (key: string, withTe: boolean) => {
        const out = await buildS3Request(t, {
          method: 'PUT',
          bucket,
          key,
          headers: { 'content-length': '5' },
        });
        const url = new URL(out.url);
        const lines = [`PUT ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
        for (const [k, v] of Object.entries(out.headers))
          if (k !== 'content-length') lines.push(`${k}: ${v}`);
        lines.push('Content-Length: 5');
        if (withTe) lines.push('Transfer-Encoding: chunked');
        lines.push('Connection: close', '', '');
        return sendRaw(url, lines.join('\r\n'), withTe ? '5\r\nhello\r\n0\r\n\r\n' : 'hello');
      };
      const control = await raw('control.txt', false);
      if (control !== 200)
        ctx.blocked(`the same request without Transfer-Encoding was refused (status ${control})`);
      const status = await raw('both.txt', true);
      expectThat(
        status >= 400 && status < 500,
        `PUT with Transfer-Encoding and Content-Length answered ${status}`,
      );
      const get = await ctx.http({ method: 'GET', bucket, key: 'both.txt' });
      expectThat(get.status === 404, `the declined PUT stored an object (GET answered ${get.status})`);
    },
  },
  {
    id: 's3.prop.list-buckets-headers',
    title: 'ListBuckets honours cf-max-keys and cf-start-after like the URL parameters',
    clauses: ['s3.list.buckets-cf-headers'],
    observe: {
      selects: 'ListBuckets answered 200 to requests with cf-max-keys or cf-start-after',
      observer: () => listBucketsHeaders,
    },
    async run(ctx) {
      const t = s3Target(ctx);
      const mine = [await rawBucket(ctx, 'lb'), await rawBucket(ctx, 'lb'), await rawBucket(ctx, 'lb')].sort(
        utf8Compare,
      );
      const names = (text: string): string[] => {
        const doc = xmlResult(text, 'ListAllMyBucketsResult');
        const list = doc?.Buckets?.Bucket ?? [];
        return list.map((b: { Name: string }) => String(b.Name));
      };
      for (const via of ['query', 'header'] as const) {
        const args =
          via === 'query'
            ? { query: { 'start-after': mine[0], 'max-keys': '1' } }
            : { headers: { 'cf-start-after': mine[0], 'cf-max-keys': '1' } };
        const res = await sendS3(ctx, t, { method: 'GET', path: '/', ...args });
        expectThat(res.status === 200, `ListBuckets with start-after and max-keys 1 by ${via}`, res);
        const got = names(res.text);
        // Other buckets may come and go meanwhile; the first one after mine[0] is at most mine[1].
        expectThat(
          got.length === 1 && utf8Compare(got[0], mine[0]) > 0 && utf8Compare(got[0], mine[1]) <= 0,
          `ListBuckets by ${via} after ${mine[0]} with max-keys 1 listed ${JSON.stringify(got)}`,
        );
      }
    },
  },
  {
    id: 's3.prop.signature-tampered',
    title:
      'A request whose signed header was changed after signing, or whose signature is 64 zeros, is SignatureDoesNotMatch and has no effect; the request as signed is served',
    clauses: ['s3.auth.signature-mismatch'],
    async run(ctx) {
      const bucket = await rawBucket(ctx, 'sig');
      const t = s3Target(ctx);
      const key = 'private.txt';
      const stored = await sendS3(ctx, t, { method: 'PUT', bucket, key, body: 'private' });
      if (stored.status !== 200) ctx.blocked(`PUT of the object to read answered ${stored.status}`);
      const signed = async (method: string, headers: Record<string, string>, body?: string) => {
        const out = await buildS3Request(t, { method, bucket, key, headers, body });
        out.headers['user-agent'] ??= ctx.userAgent;
        return out;
      };
      // Rule 4 names the code, not a status: Amazon S3's 403 is not asked.
      const refused = (what: string, a: Answer) =>
        expectThat(codeOf(a) === 'SignatureDoesNotMatch', `${what}: expected SignatureDoesNotMatch`, a);
      // The twin first: the request as signed is served. Then the same signature with the header changed.
      const get = await signed('GET', { 'x-amz-meta-probe': 'signed' });
      const names = /SignedHeaders=([^,]+)/.exec(get.headers.authorization ?? '')?.[1]?.split(';') ?? [];
      if (!names.includes('x-amz-meta-probe'))
        ctx.unjudgeable('the signer left x-amz-meta-probe out of SignedHeaders');
      const twin = await sendOutgoing(ctx, get);
      if (twin.status !== 200 || twin.text !== 'private')
        ctx.blocked(`the correctly signed GET, the twin of the changed one, answered ${twin.status}`);
      const changed = { ...get, headers: { ...get.headers, 'x-amz-meta-probe': 'changed' } };
      refused(
        'GET whose signed x-amz-meta-probe header was changed after signing',
        await sendOutgoing(ctx, changed),
      );
      const zeros = await signed('GET', {});
      zeros.headers.authorization = (zeros.headers.authorization ?? '').replace(
        /Signature=[0-9a-fA-F]+/,
        `Signature=${'0'.repeat(64)}`,
      );
      refused('GET whose signature is 64 zeros', await sendOutgoing(ctx, zeros));
      const put = await signed('PUT', { 'x-amz-meta-probe': 'signed' }, 'tampered');
      const changedPut = { ...put, headers: { ...put.headers, 'x-amz-meta-probe': 'changed' } };
      refused(
        'PUT whose signed x-amz-meta-probe header was changed after signing',
        await sendOutgoing(ctx, changedPut),
      );
      const after = await sendS3(ctx, t, { method: 'GET', bucket, key });
      expectThat(
        after.status === 200 && after.text === 'private',
        'the object after the refused PUT still holds what was stored before',
        after,
      );
    },
  },
  {
    id: 's3.prop.unsupported-not-converted',
    title:
      'Unsupported calls are never answered as another operation: object reads not with the object, bucket reads not with a listing, bucket writes not as CreateBucket',
    clauses: ['s3.unsupported.not-converted'],
    async run(ctx) {
      const t = s3Target(ctx);
      const bucket = await rawBucket(ctx, 'unsup');
      const original = 'original-bytes-of-keep.txt';
      const stored = await sendS3(ctx, t, { method: 'PUT', bucket, key: 'keep.txt', body: original });
      if (stored.status !== 200) ctx.blocked(`PUT of the object answered ${stored.status}`);
      // Reads of an object (GetObjectTorrent, GetObjectAttributes, GetObjectRetention): whatever they answer
      // (501, or that operation's own answer), not the object's bytes, which is GetObject's answer.
      for (const [sub, headers] of [
        ['torrent', {}],
        ['attributes', { 'x-amz-object-attributes': 'ETag' }],
        ['retention', {}],
      ] as const) {
        const a = await sendS3(ctx, t, {
          method: 'GET',
          bucket,
          key: 'keep.txt',
          query: { [sub]: '' },
          headers,
        });
        expectThat(
          !(a.status === 200 && a.text === original),
          `GET keep.txt?${sub} answered 200 with the object's bytes: carried out as GetObject`,
          a,
        );
      }
      // Reads of a bucket: not a ListBucketResult, which is ListObjects' answer.
      for (const query of [
        { accelerate: '' } as Record<string, string>,
        { requestPayment: '' },
        { logging: '' },
        { ownershipControls: '' },
        { 'intelligent-tiering': '', id: 'edgecheck' },
        { metrics: '', id: 'edgecheck' },
      ]) {
        const a = await sendS3(ctx, t, { method: 'GET', bucket, query });
        const root = rootOf(a);
        expectThat(
          root !== 'ListBucketResult' && root !== 'ListBucketResponse',
          `GET ?${Object.keys(query)[0]} answered ${a.status} <${root}>: carried out as ListObjects`,
          a,
        );
      }
      // Writes of a bucket, on a bucket of their own with no object in it: one that takes effect
      // (versioning) must not keep the bucket from being deleted. Not CreateBucket's refusal of a bucket that exists.
      const empty = await rawBucket(ctx, 'empty');
      for (const [sub, body] of [
        ['versioning', '<VersioningConfiguration><Status>Suspended</Status></VersioningConfiguration>'],
        ['accelerate', '<AccelerateConfiguration><Status>Suspended</Status></AccelerateConfiguration>'],
      ] as const) {
        const a = await sendS3(ctx, t, { method: 'PUT', bucket: empty, query: { [sub]: '' }, body });
        const code = codeOf(a);
        expectThat(
          code !== 'BucketAlreadyExists' && code !== 'BucketAlreadyOwnedByYou',
          `PUT ?${sub} answered ${a.status} ${code}: carried out as CreateBucket`,
          a,
        );
      }
      const after = await sendS3(ctx, t, { method: 'GET', bucket, key: 'keep.txt' });
      expectThat(
        after.status === 200 && after.text === original,
        'the object after the unsupported calls still holds what was stored',
        after,
      );
    },
  },
];

export default properties;
