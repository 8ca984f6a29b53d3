import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference } from '../reference/server.ts';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { LoadedSuites } from '../runner/load/suite.ts';
import type { Clause } from '../runner/model/clause.ts';
import type { RunResults } from '../runner/model/results.ts';
import { HarRecorder, PassiveJudge, passiveResults, readHar, startProxy } from '../runner/passive/index.ts';
import { VERSION } from '../runner/version.ts';
import { runMain } from './helpers/cli.ts';
import { startHostileTarget } from './helpers/hostile-target.ts';
import { findTool, haveTool } from './helpers/not-run.ts';
import { sdkClient } from './helpers/passive-traffic.ts';

const run = promisify(execFile);
const asOf = today();
let clauses: Clause[];
let properties: LoadedSuites['properties'];
let dir: string;

/** What the clients below make the traffic show: passively judgeable clauses they exercise. */
const EXERCISED = [
  'mgmt.envelope.fields',
  'mgmt.envelope.success',
  'mgmt.errors.envelope',
  'mgmt.errors.object',
  'mgmt.result-info.fields',
  's3.region.head-bucket-header',
  's3.get.range-206',
  's3.get.content-range-partial-only',
  's3.mpu.etag-format',
  's3.xml.error-no-xmlns',
  's3.xml.content-type',
  's3.error.precondition-failed',
];

/** Is the AWS CLI on this machine? (CI installs it; a developer may not have it.) */
async function awsCli(): Promise<boolean> {
  return findTool('aws') !== undefined;
}

/**
 * The reference with `faults`, behind the proxy, driven by real clients: the AWS SDK, the official
 * cloudflare client and (where present) the AWS CLI. Returns the proxy's verdicts and its HAR.
 */
async function session(label: string, faults: string[] = []): Promise<{ results: RunResults; har: string }> {
  const ref = await startReference({ asOf, faults });
  const judge = new PassiveJudge({ clauses, properties }, asOf);
  const har = path.join(dir, `${label}.har`);
  const recorder = new HarRecorder(har, VERSION);
  const upstream = { management: ref.urls.management, s3: ref.urls.s3 };
  const proxy = await startProxy({
    upstream,
    onExchange: (ex) => {
      judge.observe(ex);
      recorder.add(ex, upstream);
    },
  });
  const startedAt = new Date();
  try {
    const c = ref.context.credentials;
    const s3 = sdkClient(proxy.urls.s3!, c);
    const Bucket = `passive-${label}`;
    await s3.send(new CreateBucketCommand({ Bucket }));
    await s3.send(new HeadBucketCommand({ Bucket }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'hello, passive' }));
    for (const Range of ['bytes=0-0', 'bytes=2-5', undefined]) {
      const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'k', Range }));
      await got.Body?.transformToString();
    }
    await expect(s3.send(new GetObjectCommand({ Bucket, Key: 'missing' }))).rejects.toThrow();
    await expect(
      s3.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'again', IfNoneMatch: '*' })),
    ).rejects.toThrow();
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'm' }));
    const part = await s3.send(
      new UploadPartCommand({ Bucket, Key: 'm', UploadId, PartNumber: 1, Body: 'one part' }),
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key: 'm',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    // The CLI starts slowly: it drives the fault-free session and one with a fault it can show.
    if ((label === 'clean' || label === 's3-head-bucket-region-missing') && (await awsCli())) {
      const env = {
        ...process.env,
        AWS_ACCESS_KEY_ID: c.accessKeyId,
        AWS_SECRET_ACCESS_KEY: c.secretAccessKey,
        AWS_DEFAULT_REGION: 'us-east-1',
      };
      const endpoint = ['--endpoint-url', proxy.urls.s3!];
      await run('aws', ['s3api', 'head-bucket', '--bucket', Bucket, ...endpoint], { env });
      await run(
        'aws',
        [
          's3api',
          'get-object',
          '--bucket',
          Bucket,
          '--key',
          'k',
          '--range',
          'bytes=0-1',
          path.join(dir, 'got'),
          ...endpoint,
        ],
        { env },
      );
      await run('aws', ['s3api', 'head-object', '--bucket', Bucket, '--key', 'missing', ...endpoint], {
        env,
      }).catch(() => undefined);
    }
    if ((label === 'clean' || label === 's3-head-bucket-region-missing') && findTool('rclone')) {
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        RCLONE_CONFIG: path.join(dir, 'no-rclone.conf'),
        RCLONE_CONFIG_PX_TYPE: 's3',
        RCLONE_CONFIG_PX_PROVIDER: 'Cloudflare',
        RCLONE_CONFIG_PX_ACCESS_KEY_ID: c.accessKeyId,
        RCLONE_CONFIG_PX_SECRET_ACCESS_KEY: c.secretAccessKey,
        RCLONE_CONFIG_PX_ENDPOINT: proxy.urls.s3!,
        RCLONE_CONFIG_PX_REGION: 'auto',
      };
      const file = path.join(dir, `${label}-up`);
      writeFileSync(file, 'through rclone');
      await run('rclone', ['copyto', file, `px:${Bucket}/r`], { env });
      await run('rclone', ['cat', '--offset', '0', '--count', '4', `px:${Bucket}/r`], { env });
      await run('rclone', ['lsf', `px:${Bucket}`], { env });
      await run('rclone', ['deletefile', `px:${Bucket}/r`], { env });
    }
    for (const Key of ['k', 'm']) await s3.send(new DeleteObjectCommand({ Bucket, Key }));
    await s3.send(new DeleteBucketCommand({ Bucket }));
    s3.destroy();

    const cf = new Cloudflare({
      apiToken: c.token,
      baseURL: `${proxy.urls.management}/client/v4`,
      maxRetries: 0,
    });
    const zone_id = ref.context.ids.zoneId;
    await cf.zones.get({ zone_id });
    for await (const _ of cf.dns.records.list({ zone_id, per_page: 5 })) void _;
    await expect(cf.zones.get({ zone_id: '0'.repeat(32) })).rejects.toThrow();
  } finally {
    await proxy.close();
    recorder.close();
    await ref.close();
  }
  const results = passiveResults({
    judge,
    clauses,
    mode: 'proxy',
    target: { name: 'reference', embedded: false },
    asOf,
    startedAt,
  });
  return { results, har };
}

/** What `edgecheck judge` makes of a recording. */
async function judgeHar(har: string): Promise<RunResults> {
  const judge = new PassiveJudge({ clauses, properties }, asOf);
  for await (const ex of readHar(har)) judge.observe(ex);
  return passiveResults({
    judge,
    clauses,
    mode: 'judge',
    target: { name: har, embedded: false },
    asOf,
    startedAt: new Date(),
  });
}

const verdicts = (r: RunResults) => Object.fromEntries(r.clauses.map((c) => [c.id, c.verdict]));
const failing = (r: RunResults) => r.clauses.filter((c) => c.verdict === 'fail').map((c) => c.id);

describe('the proxy judges the traffic of real clients, and judge a recording of it', () => {
  beforeAll(async () => {
    const areas = listAreas();
    const suites = await loadSuites(areas, areas);
    clauses = [...suites.clauses.values()];
    properties = suites.properties;
    dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-passive-'));
    haveTool(
      'aws',
      'the AWS CLI through edgecheck proxy (test/passive-proxy-judge.test.ts)',
      'apt-get install awscli',
    );
    haveTool(
      'rclone',
      'rclone through edgecheck proxy (test/passive-proxy-judge.test.ts)',
      'apt-get install rclone',
    );
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let clean: { results: RunResults; har: string };

  it('fault-free: every clause the clients exercise passes, with its count, and none fails', async () => {
    clean = await session('clean');
    expect(failing(clean.results)).toEqual([]);
    const v = verdicts(clean.results);
    for (const id of EXERCISED) expect(v[id], id).toBe('pass');
    expect(clean.results.mode).toBe('proxy');
    expect(clean.results.observed).toBeGreaterThan(15);
  }, 60_000);

  it('a HAR of the same traffic gives the same verdicts through judge, and holds no secret', async () => {
    const again = await judgeHar(clean.har);
    expect(verdicts(again)).toEqual(verdicts(clean.results));
    const text = readFileSync(clean.har, 'utf8');
    for (const secret of ['edgecheck-reference-token', 'edgecheck-reference-secret-access-key'])
      expect(text).not.toContain(secret);
    expect(text).not.toMatch(/Signature=[0-9a-f]{64}/);
  });

  for (const [fault, clause, also] of [
    ['s3-error-xmlns', 's3.xml.error-no-xmlns'],
    ['s3-multipart-etag-no-suffix', 's3.mpu.etag-format'],
    ['s3-head-bucket-region-missing', 's3.region.head-bucket-header'],
    ['s3-content-range-on-full', 's3.get.content-range-partial-only'],
    // A list without result_info is also a list envelope without it, which the list clauses judge.
    ['drop-result-info', 'mgmt.result-info.fields', ['mgmt.envelope.result-info', 'mgmt.dns.list']],
  ] as const) {
    it(`with the fault ${fault}, ${clause} fails with the exchange as evidence, and only it${also ? ` and ${also.join(', ')}` : ''}`, async () => {
      const { results, har } = await session(fault, [fault]);
      const expected = [clause, ...(also ?? [])].sort();
      expect(failing(results).sort()).toEqual(expected);
      const check = results.cases.flatMap((c) => c.checks).find((k) => k.verdict === 'fail');
      expect(check?.exchange?.response.status).toBeGreaterThan(0);
      expect(JSON.stringify(check?.exchange)).not.toContain('edgecheck-reference-token');
      const again = await judgeHar(har);
      expect(failing(again).sort()).toEqual(expected);
    }, 60_000);
  }
});

describe('edgecheck judge on bad input', () => {
  it('a missing file, or one that is not a HAR, is one line naming the file, exit 2', async () => {
    const d = mkdtempSync(path.join(tmpdir(), 'edgecheck-judge-'));
    try {
      const missing = await runMain(['judge', path.join(d, 'none.har')]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/^edgecheck: \S+none\.har: cannot read: /);
      writeFileSync(path.join(d, 'bad.har'), 'not json\nat all');
      const bad = await runMain(['judge', path.join(d, 'bad.har')]);
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).toMatch(/bad\.har: not JSON .*expected a HAR file/);
      writeFileSync(path.join(d, 'nolog.har'), '{"entries":[]}');
      expect((await runMain(['judge', path.join(d, 'nolog.har')])).stderr).toMatch(/no log\.entries array/);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('the proxy under clients that leave', () => {
  it('a client gone mid-answer or mid-upload cuts its exchange, which is not judged, and the proxy goes on', async () => {
    const endless = await startHostileTarget('endless');
    const ref = await startReference({ asOf });
    const observed: string[] = [];
    const proxy = await startProxy({
      upstream: { management: ref.urls.management, s3: endless.url },
      onExchange: (ex) => void observed.push(ex.request.target),
    });
    try {
      // Mid-answer: read 1 MiB of an endless body, then leave.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no answer through the proxy')), 10_000);
        const req = http.get(`${proxy.urls.s3}/bucket/endless`, (res) => {
          let got = 0;
          res.on('data', (d: Buffer) => {
            got += d.length;
            if (got > 1024 * 1024) {
              clearTimeout(timer);
              req.destroy();
              resolve();
            }
          });
        });
        req.on('error', () => undefined);
      });
      // Mid-upload: announce 64 MiB, send 1 MiB, leave.
      await new Promise<void>((resolve) => {
        const req = http.request(`${proxy.urls.s3}/bucket/upload`, {
          method: 'PUT',
          headers: { 'content-length': String(64 * 1024 * 1024) },
        });
        req.on('error', () => resolve());
        req.write(Buffer.alloc(1024 * 1024), () => {
          req.destroy();
          resolve();
        });
      });
      // The endless body stops being pumped once its client left: the proxy does not read on.
      await new Promise((r) => setTimeout(r, 300));
      const before = endless.bytesSent;
      await new Promise((r) => setTimeout(r, 500));
      expect(endless.bytesSent - before).toBeLessThan(1024 * 1024);
      expect(observed).toEqual([]);
      // The same proxy still serves the other door.
      const res = await fetch(`${proxy.urls.management}/client/v4/zones`, {
        headers: { authorization: `Bearer ${ref.context.credentials.token}` },
      });
      expect(res.status).toBe(200);
      await res.text();
      expect(observed).toEqual(['/client/v4/zones']);
    } finally {
      await proxy.close();
      await endless.close();
      await ref.close();
    }
  }, 60_000);
});

describe('the proxy keeps every request on its target', () => {
  it('a path starting with // reaches the target as that path, not another host', async () => {
    const seen: string[] = [];
    const target = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(404, { 'content-type': 'application/xml' });
      res.end('<Error><Code>NoSuchKey</Code></Error>');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const port = (target.address() as { port: number }).port;
    const proxy = await startProxy({
      upstream: { s3: `http://127.0.0.1:${port}` },
      onExchange: () => undefined,
    });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const url = new URL(proxy.urls.s3!);
        http
          .get({ host: url.hostname, port: url.port, path: '//elsewhere.invalid/x' }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on('error', reject);
      });
      expect(status).toBe(404);
      expect(seen).toEqual(['//elsewhere.invalid/x']);
    } finally {
      await proxy.close();
      await new Promise((r) => target.close(r));
    }
  });
});
