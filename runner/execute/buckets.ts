import {
  AbortMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { Agent } from 'undici';
import type { S3Target } from '../model/target.ts';
import { sendHttp } from '../transports/http.ts';
import { buildS3Request } from '../transports/s3-raw.ts';
import { TargetError } from '../util/errors.ts';
import { runPrefix } from './run-id.ts';

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
  signal: AbortSignal,
): Promise<void> {
  const req = await buildS3Request(target, { method: 'PUT', bucket: name });
  const res = await sendHttp(agent, req, signal);
  if (res.status >= 300) {
    const code = /<Code>([^<]*)<\/Code>/.exec(res.text())?.[1];
    throw new TargetError(`creating bucket ${name}: status ${res.status}${code ? ` ${code}` : ''}`);
  }
}

/** Empties (objects, then unfinished uploads) and deletes a bucket. */
export async function destroyBucket(s3: S3Client, name: string): Promise<void> {
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: name, ContinuationToken: token }));
    const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (keys.length)
      await s3.send(new DeleteObjectsCommand({ Bucket: name, Delete: { Objects: keys, Quiet: true } }));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  let keyMarker: string | undefined;
  let uploadMarker: string | undefined;
  do {
    const page = await s3.send(
      new ListMultipartUploadsCommand({ Bucket: name, KeyMarker: keyMarker, UploadIdMarker: uploadMarker }),
    );
    for (const u of page.Uploads ?? []) {
      await s3.send(new AbortMultipartUploadCommand({ Bucket: name, Key: u.Key!, UploadId: u.UploadId! }));
    }
    keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
    uploadMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
  } while (keyMarker);
  await s3.send(new DeleteBucketCommand({ Bucket: name }));
}
