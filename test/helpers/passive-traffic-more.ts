import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketEncryptionCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketAclCommand,
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketLocationCommand,
  GetBucketReplicationCommand,
  GetBucketTaggingCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  GetObjectLockConfigurationCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListPartsCommand,
  PutBucketCorsCommand,
  PutBucketEncryptionCommand,
  PutBucketLifecycleConfigurationCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { settle } from './passive-traffic.ts';

/** Headers added to one command's request as it is built: what the SDK has no parameter for. */
function withHeaders<C extends { middlewareStack: any }>(command: C, headers: Record<string, string>): C {
  command.middlewareStack.add(
    (next: any) => async (args: any) => {
      Object.assign(args.request.headers, headers);
      return next(args);
    },
    { step: 'build' },
  );
  return command;
}

const b64 = (alg: string, body: string) => createHash(alg).update(body).digest('base64');

/** Bucket configuration reads and writes an application's SDK makes: location, stand-ins, encryption. */
async function bucketTraffic(s3: S3Client, Bucket: string): Promise<void> {
  // The SDK signing for auto sends LocationConstraint auto, which a fault refuses: the rest goes on.
  await settle(s3.send(new CreateBucketCommand({ Bucket })));
  await settle(s3.send(new GetBucketLocationCommand({ Bucket })));
  // A page of ListBuckets asked by the headers SPEC gives it.
  await settle(
    s3.send(withHeaders(new ListBucketsCommand({}), { 'cf-max-keys': '1', 'cf-start-after': Bucket })),
  );
  for (const read of [
    new GetBucketAclCommand({ Bucket }),
    new GetBucketVersioningCommand({ Bucket }),
    new GetBucketLifecycleConfigurationCommand({ Bucket }),
    new GetBucketReplicationCommand({ Bucket }),
    new GetBucketTaggingCommand({ Bucket }),
    new GetObjectLockConfigurationCommand({ Bucket }),
  ])
    await settle(s3.send(read as any));
  const aes = { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' as const } }] };
  await settle(s3.send(new GetBucketEncryptionCommand({ Bucket })));
  await settle(s3.send(new PutBucketEncryptionCommand({ Bucket, ServerSideEncryptionConfiguration: aes })));
  await settle(s3.send(new DeleteBucketEncryptionCommand({ Bucket })));
  await settle(s3.send(new GetBucketEncryptionCommand({ Bucket })));
  await settle(
    s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket,
        LifecycleConfiguration: { Rules: [rule(0), rule(1)] },
      }),
    ),
  );
  await settle(s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket })));
  const auto = { LocationConstraint: 'auto' as any };
  await settle(
    s3.send(new CreateBucketCommand({ Bucket: `${Bucket}-auto`, CreateBucketConfiguration: auto })),
  );
}

/** A lifecycle rule without an ID, expiring objects under its own prefix. */
const rule = (i: number, Status = 'Enabled', Days = 30) => ({
  Status: Status as any,
  Filter: { Prefix: `r${i}/` },
  Expiration: { Days },
});

/** Object writes with encryption and checksums, copies, reads asking for checksums, deletes. */
async function objectTraffic(s3: S3Client, Bucket: string): Promise<void> {
  const Body = 'more traffic';
  await settle(s3.send(new PutObjectCommand({ Bucket, Key: 'sse', Body, ServerSideEncryption: 'AES256' })));
  await settle(
    s3.send(new PutObjectCommand({ Bucket, Key: 'sha256', Body, ChecksumSHA256: b64('sha256', Body) })),
  );
  await settle(s3.send(new PutObjectCommand({ Bucket, Key: 'sha1', Body, ChecksumSHA1: b64('sha1', Body) })));
  await settle(s3.send(new PutObjectCommand({ Bucket, Key: 'md5', Body, ContentMD5: b64('md5', Body) })));
  for (const ChecksumAlgorithm of ['SHA1', 'SHA256', 'CRC32'] as const)
    await settle(
      s3.send(new PutObjectCommand({ Bucket, Key: `sdk-${ChecksumAlgorithm}`, Body, ChecksumAlgorithm })),
    );
  for (const Range of ['bytes=5-2', 'bytes=x-3']) {
    const read = await settle(s3.send(new GetObjectCommand({ Bucket, Key: 'sse', Range })));
    await read?.Body?.transformToByteArray();
  }
  const overridden = {
    Bucket,
    Key: 'sse',
    ResponseContentType: 'text/x-seen',
    ResponseCacheControl: 'no-cache',
  };
  const read = await settle(s3.send(new GetObjectCommand(overridden)));
  await read?.Body?.transformToByteArray();
  const got = await settle(s3.send(new GetObjectCommand({ Bucket, Key: 'sha256', ChecksumMode: 'ENABLED' })));
  await got?.Body?.transformToByteArray();
  await settle(s3.send(new HeadObjectCommand({ Bucket, Key: 'sha256', ChecksumMode: 'ENABLED' })));
  await settle(
    s3.send(
      new CopyObjectCommand({
        Bucket,
        Key: 'copy',
        CopySource: `/${Bucket}/sse`,
        ServerSideEncryption: 'AES256',
      }),
    ),
  );
  await settle(
    s3.send(
      withHeaders(new PutObjectCommand({ Bucket: `${Bucket}-made`, Key: 'k', Body }), {
        'cf-create-bucket-if-missing': 'true',
      }),
    ),
  );
  await settle(s3.send(new DeleteObjectCommand({ Bucket, Key: 'never-there' })));
  await settle(s3.send(new DeleteObjectCommand({ Bucket, Key: 'md5' })));
  const Objects = [{ Key: 'sha1' }, { Key: ' spaced ' }, { Key: 'never-there' }];
  await settle(s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects } })));
  await settle(s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects, Quiet: true } })));
}

/** Multipart uploads: encrypted, listed, completed twice (once by bare ETags), aborted twice, used after abort. */
async function uploadTraffic(s3: S3Client, Bucket: string): Promise<void> {
  const Key = 'mpu';
  const created = await settle(
    s3.send(new CreateMultipartUploadCommand({ Bucket, Key, ServerSideEncryption: 'AES256' })),
  );
  const UploadId = created?.UploadId;
  if (!UploadId) return;
  const part = await settle(
    s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: 'one part' })),
  );
  await settle(s3.send(new ListPartsCommand({ Bucket, Key, UploadId })));
  const Parts = [{ PartNumber: 1, ETag: part?.ETag?.replace(/"/g, '') }];
  for (let i = 0; i < 2; i++)
    await settle(
      s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts } })),
    );
  const other = await settle(s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'abandoned' })));
  if (!other?.UploadId) return;
  const gone = { Bucket, Key: 'abandoned', UploadId: other.UploadId };
  for (let i = 0; i < 2; i++) await settle(s3.send(new AbortMultipartUploadCommand(gone)));
  await settle(s3.send(new UploadPartCommand({ ...gone, PartNumber: 1, Body: 'late' })));
  await settle(s3.send(new ListPartsCommand(gone)));
}

/**
 * Requests SPEC refuses, each as an application's SDK sends it: object lock, SSE-KMS, a KMS key
 * alone, a copy source without its slash, a bucket name in upper case, aws:kms as a bucket's
 * encryption, checksums and Content-MD5 that are not the body's, and a browser's preflight that
 * matches no CORS rule.
 */
async function refusedTraffic(s3: S3Client, Bucket: string, endpoint: string): Promise<void> {
  const Body = 'refused';
  await settle(
    s3.send(new CreateBucketCommand({ Bucket: `${Bucket}-locked`, ObjectLockEnabledForBucket: true })),
  );
  await settle(s3.send(new CreateBucketCommand({ Bucket: `${Bucket}-Upper` })));
  await settle(s3.send(new PutObjectCommand({ Bucket, Key: 'kms', Body, ServerSideEncryption: 'aws:kms' })));
  await settle(s3.send(new PutObjectCommand({ Bucket, Key: 'kms-key', Body, SSEKMSKeyId: 'edgecheck' })));
  await settle(s3.send(new CopyObjectCommand({ Bucket, Key: 'no-slash', CopySource: `${Bucket}/sse` })));
  const kms = { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms' as const } }] };
  await settle(s3.send(new PutBucketEncryptionCommand({ Bucket, ServerSideEncryptionConfiguration: kms })));
  await settle(
    s3.send(
      new PutObjectCommand({ Bucket, Key: 'bad-sha256', Body, ChecksumSHA256: b64('sha256', 'other') }),
    ),
  );
  await settle(
    s3.send(new PutObjectCommand({ Bucket, Key: 'bad-md5', Body, ContentMD5: b64('md5', 'other') })),
  );
  const west = { LocationConstraint: 'eu-west-1' as const };
  await settle(
    s3.send(new CreateBucketCommand({ Bucket: `${Bucket}-west`, CreateBucketConfiguration: west })),
  );
  for (const odd of [rule(0, 'enabled'), rule(1, 'Enabled', 0)])
    await settle(
      s3.send(
        new PutBucketLifecycleConfigurationCommand({ Bucket, LifecycleConfiguration: { Rules: [odd] } }),
      ),
    );
  const cors = { AllowedOrigins: ['https://app.example.com'], AllowedMethods: ['GET'] };
  await settle(s3.send(new PutBucketCorsCommand({ Bucket, CORSConfiguration: { CORSRules: [cors] } })));
  await fetch(`${endpoint}/${Bucket}/sse`, {
    method: 'OPTIONS',
    headers: { origin: 'https://elsewhere.example.net', 'access-control-request-method': 'GET' },
  }).then((r) => r.arrayBuffer());
}

/** The traffic of test/passive-s3-more.test.ts: what an application of the AWS SDK sends beyond s3Traffic. */
export async function moreS3Traffic(s3: S3Client, Bucket: string, endpoint: string): Promise<void> {
  await bucketTraffic(s3, Bucket);
  await objectTraffic(s3, Bucket);
  await uploadTraffic(s3, Bucket);
  await refusedTraffic(s3, Bucket, endpoint);
}
