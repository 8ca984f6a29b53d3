import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference } from '../reference/server.ts';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import {
  HarRecorder,
  type ObservedExchange,
  PassiveJudge,
  type ProxyHandle,
  readHar,
  startProxy,
} from '../runner/passive/index.ts';
import { sdkClient } from './helpers/passive-traffic.ts';

// A hosted S3 target routes by the Host header, which SigV4 covers: a client pointed at the proxy
// signs for the proxy's address. `--resign` signs each request again for the target's Host with
// keys of its own, so the client's keys need not even be real.

let ref: Awaited<ReturnType<typeof startReference>>;
let front: http.Server;
let frontUrl: string;

/**
 * The reference behind a front that, as a hosted target does, refuses a request whose Host is not
 * its own, and passes every other one on unchanged (its signature is then the reference's to check).
 */
async function hostRoutedTarget(): Promise<void> {
  const upstream = new URL(ref.urls.s3);
  front = http.createServer((req, res) => {
    if (req.headers.host !== new URL(frontUrl).host) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(`no such host: ${req.headers.host}\n`);
      req.resume();
      return;
    }
    const up = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
}

async function proxyFor(resignWith?: { accessKeyId: string; secretAccessKey: string }): Promise<{
  proxy: ProxyHandle;
  judge: PassiveJudge;
}> {
  const areas = listAreas();
  const suites = await loadSuites(areas, areas);
  const judge = new PassiveJudge(
    { clauses: suites.clauses.values(), properties: suites.properties },
    today(),
  );
  const proxy = await startProxy({
    upstream: { s3: frontUrl },
    resign: resignWith,
    onExchange: (ex) => judge.observe(ex),
  });
  return { proxy, judge };
}

/** An SDK client pointed at the proxy, with keys the target does not know. */
const client = (proxy: ProxyHandle) =>
  sdkClient(proxy.urls.s3!, { accessKeyId: 'CLIENTSKEY', secretAccessKey: 'not-the-target-secret' });

describe('edgecheck proxy --resign, in front of a target that routes by Host', () => {
  beforeAll(async () => {
    ref = await startReference({ asOf: today() });
    await hostRoutedTarget();
  });
  afterAll(async () => {
    await new Promise((r) => front?.close(r));
    await ref?.close();
  });

  it('without it, the Host the client signed reaches the target and is refused', async () => {
    const { proxy } = await proxyFor();
    const s3 = client(proxy);
    try {
      await expect(s3.send(new CreateBucketCommand({ Bucket: 'unsigned-for-host' }))).rejects.toThrow();
    } finally {
      s3.destroy();
      await proxy.close();
    }
  });

  it('with it, writes, reads, listings, multipart uploads and presigned URLs reach the target, and are judged', async () => {
    const c = ref.context.credentials;
    const { proxy, judge } = await proxyFor({
      accessKeyId: c.accessKeyId,
      secretAccessKey: c.secretAccessKey,
    });
    const s3 = client(proxy);
    try {
      const Bucket = 'resigned';
      await s3.send(new CreateBucketCommand({ Bucket }));
      await s3.send(new PutObjectCommand({ Bucket, Key: 'a b/ü', Body: 'through the proxy' }));
      const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'a b/ü', Range: 'bytes=0-6' }));
      expect(await got.Body?.transformToString()).toBe('through');
      const listed = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: 'a b/', Delimiter: '/' }));
      expect(listed.Contents?.map((o) => o.Key)).toEqual(['a b/ü']);
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'm' }));
      const part = await s3.send(
        new UploadPartCommand({ Bucket, Key: 'm', UploadId, PartNumber: 1, Body: 'one' }),
      );
      const done = await s3.send(
        new CompleteMultipartUploadCommand({
          Bucket,
          Key: 'm',
          UploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
        }),
      );
      expect(done.ETag).toMatch(/-1"$/);
      const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket, Key: 'm' }), { expiresIn: 300 });
      const presigned = await fetch(url);
      expect(presigned.status).toBe(200);
      expect(await presigned.text()).toBe('one');
      expect(judge.observed).toBeGreaterThanOrEqual(8);
      expect(judge.cases().filter((k) => k.verdict !== 'pass')).toEqual([]);
    } finally {
      s3.destroy();
      await proxy.close();
    }
  }, 60_000);

  it('each exchange says the proxy signed it again and for which region, and so does its recording', async () => {
    const c = ref.context.credentials;
    const seen: ObservedExchange[] = [];
    const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-resigned-'));
    const har = path.join(dir, 'traffic.har');
    const recorder = new HarRecorder(har, 'test');
    const proxy = await startProxy({
      upstream: { s3: frontUrl },
      resign: { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey },
      onExchange: (ex) => {
        seen.push(ex);
        recorder.add(ex, { s3: frontUrl });
      },
    });
    const s3 = sdkClient(proxy.urls.s3!, { accessKeyId: 'CLIENTSKEY', secretAccessKey: 'x' }, 'us-east-1');
    try {
      await s3.send(new CreateBucketCommand({ Bucket: 'resigned-regions' }));
      // Unsigned, the client's request goes signed for auto.
      expect((await fetch(`${proxy.urls.s3}/resigned-regions`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      expect(seen.map((ex) => ex.resigned?.region)).toEqual(['us-east-1', 'auto']);
      recorder.close();
      const recorded: ObservedExchange[] = [];
      for await (const ex of readHar(har)) recorded.push(ex);
      expect(recorded.map((ex) => ex.resigned?.region)).toEqual(['us-east-1', 'auto']);
    } finally {
      s3.destroy();
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a request with signed chunks is answered by the proxy, saying why, and not forwarded', async () => {
    const c = ref.context.credentials;
    const { proxy, judge } = await proxyFor({
      accessKeyId: c.accessKeyId,
      secretAccessKey: c.secretAccessKey,
    });
    try {
      const res = await fetch(`${proxy.urls.s3}/resigned/chunked`, {
        method: 'PUT',
        headers: {
          'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
          authorization:
            'AWS4-HMAC-SHA256 Credential=CLIENTSKEY/20261127/auto/s3/aws4_request, SignedHeaders=host, Signature=00',
        },
        body: '0;chunk-signature=00\r\n\r\n',
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/signed chunks .* cannot be signed again/);
      expect(judge.observed).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});
