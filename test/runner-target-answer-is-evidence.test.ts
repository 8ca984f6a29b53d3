import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import path from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceHandle, startReference } from '../reference/server.ts';
import { runEdgecheck, today } from '../runner/api.ts';
import { evaluateCheck } from '../runner/match/check.ts';
import type { CheckResult, RunResults } from '../runner/model/results.ts';
import type { S3Target, Target } from '../runner/model/target.ts';
import { s3Error } from '../runner/sweep/client.ts';
import { GeneratedBody } from '../runner/template/resolve.ts';
import { createAgent } from '../runner/transports/agent.ts';
import { sendHttp } from '../runner/transports/http.ts';
import { createS3Client, retryingClient, sendS3Command } from '../runner/transports/s3-sdk.ts';
import { TargetError } from '../runner/util/errors.ts';
import { type ForeignHabits, type ForeignProxy, startForeignProxy } from './helpers/foreign-proxy.ts';

/*
 * The target's answer is the evidence, whatever the client library made of it: each habit below
 * is one a production S3 front showed, held in front of the reference (right about everything
 * else). A run judges what the target sent and says it as the target sent it, never with the
 * client library's placeholder (UnknownError, NotFound, write EPIPE, "found nothing").
 */

const TLS = {
  key: readFileSync(path.join(import.meta.dirname, 'fixtures/tls/localhost-key.pem')),
  cert: readFileSync(path.join(import.meta.dirname, 'fixtures/tls/localhost-cert.pem')),
};
/** What a client library says when it lost or could not read an answer. */
const PLACEHOLDER = /UnknownError|\bUnknown\b|NotFound|EPIPE|ECONNRESET|socket hang up|Deserialization error/;

let reference: ReferenceHandle;
const proxies: ForeignProxy[] = [];
let trust: string | undefined;

beforeAll(async () => {
  reference = await startReference({ asOf: today() });
  // The TLS front's certificate is this test's own, self-signed.
  trust = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
}, 30_000);

afterAll(async () => {
  if (trust === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  else process.env.NODE_TLS_REJECT_UNAUTHORIZED = trust;
  await Promise.all(proxies.map((p) => p.close()));
  await reference?.close();
});

async function front(habits: ForeignHabits, tls = false): Promise<{ proxy: ForeignProxy; s3: S3Target }> {
  const proxy = await startForeignProxy(reference.urls.s3, habits, tls ? TLS : undefined);
  proxies.push(proxy);
  return { proxy, s3: { ...reference.target().s3!, endpoint: proxy.url } };
}

async function runThrough(
  habits: ForeignHabits,
  select: { clauses?: string[]; cases?: string[] },
  tls = false,
): Promise<{ proxy: ForeignProxy; results: RunResults }> {
  const { proxy, s3 } = await front(habits, tls);
  const target: Target = { name: 'foreign', features: [], s3 };
  const results = await runEdgecheck({
    suites: ['s3'],
    target,
    seed: 20261127,
    maxRetryWaitMs: 100,
    ...select,
  });
  return { proxy, results };
}

const checks = (r: RunResults): CheckResult[] => r.cases.flatMap((c) => c.checks);
const step = (r: RunResults, caseId: string, id: string) =>
  checks(r).filter((k) => k.caseId === caseId && k.step === id);
/** Every message and error line a report would show. */
const shown = (r: RunResults) =>
  checks(r)
    .flatMap((k) => [
      k.message ?? '',
      k.exchange?.response.error?.name ?? '',
      k.exchange?.response.error?.message ?? '',
    ])
    .concat(r.leftovers.map((l) => l.error ?? ''));

describe('an upload refused before its body is sent', () => {
  it('is judged on the 411 the target sent, not errored with the write that failed after it', async () => {
    // Over TLS, a front closing the connection under the body made every such UploadPart an error.
    const { proxy, results } = await runThrough(
      { chunked411: true },
      { cases: ['s3.checksum.multipart-sha256', 's3.checksum.multipart-crc32c'] },
      true,
    );
    expect(proxy.counts.chunked411).toBeGreaterThanOrEqual(2);
    for (const caseId of ['s3.checksum.multipart-sha256', 's3.checksum.multipart-crc32c']) {
      const part = step(results, caseId, 'part-1');
      expect(part.length).toBeGreaterThan(0);
      for (const k of part) {
        expect(k.verdict, k.message).toBe('fail');
        expect(k.message).toBe(
          'output: the command failed: 411 MissingContentLength: You must provide the Content-Length HTTP header.',
        );
        expect(k.exchange?.response.status).toBe(411);
      }
    }
    expect(checks(results).filter((k) => k.verdict === 'error')).toEqual([]);
    expect(shown(results).filter((m) => PLACEHOLDER.test(m))).toEqual([]);
  }, 60_000);

  it('keeps the answer on the runner own raw transport too, every time', async () => {
    const { proxy, s3 } = await front({ chunked411: true }, true);
    const agent = createAgent(4, 10_000);
    const statuses: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await sendHttp(
        agent,
        {
          method: 'PUT',
          url: `${s3.endpoint}/bucket/key`,
          headers: { 'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER' },
          body: new GeneratedBody(5 * 1024 * 1024, i),
        },
        { signal: new AbortController().signal, timeoutMs: 10_000 },
      );
      statuses.push(res.describe());
    }
    await agent.close();
    expect(proxy.counts.chunked411).toBe(5);
    expect(statuses).toEqual(
      Array(5).fill('411 MissingContentLength: You must provide the Content-Length HTTP header.'),
    );
  }, 60_000);
});

describe('an error answer with an empty body', () => {
  let results: RunResults;
  beforeAll(async () => {
    ({ results } = await runThrough({ emptyErrorBody: true }, { cases: ['s3.errors.*'] }));
  }, 60_000);

  it('fails the checks naming an error code, saying the target sent none', () => {
    const sdk = step(results, 's3.errors.missing-key', 'missing-key-sdk').find((k) => k.verdict === 'fail');
    expect(sdk?.message).toBe(
      'error: expected "NoSuchKey", but the answer has no error code (404, empty body)',
    );
    const raw = step(results, 's3.errors.missing-upload', 'missing-upload-raw').find(
      (k) => k.verdict === 'fail',
    );
    expect(raw?.message).toBe(
      'xml at /Error/Code: expected "NoSuchUpload", found nothing: the body is empty',
    );
  });

  it('errors nothing, and no message carries the SDK name for an answer it could not read', () => {
    expect(checks(results).filter((k) => k.verdict === 'error')).toEqual([]);
    // The status the clause names is still judged on the target's own status.
    const statuses = checks(results).filter((k) => /^status/.test(k.message ?? ''));
    expect(statuses).toEqual([]);
    expect(shown(results).filter((m) => PLACEHOLDER.test(m))).toEqual([]);
  });
});

describe('an error answer with an empty <Message>', () => {
  it('is judged on its <Code>, and shown as the code with no message', async () => {
    const { results } = await runThrough({ emptyErrorMessage: true }, { cases: ['s3.errors.*'] });
    expect(results.clauses.filter((c) => c.verdict !== 'pass' && c.verdict !== 'untested')).toEqual([]);
    const { s3 } = await front({ emptyErrorMessage: true });
    const res = await sendS3Command(
      createS3Client(s3, 2, 10_000),
      'ListObjectsV2',
      { Bucket: 'ec-no-such-bucket-here' },
      { signal: new AbortController().signal, timeoutMs: 10_000 },
    );
    expect(res.error).toEqual({ name: 'NoSuchBucket', message: '' });
    expect(res.describe()).toBe('404 NoSuchBucket, no message');
    // The same answer to a command sent outside a step (a sweep's, a property's) reads the same.
    const err = await createS3Client(s3, 2, 10_000)
      .send(new ListObjectsV2Command({ Bucket: 'ec-no-such-bucket-here' }))
      .catch((e: Error) => e);
    expect((err as Error).message).toBe('404 NoSuchBucket, no message');
    expect(s3Error(err)).toBe('HTTP 404 NoSuchBucket, no message');
  }, 60_000);
});

describe("another operation's document", () => {
  it('fails saying which document came back, on a raw step and an SDK command alike', async () => {
    const { proxy, results } = await runThrough(
      { otherDocumentFor: 'location' },
      { cases: ['s3.region.location'] },
    );
    expect(proxy.counts.otherDocument).toBeGreaterThan(0);
    const raw = step(results, 's3.region.location', 'location')[0];
    expect(raw.verdict).toBe('fail');
    expect(raw.message).toBe(
      'xml at /LocationConstraint: expected one of ["auto",{"#text":"auto"}], found nothing: the answer is <ListBucketResult>',
    );
    // The SDK reads no root element: what it found nothing in is named all the same.
    const { s3 } = await front({ otherDocumentFor: 'location' });
    const client = createS3Client(s3, 2, 10_000);
    const opts = { signal: new AbortController().signal, timeoutMs: 10_000 };
    const bucket = 'ec-evidence-other-document';
    expect((await sendS3Command(client, 'CreateBucket', { Bucket: bucket }, opts)).status).toBe(200);
    const res = await sendS3Command(client, 'GetBucketLocation', { Bucket: bucket }, opts);
    await sendS3Command(client, 'DeleteBucket', { Bucket: bucket }, opts);
    expect(() =>
      evaluateCheck(
        {
          clauses: ['s3.region.get-bucket-location'],
          origin: 'test',
          output: { '/LocationConstraint': 'auto' },
        },
        res,
      ),
    ).toThrow(
      'output at /LocationConstraint: expected "auto", found nothing (the answer is <ListBucketResult>)',
    );
  }, 60_000);
});

describe('a capture that came back empty', () => {
  it('is named in the message of the check that expected it, not shown as ""', async () => {
    const { proxy, results } = await runThrough(
      { emptyFirstCompleteETag: true },
      { cases: ['s3.mpu.complete-twice'] },
    );
    expect(proxy.counts.emptied).toBe(1);
    const again = step(results, 's3.mpu.complete-twice', 'complete-again');
    expect(again.map((k) => k.verdict)).toEqual(['fail']);
    expect(again[0].message).toMatch(
      /^output at \/ETag: expected the \/ETag of step complete \(empty\), found "\\"[0-9a-f]{32}-1\\""$/,
    );
  }, 60_000);
});

describe('a connection that ends without an answer', () => {
  it("is told in words about the target, and an SDK command's is no answer a property could judge", async () => {
    const server = createServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const agent = createAgent(2, 5000);
      const raw = await sendHttp(
        agent,
        { method: 'GET', url: `${endpoint}/b`, headers: {} },
        { signal: new AbortController().signal, timeoutMs: 5000 },
      ).catch((err: Error) => err);
      await agent.close();
      expect(raw).toBeInstanceOf(TargetError);
      expect((raw as Error).message).toMatch(
        /^GET \/b: the target (reset|closed) the connection without an answer \(/,
      );
      const s3 = { ...reference.target().s3!, endpoint };
      const client = retryingClient(createS3Client(s3, 2, 5000), undefined);
      const sdk = await client.send(new ListObjectsV2Command({ Bucket: 'b' })).catch((err: Error) => err);
      expect(sdk).toBeInstanceOf(TargetError);
      expect((sdk as Error).message).toMatch(
        /^ListObjectsV2: the target (reset|closed) the connection without an answer/,
      );
      expect((sdk as Error).message).not.toMatch(/socket hang up|read ECONNRESET/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
