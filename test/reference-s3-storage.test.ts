import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type S3Harness, startS3Harness } from './reference-s3-harness.ts';

// Multi-MiB bodies and a server per check: generous under a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const MiB = 1024 * 1024;
let h: S3Harness;
let dataDir: string;
const blobFiles = () => readdirSync(path.join(dataDir, 's3-blobs')).length;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'edgecheck-s3-store-'));
  h = await startS3Harness([], dataDir);
  await h.sdk.send(new CreateBucketCommand({ Bucket: 'disk' }));
});
afterAll(async () => {
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('object bodies on disk (--data-dir)', () => {
  it('stores, completes, copies, reads ranges across parts and removes files no object uses', async () => {
    const s3 = h.sdk;
    await s3.send(new PutObjectCommand({ Bucket: 'disk', Key: 'small', Body: 'on disk' }));
    expect(blobFiles()).toBe(1);

    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'disk', Key: 'mp' }));
    const parts = [Buffer.alloc(5 * MiB, 'a'), Buffer.alloc(3, 'b')];
    const etags: string[] = [];
    for (const [i, Body] of parts.entries()) {
      etags.push(
        (
          await s3.send(
            new UploadPartCommand({ Bucket: 'disk', Key: 'mp', UploadId, PartNumber: i + 1, Body }),
          )
        ).ETag!,
      );
    }
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'disk',
        Key: 'mp',
        UploadId,
        MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
      }),
    );
    expect(blobFiles()).toBe(3);
    const across = await s3.send(
      new GetObjectCommand({ Bucket: 'disk', Key: 'mp', Range: `bytes=${5 * MiB - 2}-${5 * MiB + 1}` }),
    );
    expect(await across.Body!.transformToString()).toBe('aabb');

    // A copy lists the same files: no bytes are duplicated, and they stay while either object needs them.
    await s3.send(new CopyObjectCommand({ Bucket: 'disk', Key: 'mp-copy', CopySource: '/disk/mp' }));
    expect(blobFiles()).toBe(3);
    await s3.send(new DeleteObjectCommand({ Bucket: 'disk', Key: 'mp' }));
    expect(blobFiles()).toBe(3);
    const copy = await s3.send(new GetObjectCommand({ Bucket: 'disk', Key: 'mp-copy', Range: 'bytes=-3' }));
    expect(await copy.Body!.transformToString()).toBe('bbb');
    await s3.send(new DeleteObjectCommand({ Bucket: 'disk', Key: 'mp-copy' }));
    expect(blobFiles()).toBe(1);

    await s3.send(new PutObjectCommand({ Bucket: 'disk', Key: 'small', Body: 'replaced' }));
    expect(blobFiles()).toBe(1);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'disk', Key: 'small' }));
    expect(await got.Body!.transformToString()).toBe('replaced');
  });

  it('keeps nothing of an upload whose client goes away mid-body, and keeps serving', async () => {
    const before = blobFiles();
    const url = new URL(
      await getSignedUrl(h.sdk, new PutObjectCommand({ Bucket: 'disk', Key: 'cut' }), { expiresIn: 60 }),
    );
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: '127.0.0.1',
        port: Number(url.port),
        method: 'PUT',
        path: url.pathname + url.search,
        headers: { 'content-length': '1000' },
      });
      req.on('error', () => resolve());
      req.write(Buffer.alloc(10, 1), () => setTimeout(() => req.destroy(), 50));
      req.on('close', () => resolve());
    });
    await new Promise((r) => setTimeout(r, 100));
    const head = h.sdk.send(new HeadObjectCommand({ Bucket: 'disk', Key: 'cut' }));
    await expect(head).rejects.toMatchObject({ name: 'NotFound' });
    expect(blobFiles()).toBe(before);
  });
});
