import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceHandle, startReference } from '../reference/server.ts';
import { runEdgecheck, today } from '../runner/api.ts';
import type { RunResults } from '../runner/model/results.ts';
import type { Target } from '../runner/model/target.ts';
import { type ForeignHabits, type ForeignProxy, startForeignProxy } from './helpers/foreign-proxy.ts';
import { haveTool } from './helpers/not-run.ts';

/*
 * Verdict classes that implementations nobody here wrote exposed, each held to a target with that
 * implementation's habit (moto's, or a busy service's) in front of the reference, which is right
 * about everything else: a habit the spec allows changes no verdict, and one it forbids fails the
 * clause it breaks, with the exchange that shows it.
 */

let reference: ReferenceHandle;
const proxies: ForeignProxy[] = [];

beforeAll(async () => {
  reference = await startReference({ asOf: today() });
}, 30_000);

afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await reference?.close();
});

async function runThrough(
  habits: ForeignHabits,
  select: { clauses?: string[]; cases?: string[] },
  region = 'auto',
): Promise<{ proxy: ForeignProxy; results: RunResults }> {
  const proxy = await startForeignProxy(reference.urls.s3, habits);
  proxies.push(proxy);
  const s3 = reference.target().s3!;
  const target: Target = { name: 'foreign', features: [], s3: { ...s3, endpoint: proxy.url, region } };
  // Retries wait at most 100 ms here: a busy target's pauses would only lengthen the test.
  const results = await runEdgecheck({
    suites: ['s3'],
    target,
    seed: 20261125,
    maxRetryWaitMs: 100,
    ...select,
  });
  return { proxy, results };
}

const verdicts = (r: RunResults) => Object.fromEntries(r.clauses.map((c) => [c.id, c.verdict]));

describe('teardown: what the run completed or deleted is gone, not left behind', () => {
  const MULTIPART = [
    's3.mpu.*',
    's3.checksum.multipart-*',
    's3.copy.upload-part-copy',
    's3.object.multipart-headers',
  ];

  it('an abort of a completed upload answering 404 NoSuchUpload leaves nothing listed', async () => {
    const { proxy, results } = await runThrough({ completedAbort404: true }, { clauses: MULTIPART });
    expect(proxy.counts.abort404).toBeGreaterThan(0);
    expect(results.leftovers).toEqual([]);
    expect(results.clauses.filter((c) => c.verdict !== 'pass' && c.verdict !== 'untested')).toEqual([]);
    expect(results.exitCode).toBe(0);
  }, 60_000);

  it('an abort answering 404 for an upload that is still there is listed: the read-back finds it', async () => {
    // The upload stays open to the end; the bucket's teardown aborts it through the 404.
    const { proxy, results } = await runThrough({ abortAlways404: true }, { cases: ['s3.mpu.list-parts'] });
    expect(proxy.counts.abort404).toBeGreaterThan(0);
    expect(results.leftovers.map((l) => l.what)).toEqual([expect.stringMatching(/^bucket ec-/)]);
    expect(results.exitCode).toBe(1);
  }, 60_000);

  it('a bucket the target removed itself is gone: NoSuchBucket, confirmed by HeadBucket, leaves nothing listed', async () => {
    const { proxy, results } = await runThrough(
      { vanishOnDelete: true },
      { cases: ['s3.object.delete-missing'] },
    );
    expect(proxy.counts.vanished).toBeGreaterThan(0);
    expect(results.leftovers).toEqual([]);
  }, 60_000);

  it.skipIf(
    !haveTool(
      'aws',
      'the printed clean-up command (test/runner-foreign-habits.test.ts)',
      'apt-get install awscli',
    ),
  )(
    'the clean-up command printed for a bucket left with an open upload removes it, run by the AWS CLI',
    async () => {
      // Teardown's aborts answer 404 and leave the upload; a person's AWS CLI is answered as usual.
      const { proxy, results } = await runThrough(
        { abortAlways404: true, spare: /^aws-cli\// },
        { cases: ['s3.mpu.list-parts'] },
      );
      const [left] = results.leftovers;
      expect(left?.undo).toMatch(/abort-multipart-upload .* aws s3 rb s3:\/\/ec-/);
      const s3 = reference.target().s3!;
      const home = mkdtempSync(path.join(tmpdir(), 'edgecheck-undo-'));
      try {
        await promisify(execFile)('bash', ['-c', left.undo!], {
          timeout: 120_000,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: home,
            AWS_ACCESS_KEY_ID: s3.accessKeyId,
            AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
            AWS_EC2_METADATA_DISABLED: 'true',
            AWS_CONFIG_FILE: path.join(home, 'none'),
            AWS_SHARED_CREDENTIALS_FILE: path.join(home, 'none'),
          },
        });
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
      const bucket = /s3:\/\/(\S+)/.exec(left.undo!)![1];
      const client = new S3Client({
        endpoint: proxy.url,
        region: 'auto',
        forcePathStyle: true,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      });
      const status = await client.send(new HeadBucketCommand({ Bucket: bucket })).then(
        () => 200,
        (e: { $metadata?: { httpStatusCode?: number } }) => e.$metadata?.httpStatusCode,
      );
      client.destroy();
      expect(status).toBe(404);
    },
    180_000,
  );
});

describe('setup refused: blocked, except for the clause the refusal disproves', () => {
  let proxy: ForeignProxy;
  let results: RunResults;
  beforeAll(async () => {
    ({ proxy, results } = await runThrough(
      { refuseAutoCreate: true },
      { clauses: ['s3.region.*', 's3.list.*', 's3.cond.*'] },
    ));
  }, 60_000);

  it('s3.region.auto fails, citing the refused CreateBucket', () => {
    expect(proxy.counts.refusedAutoCreate).toBeGreaterThan(0);
    const auto = results.cases.flatMap((c) => c.checks).filter((k) => k.clauses.includes('s3.region.auto'));
    expect(auto.map((k) => k.verdict)).toContain('fail');
    const failed = auto.find((k) => k.verdict === 'fail')!;
    expect(failed.message).toMatch(
      /CreateBucket signed for region "auto".*IllegalLocationConstraintException/,
    );
  });

  it('nothing else is failed or errored for want of a bucket: it is blocked', () => {
    // The region clauses are about CreateBucket itself: a refused one is their evidence.
    const judged = results.cases
      .flatMap((c) => c.checks)
      .filter((k) => !k.clauses.some((id) => id.startsWith('s3.region.')));
    const unjust = judged
      .filter((k) => k.verdict === 'fail' || k.verdict === 'error')
      .map((k) => `${k.caseId}: ${k.message}`);
    expect(unjust).toEqual([]);
    expect(judged.filter((k) => k.verdict === 'blocked').length).toBeGreaterThan(10);
  });

  it('the run says in one line that the target refuses region auto and that --region checks the rest', () => {
    expect(results.advice).toHaveLength(1);
    expect(results.advice![0]).toMatch(
      /refuses CreateBucket signed for region auto .*IllegalLocationConstraintException.*--region/,
    );
  });

  it('signed for the region such a target takes, the same clauses pass but s3.region.auto', async () => {
    const again = await runThrough(
      { refuseAutoCreate: true },
      { clauses: ['s3.region.*', 's3.list.*', 's3.cond.*'] },
      'us-east-1',
    );
    const bad = again.results.clauses
      .filter((c) => c.verdict === 'fail' || c.verdict === 'error')
      .map((c) => c.id);
    expect(bad).toEqual(['s3.region.auto']);
    expect(again.results.advice ?? []).toEqual([]);
  }, 60_000);
});

describe('each check needs only what it needs: a refused step blocks only the steps that depend on it', () => {
  it('HEAD of a missing bucket answering 403 fails its own check; the reads after it are judged on their answers', async () => {
    const { results } = await runThrough(
      { missingBucketHead403: true },
      { cases: ['s3.errors.missing-bucket'] },
    );
    const checks = results.cases.flatMap((c) => c.checks).map((k) => [k.step, k.clauses.join(), k.verdict]);
    expect(checks).toEqual([
      ['missing-bucket-head', 's3.error.missing-bucket-404', 'fail'],
      ['missing-bucket-sdk', 's3.error.missing-bucket-404', 'pass'],
      ['missing-bucket-list', 's3.error.missing-bucket-404', 'pass'],
      ['missing-bucket-list', 's3.xml.error-no-xmlns', 'pass'],
    ]);
    expect(results.clauses.find((c) => c.id === 's3.xml.error-no-xmlns')?.verdict).toBe('pass');
  }, 60_000);
});

describe('a check exactly as wide as its clause', () => {
  it('part ETags answered unquoted by UploadPartCopy fail no clause: how they are quoted is no clause of copying a range', async () => {
    const { proxy, results } = await runThrough({ unquotePartCopyETag: true }, { clauses: ['s3.copy.*'] });
    expect(proxy.counts.rewritten).toBeGreaterThan(0);
    expect(
      results.clauses.filter((c) => c.verdict === 'fail' || c.verdict === 'error').map((c) => c.id),
    ).toEqual([]);
  }, 60_000);

  it('listing echoes and NextMarker left unencoded under encoding-type url fail s3.list.encoding-type alone', async () => {
    const { proxy, results } = await runThrough({ unencodedListEchoes: true }, { clauses: ['s3.list.*'] });
    expect(proxy.counts.rewritten).toBeGreaterThan(0);
    expect(
      results.clauses.filter((c) => c.verdict === 'fail' || c.verdict === 'error').map((c) => c.id),
    ).toEqual(['s3.list.encoding-type']);
  }, 120_000);
});

describe('evidence: a failure cites the exchange that shows the departure', () => {
  it('UploadPart and Complete of an aborted upload answering 500 fail s3.error.no-such-upload, each citing that 500, and nothing else', async () => {
    const { proxy, results } = await runThrough(
      { abortedUpload500: true },
      { clauses: ['s3.error.*', 's3.mpu.*'] },
    );
    expect(proxy.counts.aborted500).toBeGreaterThan(0);
    const failing = results.clauses
      .filter((c) => c.verdict === 'fail' || c.verdict === 'error')
      .map((c) => c.id);
    expect(failing).toEqual(['s3.error.no-such-upload']);
    const cited = results.cases
      .flatMap((c) => c.checks)
      .filter((k) => k.verdict === 'fail' && k.clauses.includes('s3.error.no-such-upload'));
    expect(cited.length).toBeGreaterThan(0);
    for (const k of cited) {
      // Each failure shows the answer that departs, not an exchange the target got right.
      expect(k.exchange?.response.status, k.message).toBe(500);
      expect(k.exchange?.request?.url ?? k.exchange?.command ?? '', k.message).toMatch(
        /uploadId|UploadPart|CompleteMultipartUpload/,
      );
    }
  }, 60_000);
});

describe('a throttled answer is never judged as the target’s: every request of every suite is retried', () => {
  const clauses = ['s3.region.*', 's3.list.*', 's3.cond.*', 's3.presign.*', 's3.mpu.*'];
  let clean: RunResults;
  beforeAll(async () => {
    ({ results: clean } = await runThrough({}, { clauses }));
  }, 60_000);
  /** Each verdict that differs from the clean run's, with the messages of its checks. */
  const changed = (r: RunResults) =>
    r.clauses
      .filter((c) => c.verdict !== verdicts(clean)[c.id])
      .map((c) => {
        const why = r.cases
          .flatMap((k) => k.checks)
          .filter((k) => k.clauses.includes(c.id) && k.verdict !== 'pass')
          .map((k) => k.message);
        return `${c.id}: ${c.verdict} (${why.join('; ')})`;
      });

  it('a 429 with Retry-After: 0 on every fifth request changes no verdict and leaves nothing', async () => {
    const busy = await runThrough({ throttleEvery: 5, throttleStatus: 429 }, { clauses });
    expect(busy.proxy.counts.throttled).toBeGreaterThan(20);
    expect(busy.results.requests?.retried).toBeGreaterThan(0);
    expect(changed(busy.results)).toEqual([]);
    expect(busy.results.leftovers).toEqual([]);
  }, 120_000);

  it('a 503 on every fifth request fails nothing: a POST it cuts, which is not retried, is an error', async () => {
    const busy = await runThrough({ throttleEvery: 5, throttleStatus: 503 }, { clauses });
    expect(busy.proxy.counts.throttled).toBeGreaterThan(20);
    const now = verdicts(busy.results);
    expect(changed(busy.results).filter((line) => now[line.split(':')[0]] === 'fail')).toEqual([]);
    expect(changed(busy.results).every((line) => /^\S+: (error|blocked) /.test(line))).toBe(true);
  }, 120_000);
});
