import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';

/** A bucket name from the run id: lower case, at most 63 characters, recognisable as edgecheck's. */
export function bucketName(runId: string, caseSlug: string, label: string): string {
  const clean = label.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  return `ec-${runId}-${caseSlug}-${clean}`.slice(0, 63).replace(/-+$/, '');
}

export async function createBucket(s3: S3Client, name: string, signal: AbortSignal): Promise<void> {
  await s3.send(new CreateBucketCommand({ Bucket: name }), { abortSignal: signal });
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
