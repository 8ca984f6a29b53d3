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

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The commands that remove a bucket by hand, should teardown fail (credentials from the
 * environment): open multipart uploads are aborted first, since `rb --force` leaves them, and a
 * bucket holding any cannot be deleted.
 */
export function removeBucketCommand(target: S3Target, name: string): string {
  const at = `--endpoint-url ${q(target.endpoint)} --region ${q(target.region)}`;
  return [
    `aws s3api list-multipart-uploads --bucket ${name} ${at} --query 'Uploads[].[Key,UploadId]' --output text`,
    `| while IFS=$'\\t' read -r k u; do [ -n "$u" ] && aws s3api abort-multipart-upload --bucket ${name} --key "$k" --upload-id "$u" ${at}; done;`,
    `aws s3 rb s3://${name} --force ${at}`,
  ].join(' ');
}

/** An SDK error's status, when the target answered. */
const statusOf = (err: unknown) =>
  (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/**
 * Empties (objects, then unfinished uploads) and deletes a bucket, then confirms it is gone. A
 * throttled answer is tried again as `traffic` allows: a busy target is no reason to leave a bucket.
 * A bucket the target removed itself is gone, not left: a 404 on the bucket, confirmed by
 * HeadBucket, ends the teardown.
 */
export async function destroyBucket(
  client: S3Client,
  name: string,
  signal?: AbortSignal,
  traffic?: Traffic,
  reservation?: Reservation,
): Promise<void> {
  const { DeleteBucketCommand, HeadBucketCommand } = s3Sdk();
  const s3 = retryingClient(client, undefined, traffic, signal, reservation, true);
  const opts = { abortSignal: signal };
  const gone = () =>
    s3.send(new HeadBucketCommand({ Bucket: name }), opts).then(
      () => false,
      (err: unknown) => {
        if (statusOf(err) === 404) return true;
        throw err;
      },
    );
  try {
    await emptyBucket(s3, name, opts);
    await s3.send(new DeleteBucketCommand({ Bucket: name }), opts);
  } catch (err) {
    if (statusOf(err) === 404 && (await gone())) return;
    throw err;
  }
  // A delete is done only when the bucket is gone.
  if (!(await gone())) throw new TargetError(`bucket ${name} still exists after DeleteBucket`);
}

/** Deletes every object of the bucket, then aborts its unfinished uploads. */
async function emptyBucket(s3: S3Client, name: string, opts: { abortSignal?: AbortSignal }): Promise<void> {
  const {
    AbortMultipartUploadCommand,
    DeleteObjectsCommand,
    ListMultipartUploadsCommand,
    ListObjectsV2Command,
  } = s3Sdk();
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
      .catch((err: unknown) => {
        if (statusOf(err) === 501) return undefined;
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
}
