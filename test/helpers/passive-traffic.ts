import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';

const KEYS = ['a/1', 'a/2', 'b', 'c', 'd/e/f', 'g', 'h i', 'é'];
const OTHER = `"${'0'.repeat(32)}"`;

/** An AWS SDK client as an application configures one for a path-style endpoint: no retries. */
export function sdkClient(
  endpoint: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
  region = 'auto',
): S3Client {
  const { accessKeyId, secretAccessKey } = credentials;
  return new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts: 1,
  });
}

/** Answers that a fault or a foreign server turns into errors are part of the traffic, not the caller's concern. */
export const settle = <T>(p: Promise<T>) => p.catch(() => undefined);

/**
 * What an application of the AWS SDK sends that the S3 observers can judge: keys written, listed in
 * V2 pages by their tokens and with prefix, delimiter, start-after and encoding-type, in V1 pages by
 * marker; ranges of every form; conditional reads with lists, weak tags and the wildcard; a
 * multipart upload completed with its parts listed in reverse.
 */
export async function s3Traffic(s3: S3Client, Bucket: string): Promise<void> {
  await s3.send(new CreateBucketCommand({ Bucket }));
  for (const Key of KEYS) await s3.send(new PutObjectCommand({ Bucket, Key, Body: `body of ${Key}` }));

  // Listings: V2 pages followed by their tokens, then prefix, delimiter, start-after, encoding.
  let token: string | undefined;
  for (let n = 0; n < 10; n++) {
    const page = await s3.send(new ListObjectsV2Command({ Bucket, MaxKeys: 3, ContinuationToken: token }));
    token = page.NextContinuationToken;
    if (!token) break;
  }
  for (const params of [
    { Prefix: 'a/' },
    { Delimiter: '/' },
    { StartAfter: 'b' },
    { EncodingType: 'url' as const, Delimiter: '/' },
    // Every echo needs encoding: Prefix é, Delimiter a space, StartAfter 'h i'.
    { EncodingType: 'url' as const, Prefix: 'é', Delimiter: ' ', StartAfter: 'h i' },
  ]) {
    await settle(s3.send(new ListObjectsV2Command({ Bucket, ...params })));
  }
  // V2 pages of one entry, by their tokens: start-after inside a common prefix; and, in a bucket of
  // their own (no marker walks them), keys either side of U+FFFF.
  const sorted = `${Bucket}-utf8`;
  await s3.send(new CreateBucketCommand({ Bucket: sorted }));
  for (const Key of ['u/\uE000', 'u/\u{10000}'])
    await s3.send(new PutObjectCommand({ Bucket: sorted, Key, Body: 'u' }));
  for (const params of [
    { Bucket, StartAfter: 'a/1', Delimiter: '/' },
    { Bucket: sorted, Prefix: 'u/' },
  ]) {
    let next: string | undefined;
    for (let n = 0; n < 12; n++) {
      const page = await settle(
        s3.send(new ListObjectsV2Command({ MaxKeys: 1, ContinuationToken: next, ...params })),
      );
      next = page?.NextContinuationToken;
      if (!next) break;
    }
  }
  // V1 pages, by NextMarker or the last key.
  let marker: string | undefined;
  for (let n = 0; n < 10; n++) {
    const page = await s3.send(new ListObjectsCommand({ Bucket, MaxKeys: 3, Marker: marker }));
    marker = page.NextMarker ?? page.Contents?.at(-1)?.Key;
    if (!page.IsTruncated || !marker) break;
  }
  await s3.send(new ListObjectsCommand({ Bucket, Marker: 'b' }));
  // Encoded, a Marker and a NextMarker that need it: after 'g ', one key a page, 'h i' first.
  await settle(
    s3.send(
      new ListObjectsCommand({ Bucket, EncodingType: 'url', Marker: 'g ', MaxKeys: 1, Delimiter: '/' }),
    ),
  );
  await s3.send(new ListObjectsCommand({ Bucket, Prefix: 'd/', Delimiter: '/' }));

  // Ranges of a 100-byte object: closed, open, suffix, over-long, past the end, reversed and not a number.
  const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'r', Body: Buffer.alloc(100, 7) }));
  for (const Range of [
    'bytes=2-5',
    'bytes=0-0',
    'bytes=10-',
    'bytes=-7',
    'bytes=90-500',
    'bytes=200-300',
    'bytes=5-2',
    'bytes=x-3',
  ]) {
    const got = await settle(s3.send(new GetObjectCommand({ Bucket, Key: 'r', Range })));
    await got?.Body?.transformToByteArray();
  }

  // Conditionals against the object's ETag: lists, weak tags, the wildcard.
  const etag = put.ETag!;
  await settle(s3.send(new GetObjectCommand({ Bucket, Key: 'r', IfNoneMatch: `${OTHER}, ${etag}` })));
  await settle(s3.send(new HeadObjectCommand({ Bucket, Key: 'r', IfMatch: `${OTHER}, ${etag}` })));
  await settle(s3.send(new HeadObjectCommand({ Bucket, Key: 'r', IfNoneMatch: `${OTHER}, W/${etag}` })));
  await settle(s3.send(new HeadObjectCommand({ Bucket, Key: 'r', IfNoneMatch: '*' })));
  await settle(s3.send(new HeadObjectCommand({ Bucket, Key: 'r', IfMatch: '*' })));

  // A multipart upload of two parts, completed with the parts listed in reverse.
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'm' }));
  const parts = [];
  for (const [i, body] of [Buffer.alloc(5 * 1024 * 1024, 1), Buffer.from('last')].entries()) {
    const part = await s3.send(
      new UploadPartCommand({ Bucket, Key: 'm', UploadId, PartNumber: i + 1, Body: body }),
    );
    parts.push({ PartNumber: i + 1, ETag: part.ETag });
  }
  await settle(
    s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key: 'm',
        UploadId,
        MultipartUpload: { Parts: parts.reverse() },
      }),
    ),
  );
}
