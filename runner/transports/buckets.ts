import type { S3Client } from '@aws-sdk/client-s3';
import type { Agent } from 'undici';
import { runPrefix } from '../model/run-id.ts';
import type { S3Target } from '../model/target.ts';
import { bucketRefused } from '../results/advice.ts';
import { TargetBlocked, TargetError } from '../util/errors.ts';
import { type SendOptions, sendHttp } from './http.ts';
import { buildS3Request } from './s3-raw.ts';
import { retryingClient, s3Sdk } from './s3-sdk.ts';
import type { Reservation, Traffic } from './traffic.ts';

/** A bucket name from the run id: lower case, at most 63 characters, recognisable as edgecheck's. */
export function bucketName(runId: string, caseSlug: string, label: string): string {
  const clean = label.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  return `${runPrefix(runId)}-${caseSlug}-${clean}`.slice(0, 63).replace(/-+$/, '');
}

/**
 * A plain signed PUT with no body: the fewest assumptions about the target. (The SDK would add a
 * CreateBucketConfiguration document for any region but us-east-1, so a target that mishandles
 * XML bodies would block every case instead of failing the one clause about XML.)
 */
export async function createBucket(
  agent: Agent,
  target: S3Target,
  name: string,
  opts: SendOptions,
): Promise<void> {
  const req = await buildS3Request(target, { method: 'PUT', bucket: name });
  const res = await sendHttp(agent, req, opts);
  if (res.status >= 300) {
    const code = /<Code>([^<]*)<\/Code>/.exec(res.text())?.[1];
    // A refusal is a considered answer: what needs the bucket is blocked, not unjudged.
    throw new TargetBlocked(bucketRefused(name, res.status, code));
  }
}

/** The command that removes a bucket by hand, should teardown fail (credentials from the environment). */
export function removeBucketCommand(target: S3Target, name: string): string {
  return `aws s3 rb s3://${name} --force --endpoint-url ${target.endpoint} --region ${target.region}`;
}

/**
 * Empties (objects, then unfinished uploads) and deletes a bucket, then confirms it is gone. A
 * throttled answer is tried again as `traffic` allows: a busy target is no reason to leave a bucket.
 */
export async function destroyBucket(
  client: S3Client,
  name: string,
  signal?: AbortSignal,
  traffic?: Traffic,
  reservation?: Reservation,
): Promise<void> {
  const opts = { abortSignal: signal };
  const {
    AbortMultipartUploadCommand,
    DeleteBucketCommand,
    DeleteObjectsCommand,
    HeadBucketCommand,
    ListMultipartUploadsCommand,
    ListObjectsV2Command,
  } = s3Sdk();
  const s3 = retryingClient(client, undefined, traffic, signal, reservation, true);
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: name, ContinuationToken: token }), opts);
    const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (keys.length) {
      const res = await s3.send(
        new DeleteObjectsCommand({ Bucket: name, Delete: { Objects: keys, Quiet: true } }),
        opts,
      );
      if (res.Errors?.length) {
        const e = res.Errors[0];
        throw new TargetError(
          `could not delete ${res.Errors.length} objects of ${name}: ${e.Key}: ${e.Code}`,
        );
      }
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  let keyMarker: string | undefined;
  let uploadMarker: string | undefined;
  do {
    // A target without ListMultipartUploads (501) cannot say what is open: DeleteBucket, and the
    // HeadBucket after it, then tell whether anything kept the bucket.
    const page = await s3
      .send(
        new ListMultipartUploadsCommand({ Bucket: name, KeyMarker: keyMarker, UploadIdMarker: uploadMarker }),
        opts,
      )
      .catch((err: { $metadata?: { httpStatusCode?: number } }) => {
        if (err.$metadata?.httpStatusCode === 501) return undefined;
        throw err;
      });
    if (!page) break;
    for (const u of page.Uploads ?? []) {
      await s3.send(
        new AbortMultipartUploadCommand({ Bucket: name, Key: u.Key!, UploadId: u.UploadId! }),
        opts,
      );
    }
    keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
    uploadMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
  } while (keyMarker);
  await s3.send(new DeleteBucketCommand({ Bucket: name }), opts);
  // A delete is done only when the bucket is gone.
  const still = await s3.send(new HeadBucketCommand({ Bucket: name }), opts).then(
    () => true,
    (err: { $metadata?: { httpStatusCode?: number } }) => {
      if (err.$metadata?.httpStatusCode === 404) return false;
      throw err;
    },
  );
  if (still) throw new TargetError(`bucket ${name} still exists after DeleteBucket`);
}
