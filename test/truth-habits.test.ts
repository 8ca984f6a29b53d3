import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceHandle, startReference } from '../reference/server.ts';
import { today } from '../runner/api.ts';
import type { S3Target } from '../runner/model/target.ts';
import { ROOT } from '../runner/util/paths.ts';
import { haveBotocore, haveTool } from './helpers/not-run.ts';

/*
 * The independent judge is held to the habits of targets nobody here tuned against: each runs
 * test/truth/front.py in front of the reference with one habit a production target showed, and the
 * probes that once judged it wrong must now judge it right: an error answer without a code is no
 * MalformedXML, a 204 from a bucket that vanished is no support, an unquoted part ETag fails no range
 * clause, an invalid input accepted decides a refusal clause whatever its twin got, and an encoded
 * listing echoes every element encoded.
 */

const TRUTH = path.join(ROOT, 'test', 'truth', 'truth.py');
const FRONT = path.join(ROOT, 'test', 'truth', 'front.py');
const run = promisify(execFile);

const HAVE_PYTHON = haveBotocore('the probes on targets with foreign habits (test/truth-habits.test.ts)');

interface Probed {
  clause: string;
  outcome: 'holds' | 'departs' | 'unjudgeable' | 'broken';
  reason: string;
  left: { bucket: string; remove: string }[];
}

interface Front {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * Fronts at once, each with its probes: the tests run concurrently. Each probe makes buckets of
 * random names, so probes behind different fronts never meet; most of a test's time is Python
 * starting and waiting on answers, which overlaps well, and three at once leave the other test
 * files their share of the cores.
 */
const fronts = pLimit(3);

/** Waits for a front's slot; the function it resolves to gives the slot back. */
const frontSlot = () =>
  new Promise<() => void>((acquired) => {
    fronts(() => new Promise<void>((release) => acquired(release)));
  });

/** front.py with one habit before `s3`, on 127.0.0.1, holding a slot until it is closed. */
async function startFront(s3: S3Target, habit: string): Promise<Front> {
  const release = await frontSlot();
  try {
    const front = await spawnFront(s3, habit);
    return { endpoint: front.endpoint, close: () => front.close().finally(release) };
  } catch (err) {
    release();
    throw err;
  }
}

/** front.py itself; it stops when its stdin closes. */
async function spawnFront(s3: S3Target, habit: string): Promise<Front> {
  const child: ChildProcess = spawn(
    'python3',
    [
      FRONT,
      '--upstream',
      s3.endpoint,
      '--key',
      s3.accessKeyId,
      '--secret',
      s3.secretAccessKey,
      '--region',
      s3.region,
      '--habit',
      habit,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr?.on('data', (d) => {
    err = (err + String(d)).slice(-2000);
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`front.py exited with ${code}: ${err}`)));
    child.stdout?.once('data', (d) => resolve(JSON.parse(String(d)).port));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin?.end();
      await exited;
    },
  };
}

// Without it the clean-up command is still checked as printed, and its run is listed as not run.
const HAVE_AWS_CLI = haveTool(
  'aws',
  'the printed clean-up command run by the AWS CLI (test/truth-habits.test.ts)',
  'apt-get install awscli',
);

async function probe(s3: S3Target, endpoint: string, clauses: string[]): Promise<Map<string, Probed>> {
  const { stdout } = await run(
    'python3',
    [
      TRUTH,
      '--endpoint',
      endpoint,
      '--region',
      s3.region,
      '--key',
      s3.accessKeyId,
      '--secret',
      s3.secretAccessKey,
      '--json',
      ...clauses,
    ],
    { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
  );
  const probed = stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Probed);
  return new Map(probed.map((p) => [p.clause, p]));
}

/** Each clause's outcome behind the front with `habit`, with its reason. */
async function behind(
  s3: S3Target,
  habit: string,
  clauses: string[],
): Promise<Record<string, { outcome: string; reason: string }>> {
  const front = await startFront(s3, habit);
  try {
    const probed = await probe(s3, front.endpoint, clauses);
    return Object.fromEntries(
      clauses.map((c) => [
        c,
        { outcome: probed.get(c)?.outcome ?? 'missing', reason: probed.get(c)?.reason ?? '' },
      ]),
    );
  } finally {
    await front.close();
  }
}

/** The tests run at once, as many as there are fronts (above). */
const probesAtOnce = describe.skipIf(!HAVE_PYTHON).concurrent;

probesAtOnce('the probes on targets with habits nobody here tuned against', () => {
  let reference: ReferenceHandle;
  let s3: S3Target;

  beforeAll(async () => {
    reference = await startReference({ asOf: today() });
    s3 = reference.target().s3!;
  }, 60_000);

  afterAll(async () => {
    await reference?.close();
  });

  it('an error answered with an empty body is no MalformedXML, NoSuchKey or NoSuchBucket, and is shown as sent', async () => {
    const got = await behind(s3, 'empty-error-bodies', [
      's3.error.malformed-xml',
      's3.error.no-such-key',
      's3.error.missing-bucket-404',
    ]);
    for (const [clause, p] of Object.entries(got))
      expect(p.outcome, `${clause}: ${p.reason}`).toBe('departs');
    expect(got['s3.error.malformed-xml'].reason).toContain('400 (empty body)');
  }, 120_000);

  it('an error without a message keeps its code, is shown as sent, and fails only the clause that asks for a message', async () => {
    const got = await behind(s3, 'no-error-messages', ['s3.error.no-such-key', 's3.list.invalid-cursor']);
    expect(got['s3.error.no-such-key']).toEqual({
      outcome: 'holds',
      reason: expect.stringContaining('404 NoSuchKey (no message)'),
    });
    expect(got['s3.list.invalid-cursor'].outcome).toBe('departs');
  }, 120_000);

  it('a 204 from a bucket the subresource DELETE removed is no support: the bucket is read back', async () => {
    const got = await behind(s3, 'subresource-delete-deletes-bucket', [
      's3.encryption.delete',
      's3.lifecycle.rules',
    ]);
    expect(got['s3.encryption.delete']).toEqual({
      outcome: 'departs',
      reason: expect.stringContaining('carried out as DeleteBucket'),
    });
    expect(got['s3.lifecycle.rules']).toEqual({
      outcome: 'departs',
      reason: expect.stringContaining('the bucket is gone afterwards'),
    });
  }, 120_000);

  it('an unquoted part ETag in CopyPartResult fails no range clause', async () => {
    const got = await behind(s3, 'unquoted-copy-part-etag', [
      's3.copy.upload-part-copy-range',
      's3.copy.upload-part-copy',
    ]);
    for (const [clause, p] of Object.entries(got)) expect(p.outcome, `${clause}: ${p.reason}`).toBe('holds');
    expect(got['s3.copy.upload-part-copy-range'].reason).toMatch(/part ETag '[0-9a-f]{32}'/);
  }, 120_000);

  it('an invalid input accepted departs even where its valid twin was refused', async () => {
    const got = await behind(s3, 'inverted-encryption', ['s3.encryption.put-other-rejected']);
    expect(got['s3.encryption.put-other-rejected']).toEqual({
      outcome: 'departs',
      reason: expect.stringContaining('aws:kms answered 200'),
    });
  }, 120_000);

  it('DeleteObject answering 200 and NoSuchKey is judged, not unjudgeable: its twin is any 2xx', async () => {
    const got = await behind(s3, 'delete-object-200', ['s3.object.delete-missing']);
    expect(got['s3.object.delete-missing']).toEqual({
      outcome: 'departs',
      reason: expect.stringContaining('404 NoSuchKey'),
    });
  }, 120_000);

  it('a target refusing every CompleteMultipartUpload has no part-size clause held: the refusal has no valid twin', async () => {
    const got = await behind(s3, 'complete-always-400', [
      's3.mpu.size-checked-at-complete',
      's3.mpu.unequal-parts-rejected',
    ]);
    for (const [clause, p] of Object.entries(got))
      expect(p.outcome, `${clause}: ${p.reason}`).toBe('unjudgeable');
    // ListMultipartUploads needs no Complete: the upload it refused is simply still in progress.
    const listed = await behind(s3, 'complete-always-400', ['s3.mpu.list-uploads']);
    expect(listed['s3.mpu.list-uploads'].outcome).toBe('holds');
  }, 120_000);

  it('a target answering 501 to every configuration PUT, supported or not, has no unsupported-operation clause held', async () => {
    const got = await behind(s3, 'configuration-puts-501', ['s3.unsupported.not-implemented']);
    expect(got['s3.unsupported.not-implemented']).toEqual({
      outcome: 'unjudgeable',
      reason: expect.stringContaining('PutBucketCors, which is supported, 501 NotImplemented too'),
    });
  }, 120_000);

  it('bare ETag headers fail only the ETag clause: conditions and listings are still judged by the tag', async () => {
    const got = await behind(s3, 'bare-etags', [
      's3.object.etag-md5',
      's3.cond.etag-list',
      's3.cond.weak-etag',
      's3.cond.wildcard',
      's3.cond.copy-source',
      's3.list.object-attributes',
    ]);
    expect(Object.fromEntries(Object.entries(got).map(([c, p]) => [c, p.outcome]))).toEqual({
      's3.object.etag-md5': 'departs',
      's3.cond.etag-list': 'holds',
      's3.cond.weak-etag': 'holds',
      's3.cond.wildcard': 'holds',
      's3.cond.copy-source': 'holds',
      's3.list.object-attributes': 'holds',
    });
  }, 120_000);

  it('a wildcard CORS rule refused while a named origin is stored departs the wildcard clause', async () => {
    const got = await behind(s3, 'no-wildcard-origins', ['s3.cors.wildcard', 's3.cors.preflight-s3']);
    expect(got['s3.cors.wildcard']).toEqual({
      outcome: 'departs',
      reason: expect.stringContaining('400 InvalidRequest for AllowedOrigin *'),
    });
    expect(got['s3.cors.preflight-s3'].outcome).toBe('holds');
  }, 120_000);

  it('a target that refuses a large part before reading it has answered: the refusal is judged, not a broken pipe', async () => {
    const got = await behind(s3, 'refuse-large-bodies-early', ['s3.mpu.size-checked-at-complete']);
    expect(got['s3.mpu.size-checked-at-complete']).toEqual({
      outcome: 'departs',
      reason: expect.stringContaining('400 EntityTooLarge: a part was refused at UploadPart'),
    });
  }, 120_000);

  it('a target that throttles now and then changes no outcome: the probes send the request again', async () => {
    const clauses = [
      's3.error.malformed-xml',
      's3.error.no-such-key',
      's3.put.conditional-412',
      's3.mpu.etag-quotes-ignored',
      's3.list.pagination',
      's3.cors.preflight-s3',
    ];
    const got = await behind(s3, 'throttle-every-third', clauses);
    for (const [clause, p] of Object.entries(got)) expect(p.outcome, `${clause}: ${p.reason}`).toBe('holds');
  }, 120_000);

  it('a target that is down departs nothing: every clause is unjudgeable', async () => {
    const got = await behind(s3, 'unavailable', ['s3.error.malformed-xml', 's3.region.head-bucket-header']);
    for (const [clause, p] of Object.entries(got))
      expect(p.outcome, `${clause}: ${p.reason}`).toBe('unjudgeable');
    expect(got['s3.region.head-bucket-header'].reason).toContain('the target is unavailable (503');
  }, 120_000);

  it('a bucket whose deletion was refused is reported left, with a command that removes it', async () => {
    const front = await startFront(s3, 'delete-bucket-refused-once');
    try {
      const probed = await probe(s3, front.endpoint, ['s3.region.head-bucket-header']);
      const left = probed.get('s3.region.head-bucket-header')?.left ?? [];
      expect(left).toHaveLength(1);
      expect(left[0].remove).toBe(
        `aws s3 rb s3://${left[0].bucket} --force --endpoint-url ${front.endpoint} --region ${s3.region}`,
      );
      if (!HAVE_AWS_CLI) return;
      // The printed command works against what is left: afterwards the bucket is gone.
      const env = {
        ...process.env,
        AWS_ACCESS_KEY_ID: s3.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
      };
      const [cmd, ...args] = left[0].remove.split(' ');
      await run(cmd, args, { env, timeout: 60_000 });
      const head = run(
        'aws',
        [
          's3api',
          'head-bucket',
          '--bucket',
          left[0].bucket,
          '--endpoint-url',
          s3.endpoint,
          '--region',
          s3.region,
        ],
        { env, timeout: 60_000 },
      );
      await expect(head).rejects.toMatchObject({ stderr: expect.stringMatching(/404|Not Found/) });
    } finally {
      await front.close();
    }
  }, 120_000);

  it('an abort carried out as DeleteObject answers 204 every time but aborts nothing: the upload is read back', async () => {
    const got = await behind(s3, 'abort-as-delete-object', ['s3.mpu.abort-repeatable']);
    expect(got['s3.mpu.abort-repeatable']).toEqual({
      outcome: 'departs',
      reason: expect.stringContaining('nothing was aborted'),
    });
  }, 120_000);

  it('a 206 without Content-Range departs only the Content-Range clause, not the range clauses', async () => {
    const got = await behind(s3, 'no-content-range', [
      's3.get.content-range-partial-only',
      's3.get.range-forms',
      's3.get.range-inclusive',
      's3.get.range-206',
    ]);
    expect(Object.fromEntries(Object.entries(got).map(([c, p]) => [c, p.outcome]))).toEqual({
      's3.get.content-range-partial-only': 'departs',
      's3.get.range-forms': 'holds',
      's3.get.range-inclusive': 'holds',
      's3.get.range-206': 'holds',
    });
  }, 120_000);

  it('a target refusing 0-byte parts departs zero-length-part, and ListParts is still judged', async () => {
    const got = await behind(s3, 'no-zero-length-parts', ['s3.mpu.zero-length-part', 's3.mpu.list-parts']);
    expect(got['s3.mpu.zero-length-part'].outcome).toBe('departs');
    expect(got['s3.mpu.list-parts'].outcome).toBe('holds');
  }, 120_000);

  it('a copy answered without its SSE header departs even when no AES256 upload can be made', async () => {
    const got = await behind(s3, 'sse-copy-dropped', ['s3.sse.copy']);
    expect(got['s3.sse.copy']).toEqual({
      outcome: 'departs',
      reason: expect.stringContaining('UploadPartCopy was not tried'),
    });
  }, 120_000);

  it('an encoded listing that echoes Prefix, StartAfter, Marker and NextMarker as stored departs, and only encoding-type', async () => {
    const got = await behind(s3, 'unencoded-list-echo', [
      's3.list.encoding-type',
      's3.list.prefix',
      's3.list.next-marker',
    ]);
    expect(got['s3.list.encoding-type'].outcome).toBe('departs');
    for (const element of ['Prefix', 'StartAfter', 'Marker', 'NextMarker', 'Delimiter'])
      expect(got['s3.list.encoding-type'].reason).toMatch(
        new RegExp(`ListObjects(V2)? ${element} '[^']*'( for '[^']*')? \\(not encoded\\)`),
      );
    expect(got['s3.list.prefix'].outcome).toBe('holds');
    expect(got['s3.list.next-marker'].outcome).toBe('holds');
  }, 120_000);
});
