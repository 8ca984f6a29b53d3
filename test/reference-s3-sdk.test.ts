import { createHash } from 'node:crypto';
import http from 'node:http';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteBucketCorsCommand,
  DeleteBucketEncryptionCommand,
  DeleteBucketLifecycleCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketAclCommand,
  GetBucketCorsCommand,
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketLocationCommand,
  GetBucketReplicationCommand,
  GetBucketTaggingCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  GetObjectLockConfigurationCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutBucketCorsCommand,
  PutBucketEncryptionCommand,
  PutBucketLifecycleConfigurationCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type S3Harness, sdkClient, startS3Harness } from './reference-s3-harness.ts';

// Multi-MiB bodies and a server per check: generous under a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const MiB = 1024 * 1024;
let h: S3Harness;
let s3: S3Client;

beforeAll(async () => {
  h = await startS3Harness();
  s3 = h.sdk;
});
afterAll(async () => {
  await h?.close();
});

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

async function errorOf(p: Promise<unknown>): Promise<S3ServiceException> {
  try {
    await p;
  } catch (err) {
    if (err instanceof S3ServiceException) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('buckets through @aws-sdk/client-s3', () => {
  it('creates a bucket with LocationConstraint auto and answers Location, region and location', async () => {
    const created = await s3.send(
      new CreateBucketCommand({
        Bucket: 'sdk-buckets',
        CreateBucketConfiguration: { LocationConstraint: 'auto' as never },
      }),
    );
    expect(created.Location).toBe('/sdk-buckets');
    const head = await s3.send(new HeadBucketCommand({ Bucket: 'sdk-buckets' }));
    expect(head.BucketRegion).toBe('auto');
    const loc = await s3.send(new GetBucketLocationCommand({ Bucket: 'sdk-buckets' }));
    expect(loc.LocationConstraint).toBe('auto');
    const list = await s3.send(new ListBucketsCommand({}));
    expect(list.Buckets?.map((b) => b.Name)).toContain('sdk-buckets');
  });

  it('rejects another LocationConstraint and object lock true, accepts object lock false', async () => {
    const bad = await errorOf(
      s3.send(
        new CreateBucketCommand({
          Bucket: 'sdk-eu',
          CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' },
        }),
      ),
    );
    expect(bad.name).toBe('InvalidLocationConstraint');
    const lock = await errorOf(
      s3.send(new CreateBucketCommand({ Bucket: 'sdk-lock', ObjectLockEnabledForBucket: true })),
    );
    expect(lock.name).toBe('NotImplemented');
    expect(lock.$metadata.httpStatusCode).toBe(501);
    await s3.send(new CreateBucketCommand({ Bucket: 'sdk-nolock', ObjectLockEnabledForBucket: false }));
  });

  it('answers the read-only stand-ins as for an empty bucket', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'sdk-standin' }));
    const acl = await s3.send(new GetBucketAclCommand({ Bucket: 'sdk-standin' }));
    expect(acl.Grants?.[0]?.Permission).toBe('FULL_CONTROL');
    const versioning = await s3.send(new GetBucketVersioningCommand({ Bucket: 'sdk-standin' }));
    expect(versioning.Status).toBeUndefined();
    const lifecycle = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'sdk-standin' }));
    expect(lifecycle.Rules ?? []).toEqual([]);
    const replication = await s3.send(new GetBucketReplicationCommand({ Bucket: 'sdk-standin' }));
    expect(replication.$metadata.httpStatusCode).toBe(200);
    const tagging = await s3.send(new GetBucketTaggingCommand({ Bucket: 'sdk-standin' }));
    expect(tagging.TagSet ?? []).toEqual([]);
    const lock = await s3.send(new GetObjectLockConfigurationCommand({ Bucket: 'sdk-standin' }));
    expect(lock.ObjectLockConfiguration?.ObjectLockEnabled).toBeUndefined();
  });

  it('supports bucket encryption with AES256 only', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'sdk-sse' }));
    const got = await s3.send(new GetBucketEncryptionCommand({ Bucket: 'sdk-sse' }));
    expect(
      got.ServerSideEncryptionConfiguration?.Rules?.[0]?.ApplyServerSideEncryptionByDefault?.SSEAlgorithm,
    ).toBe('AES256');
    await s3.send(
      new PutBucketEncryptionCommand({
        Bucket: 'sdk-sse',
        ServerSideEncryptionConfiguration: {
          Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
      }),
    );
    const kms = await errorOf(
      s3.send(
        new PutBucketEncryptionCommand({
          Bucket: 'sdk-sse',
          ServerSideEncryptionConfiguration: {
            Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms' } }],
          },
        }),
      ),
    );
    expect(kms.$metadata.httpStatusCode).toBe(400);
    await s3.send(new DeleteBucketEncryptionCommand({ Bucket: 'sdk-sse' }));
  });

  it('stores, returns and deletes lifecycle rules and CORS rules', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'sdk-rules' }));
    await s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: 'sdk-rules',
        LifecycleConfiguration: {
          Rules: [
            { ID: 'expire-logs', Status: 'Enabled', Filter: { Prefix: 'logs/' }, Expiration: { Days: 7 } },
          ],
        },
      }),
    );
    const lc = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'sdk-rules' }));
    expect(lc.Rules?.[0]).toMatchObject({ ID: 'expire-logs', Status: 'Enabled', Expiration: { Days: 7 } });
    await s3.send(new DeleteBucketLifecycleCommand({ Bucket: 'sdk-rules' }));
    expect(
      (await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'sdk-rules' }))).Rules ?? [],
    ).toEqual([]);

    await s3.send(
      new PutBucketCorsCommand({
        Bucket: 'sdk-rules',
        CORSConfiguration: {
          CORSRules: [
            {
              AllowedOrigins: ['https://app.example.com'],
              AllowedMethods: ['GET'],
              AllowedHeaders: ['X-Custom'],
            },
          ],
        },
      }),
    );
    const cors = await s3.send(new GetBucketCorsCommand({ Bucket: 'sdk-rules' }));
    expect(cors.CORSRules?.[0]?.AllowedOrigins).toEqual(['https://app.example.com']);
    const invalid = await errorOf(
      s3.send(
        new PutBucketCorsCommand({
          Bucket: 'sdk-rules',
          CORSConfiguration: { CORSRules: [{ AllowedOrigins: ['not an origin'], AllowedMethods: ['GET'] }] },
        }),
      ),
    );
    expect(invalid.$metadata.httpStatusCode).toBe(400);
    await s3.send(new DeleteBucketCorsCommand({ Bucket: 'sdk-rules' }));
    expect((await errorOf(s3.send(new GetBucketCorsCommand({ Bucket: 'sdk-rules' })))).name).toBe(
      'NoSuchCORSConfiguration',
    );
  });

  it('refuses to delete a non-empty bucket, then deletes it once empty', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'sdk-del' }));
    await s3.send(new PutObjectCommand({ Bucket: 'sdk-del', Key: 'k', Body: 'v' }));
    expect((await errorOf(s3.send(new DeleteBucketCommand({ Bucket: 'sdk-del' })))).name).toBe(
      'BucketNotEmpty',
    );
    await s3.send(new DeleteObjectCommand({ Bucket: 'sdk-del', Key: 'k' }));
    await s3.send(new DeleteBucketCommand({ Bucket: 'sdk-del' }));
    expect(
      (await errorOf(s3.send(new HeadBucketCommand({ Bucket: 'sdk-del' })))).$metadata.httpStatusCode,
    ).toBe(404);
  });
});

describe('objects through @aws-sdk/client-s3', () => {
  beforeAll(async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'sdk-objects' }));
  });

  it('puts and gets an object with metadata, checksums and the MD5 ETag', async () => {
    const body = Buffer.from('hello, object storage');
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: 'sdk-objects',
        Key: 'dir/hello world.txt',
        Body: body,
        ContentType: 'text/plain',
        Metadata: { purpose: 'test' },
        ChecksumAlgorithm: 'SHA256',
      }),
    );
    expect(put.ETag).toBe(`"${md5(body)}"`);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'sdk-objects', Key: 'dir/hello world.txt' }));
    expect(got.ContentType).toBe('text/plain');
    expect(got.Metadata).toEqual({ purpose: 'test' });
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'sdk-objects', Key: 'dir/hello world.txt' }));
    expect(head.ContentLength).toBe(body.length);
  });

  it('rejects a checksum that does not match the body and keeps nothing', async () => {
    const err = await errorOf(
      s3.send(
        new PutObjectCommand({
          Bucket: 'sdk-objects',
          Key: 'bad-sum',
          Body: 'abc',
          ChecksumSHA256: createHash('sha256').update('not abc').digest('base64'),
        }),
      ),
    );
    expect(err.$metadata.httpStatusCode).toBe(400);
    expect(
      (await errorOf(s3.send(new HeadObjectCommand({ Bucket: 'sdk-objects', Key: 'bad-sum' })))).name,
    ).toBe('NotFound');
  });

  it('serves inclusive ranges with 206 and Content-Range only on partial answers', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'sdk-objects', Key: 'digits', Body: '0123456789' }));
    const first = await s3.send(
      new GetObjectCommand({ Bucket: 'sdk-objects', Key: 'digits', Range: 'bytes=0-0' }),
    );
    expect(first.$metadata.httpStatusCode).toBe(206);
    expect(first.ContentRange).toBe('bytes 0-0/10');
    expect(await first.Body!.transformToString()).toBe('0');
    const tail = await s3.send(
      new GetObjectCommand({ Bucket: 'sdk-objects', Key: 'digits', Range: 'bytes=-3' }),
    );
    expect(await tail.Body!.transformToString()).toBe('789');
    const full = await s3.send(new GetObjectCommand({ Bucket: 'sdk-objects', Key: 'digits' }));
    expect(full.$metadata.httpStatusCode).toBe(200);
    expect(full.ContentRange).toBeUndefined();
    await full.Body!.transformToString();
    const beyond = await errorOf(
      s3.send(new GetObjectCommand({ Bucket: 'sdk-objects', Key: 'digits', Range: 'bytes=20-' })),
    );
    expect(beyond.$metadata.httpStatusCode).toBe(416);
  });

  it('honours conditional reads and writes with ETag lists, weak ETags and *', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket: 'sdk-objects', Key: 'cond', Body: 'v1' }));
    const etag = put.ETag!;
    const notModified = await errorOf(
      s3.send(
        new GetObjectCommand({ Bucket: 'sdk-objects', Key: 'cond', IfNoneMatch: `"other", W/${etag}` }),
      ),
    );
    expect(notModified.$metadata.httpStatusCode).toBe(304);
    const ok = await s3.send(
      new GetObjectCommand({ Bucket: 'sdk-objects', Key: 'cond', IfMatch: `"nope", ${etag}` }),
    );
    expect(await ok.Body!.transformToString()).toBe('v1');
    const failed = await errorOf(
      s3.send(new GetObjectCommand({ Bucket: 'sdk-objects', Key: 'cond', IfMatch: '"nope"' })),
    );
    expect(failed.$metadata.httpStatusCode).toBe(412);
    const overwrite = await errorOf(
      s3.send(new PutObjectCommand({ Bucket: 'sdk-objects', Key: 'cond', Body: 'v2', IfNoneMatch: '*' })),
    );
    expect(overwrite.$metadata.httpStatusCode).toBe(412);
    await s3.send(new PutObjectCommand({ Bucket: 'sdk-objects', Key: 'cond', Body: 'v2', IfMatch: etag }));
  });

  it('copies objects with a leading-slash source and version headers, and reports missing buckets and keys', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'sdk-objects', Key: 'src', Body: 'copy me' }));
    const copy = await s3.send(
      new CopyObjectCommand({ Bucket: 'sdk-objects', Key: 'dst', CopySource: '/sdk-objects/src' }),
    );
    expect(copy.VersionId).toBeTruthy();
    expect(copy.CopySourceVersionId).toBeTruthy();
    const got = await s3.send(new GetObjectCommand({ Bucket: 'sdk-objects', Key: 'dst' }));
    expect(await got.Body!.transformToString()).toBe('copy me');
    const noBucket = await errorOf(
      s3.send(new CopyObjectCommand({ Bucket: 'sdk-missing', Key: 'dst', CopySource: '/sdk-objects/src' })),
    );
    expect(noBucket.name).toBe('NoSuchBucket');
    const noKey = await errorOf(
      s3.send(
        new CopyObjectCommand({ Bucket: 'sdk-objects', Key: 'dst', CopySource: '/sdk-objects/absent' }),
      ),
    );
    expect(noKey.name).toBe('NoSuchKey');
    const noSlash = await errorOf(
      s3.send(new CopyObjectCommand({ Bucket: 'sdk-objects', Key: 'dst', CopySource: 'sdk-objects/src' })),
    );
    expect(noSlash.$metadata.httpStatusCode).toBe(400);
  });

  it('deletes objects one by one and in bulk, keys taken exactly', async () => {
    for (const key of ['a', ' a ', 'b'])
      await s3.send(new PutObjectCommand({ Bucket: 'sdk-objects', Key: key, Body: key }));
    const bulk = await s3.send(
      new DeleteObjectsCommand({
        Bucket: 'sdk-objects',
        Delete: { Objects: [{ Key: ' a ' }, { Key: 'b' }] },
      }),
    );
    expect(bulk.Deleted?.map((d) => d.Key)).toEqual([' a ', 'b']);
    await s3.send(new HeadObjectCommand({ Bucket: 'sdk-objects', Key: 'a' }));
    await s3.send(new DeleteObjectCommand({ Bucket: 'sdk-objects', Key: 'a' }));
    const tooMany = await errorOf(
      s3.send(
        new DeleteObjectsCommand({
          Bucket: 'sdk-objects',
          Delete: { Objects: Array.from({ length: 1001 }, (_, i) => ({ Key: `k${i}` })) },
        }),
      ),
    );
    expect(tooMany.name).toBe('MalformedXML');
  });
});

describe('listings through @aws-sdk/client-s3', () => {
  beforeAll(async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'sdk-list' }));
    for (const key of ['a/1', 'a/2', 'b', 'c d', 'e/']) {
      await s3.send(new PutObjectCommand({ Bucket: 'sdk-list', Key: key, Body: key }));
    }
  });

  it('lists with delimiter, prefix and KeyCount counting common prefixes', async () => {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: 'sdk-list', Delimiter: '/' }));
    expect(out.Contents?.map((c) => c.Key)).toEqual(['b', 'c d']);
    expect(out.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['a/', 'e/']);
    expect(out.KeyCount).toBe(4);
    const prefixed = await s3.send(new ListObjectsV2Command({ Bucket: 'sdk-list', Prefix: 'a/' }));
    expect(prefixed.Contents?.map((c) => c.Key)).toEqual(['a/1', 'a/2']);
  });

  it('pages with continuation tokens, every key once, no cursor on an exact fit', async () => {
    const keys: string[] = [];
    for await (const page of paginateListObjectsV2({ client: s3, pageSize: 2 }, { Bucket: 'sdk-list' })) {
      keys.push(...(page.Contents ?? []).map((c) => c.Key!));
    }
    expect(keys).toEqual(['a/1', 'a/2', 'b', 'c d', 'e/']);
    const exact = await s3.send(new ListObjectsV2Command({ Bucket: 'sdk-list', MaxKeys: 5 }));
    expect(exact.IsTruncated).toBe(false);
    expect(exact.NextContinuationToken).toBeUndefined();
    const v1 = await s3.send(new ListObjectsCommand({ Bucket: 'sdk-list', MaxKeys: 2 }));
    expect(v1.IsTruncated).toBe(true);
    expect(v1.NextMarker).toBe('a/2');
    const v1rest = await s3.send(new ListObjectsCommand({ Bucket: 'sdk-list', Marker: 'a/2' }));
    expect(v1rest.Contents?.map((c) => c.Key)).toEqual(['b', 'c d', 'e/']);
    expect(v1rest.NextMarker).toBeUndefined();
  });

  it('URL-encodes keys with encoding-type url and rejects an invalid cursor as a client error', async () => {
    const out = await s3.send(
      new ListObjectsV2Command({ Bucket: 'sdk-list', Prefix: 'c', EncodingType: 'url' }),
    );
    expect(out.Contents?.map((c) => c.Key)).toEqual(['c%20d']);
    const bad = await errorOf(
      s3.send(new ListObjectsV2Command({ Bucket: 'sdk-list', ContinuationToken: 'garbage!' })),
    );
    expect(bad.$metadata.httpStatusCode).toBe(400);
  });
});

describe('multipart uploads through @aws-sdk/client-s3 and lib-storage', () => {
  beforeAll(async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'sdk-mpu' }));
  });

  it('uploads with lib-storage; the ETag is the MD5 of the part MD5s with -N', async () => {
    const body = Buffer.alloc(12 * MiB);
    for (let i = 0; i < body.length; i += 4096) body[i] = i % 251;
    const done = await new Upload({
      client: s3,
      params: { Bucket: 'sdk-mpu', Key: 'big.bin', Body: body },
      partSize: 5 * MiB,
      queueSize: 2,
    }).done();
    const parts = [body.subarray(0, 5 * MiB), body.subarray(5 * MiB, 10 * MiB), body.subarray(10 * MiB)];
    const expected = createHash('md5')
      .update(Buffer.concat(parts.map((p) => createHash('md5').update(p).digest())))
      .digest('hex');
    expect(done.ETag).toBe(`"${expected}-3"`);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'sdk-mpu', Key: 'big.bin' }));
    expect(md5(Buffer.from(await got.Body!.transformToByteArray()))).toBe(md5(body));
    const third = await s3.send(new GetObjectCommand({ Bucket: 'sdk-mpu', Key: 'big.bin', PartNumber: 3 }));
    expect(third.$metadata.httpStatusCode).toBe(206);
    expect(third.PartsCount).toBe(3);
    expect(md5(Buffer.from(await third.Body!.transformToByteArray()))).toBe(md5(parts[2]));
    const copy = await s3.send(
      new CopyObjectCommand({ Bucket: 'sdk-mpu', Key: 'big-copy.bin', CopySource: '/sdk-mpu/big.bin' }),
    );
    expect(copy.CopyObjectResult?.ETag).toBe(done.ETag);
  });

  it('lists parts and uploads, sorts parts at completion and checks part sizes there', async () => {
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: 'sdk-mpu', Key: 'dir/parts file' }),
    );
    const p1 = await s3.send(
      new UploadPartCommand({
        Bucket: 'sdk-mpu',
        Key: 'dir/parts file',
        UploadId,
        PartNumber: 1,
        Body: Buffer.alloc(5 * MiB, 1),
      }),
    );
    const p2 = await s3.send(
      new UploadPartCommand({
        Bucket: 'sdk-mpu',
        Key: 'dir/parts file',
        UploadId,
        PartNumber: 2,
        Body: Buffer.alloc(0),
      }),
    );
    const parts = await s3.send(new ListPartsCommand({ Bucket: 'sdk-mpu', Key: 'dir/parts file', UploadId }));
    expect(parts.Parts?.map((p) => [p.PartNumber, p.Size])).toEqual([
      [1, 5 * MiB],
      [2, 0],
    ]);
    const uploads = await s3.send(
      new ListMultipartUploadsCommand({ Bucket: 'sdk-mpu', EncodingType: 'url' }),
    );
    expect(uploads.Uploads?.map((u) => u.Key)).toContain('dir/parts%20file');
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'sdk-mpu',
        Key: 'dir/parts file',
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 2, ETag: p2.ETag!.replace(/"/g, '') },
            { PartNumber: 1, ETag: p1.ETag },
          ],
        },
      }),
    );
    expect(done.ETag).toMatch(/^"[0-9a-f]{32}-2"$/);
  });

  it('rejects unequal non-trailing parts at CompleteMultipartUpload, and aborting twice is not an error', async () => {
    const Key = 'unequal';
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'sdk-mpu', Key }));
    const etags: string[] = [];
    for (const [n, size] of [
      [1, 5 * MiB],
      [2, 5 * MiB + 1],
      [3, 10],
    ]) {
      const r = await s3.send(
        new UploadPartCommand({
          Bucket: 'sdk-mpu',
          Key,
          UploadId,
          PartNumber: n,
          Body: Buffer.alloc(size, n),
        }),
      );
      etags.push(r.ETag!);
    }
    const err = await errorOf(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'sdk-mpu',
          Key,
          UploadId,
          MultipartUpload: { Parts: etags.map((ETag, i) => ({ PartNumber: i + 1, ETag })) },
        }),
      ),
    );
    expect(err.$metadata.httpStatusCode).toBe(400);
    await s3.send(new AbortMultipartUploadCommand({ Bucket: 'sdk-mpu', Key, UploadId }));
    await s3.send(new AbortMultipartUploadCommand({ Bucket: 'sdk-mpu', Key, UploadId }));
    const missing = await errorOf(s3.send(new ListPartsCommand({ Bucket: 'sdk-mpu', Key, UploadId })));
    expect(missing.name).toBe('NoSuchUpload');
  });

  it('copies a range of an object into a part with UploadPartCopy', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'sdk-mpu', Key: 'source', Body: 'abcdefghij' }));
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: 'sdk-mpu', Key: 'assembled' }),
    );
    const part = await s3.send(
      new UploadPartCopyCommand({
        Bucket: 'sdk-mpu',
        Key: 'assembled',
        UploadId,
        PartNumber: 1,
        CopySource: '/sdk-mpu/source',
        CopySourceRange: 'bytes=2-5',
      }),
    );
    expect(part.CopyPartResult?.ETag).toBe(`"${md5(Buffer.from('cdef'))}"`);
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'sdk-mpu',
        Key: 'assembled',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.CopyPartResult!.ETag }] },
      }),
    );
    const got = await s3.send(new GetObjectCommand({ Bucket: 'sdk-mpu', Key: 'assembled' }));
    expect(await got.Body!.transformToString()).toBe('cdef');
  });
});

describe('presigned URLs from @aws-sdk/s3-request-presigner', () => {
  beforeAll(async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'sdk-presign' }));
  });

  it('PUTs and GETs an object and lists objects and buckets through presigned URLs', async () => {
    const putUrl = await getSignedUrl(s3, new PutObjectCommand({ Bucket: 'sdk-presign', Key: 'p.txt' }), {
      expiresIn: 60,
    });
    const put = await fetch(putUrl, { method: 'PUT', body: 'presigned body' });
    expect(put.status).toBe(200);
    const getUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'sdk-presign', Key: 'p.txt' }), {
      expiresIn: 60,
    });
    const got = await fetch(getUrl);
    expect(got.status).toBe(200);
    expect(await got.text()).toBe('presigned body');
    const listUrl = await getSignedUrl(s3, new ListObjectsV2Command({ Bucket: 'sdk-presign' }), {
      expiresIn: 60,
    });
    const listed = await fetch(listUrl);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-type')).toBe('application/xml');
    expect(await listed.text()).toContain('<Key>p.txt</Key>');
    const bucketsUrl = await getSignedUrl(s3, new ListBucketsCommand({}), { expiresIn: 60 });
    const buckets = await fetch(bucketsUrl);
    expect(buckets.status).toBe(200);
    expect(await buckets.text()).toContain('<Name>sdk-presign</Name>');
  });

  it('refuses a presigned URL whose signature was tampered with', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'sdk-presign', Key: 'p.txt' }), {
      expiresIn: 60,
    });
    const tampered = url.replace(
      /X-Amz-Signature=([0-9a-f])/,
      (_, c) => `X-Amz-Signature=${c === '0' ? '1' : '0'}`,
    );
    const res = await fetch(tampered);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
  });
});

describe('addressing', () => {
  it('serves virtual-hosted requests (<bucket>.localhost) like path-style ones', async () => {
    // *.localhost is loopback by definition (RFC 6761); not every resolver knows it, so the agent says so.
    const agent = new http.Agent({
      lookup: (_host, options, cb) =>
        (options as { all?: boolean }).all
          ? cb(null, [{ address: '127.0.0.1', family: 4 }] as never)
          : cb(null, '127.0.0.1', 4),
    });
    const port = new URL(h.target.endpoint).port;
    const virtual = new S3Client({
      endpoint: `http://localhost:${port}`,
      region: 'auto',
      forcePathStyle: false,
      credentials: { accessKeyId: h.target.accessKeyId, secretAccessKey: h.target.secretAccessKey },
      requestHandler: new NodeHttpHandler({ httpAgent: agent }),
      maxAttempts: 1,
    });
    try {
      await s3.send(new CreateBucketCommand({ Bucket: 'sdk-vhost' }));
      await virtual.send(new PutObjectCommand({ Bucket: 'sdk-vhost', Key: 'v/k.txt', Body: 'virtual' }));
      const got = await s3.send(new GetObjectCommand({ Bucket: 'sdk-vhost', Key: 'v/k.txt' }));
      expect(await got.Body!.transformToString()).toBe('virtual');
      const listed = await virtual.send(new ListObjectsV2Command({ Bucket: 'sdk-vhost' }));
      expect(listed.Contents?.map((c) => c.Key)).toEqual(['v/k.txt']);
    } finally {
      virtual.destroy();
      agent.destroy();
    }
  });
});

describe('SigV4', () => {
  it('rejects a request signed with the wrong secret with 403 SignatureDoesNotMatch', async () => {
    const wrong = sdkClient(h.target, 'definitely-not-the-secret');
    try {
      const err = await errorOf(wrong.send(new ListBucketsCommand({})));
      expect(err.name).toBe('SignatureDoesNotMatch');
      expect(err.$metadata.httpStatusCode).toBe(403);
    } finally {
      wrong.destroy();
    }
  });
});
