import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type SeenRequest, startServer, type TestServer } from './engine-server.ts';
import { type SigV4Credentials, verifySigV4 } from './engine-sigv4.ts';

/**
 * A tiny S3 in memory (path-style, or virtual-hosted under *.localhost): buckets, PUT/GET (with Range)/DELETE of objects, ListObjectsV2,
 * DeleteObjects, an empty ListMultipartUploads; bucket `garbage` answers 200 with a body that is
 * not XML, and names ending in `-taken` are refused (BucketAlreadyExists). Every request must carry a valid SigV4 signature.
 */
export interface MiniS3 extends TestServer {
  buckets: Map<string, Map<string, Buffer>>;
}

function xml(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>${body}`);
}

function s3Error(res: ServerResponse, status: number, code: string): void {
  xml(res, status, `<Error><Code>${code}</Code><Message>${code}</Message></Error>`);
}

export async function startMiniS3(creds: SigV4Credentials): Promise<MiniS3> {
  const buckets = new Map<string, Map<string, Buffer>>();
  const server = await startServer((req: SeenRequest, res) => {
    const [rawPath, search = ''] = req.url.split(/\?(.*)/s);
    // Virtual-hosted addressing: the bucket is the first label of <bucket>.localhost.
    const hostBucket = /^(.+)\.localhost(:\d+)?$/.exec(String(req.headers.host ?? ''))?.[1];
    const path = hostBucket ? `/${hostBucket}${rawPath}` : rawPath;
    const params = new URLSearchParams(search);
    if (path === '/wire-probe') {
      res.writeHead(200, { 'content-length': '2' });
      return void res.end('ok');
    }
    const signature = verifySigV4(req, creds);
    if (signature === 'unsigned') return s3Error(res, 403, 'AccessDenied');
    if (signature === 'invalid') return s3Error(res, 403, 'SignatureDoesNotMatch');
    const [, bucketName, ...rest] = path.split('/');
    const key = rest.join('/') ? decodeURIComponent(rest.join('/')) : undefined; // `/b/` is the bucket
    const bucket = buckets.get(bucketName);
    if (bucketName === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      return void res.end('<<<this is not XML');
    }
    if (key === undefined) {
      if (req.method === 'PUT' && bucketName.endsWith('-taken'))
        return s3Error(res, 409, 'BucketAlreadyExists');
      if (req.method === 'PUT') {
        buckets.set(bucketName, new Map());
        res.writeHead(200, { location: `/${bucketName}` });
        return void res.end();
      }
      if (!bucket) return s3Error(res, 404, 'NoSuchBucket');
      if (req.method === 'DELETE') {
        if (bucket.size) return s3Error(res, 409, 'BucketNotEmpty');
        buckets.delete(bucketName);
        res.writeHead(204);
        return void res.end();
      }
      if (req.method === 'GET' && params.has('uploads')) {
        return xml(
          res,
          200,
          `<ListMultipartUploadsResult><Bucket>${bucketName}</Bucket><IsTruncated>false</IsTruncated></ListMultipartUploadsResult>`,
        );
      }
      if (req.method === 'GET' && params.get('list-type') === '2') {
        const contents = [...bucket.entries()]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([k, v]) => `<Contents><Key>${k}</Key><Size>${v.length}</Size></Contents>`)
          .join('');
        return xml(
          res,
          200,
          `<ListBucketResult><Name>${bucketName}</Name><KeyCount>${bucket.size}</KeyCount><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`,
        );
      }
      if (req.method === 'POST' && params.has('delete')) {
        const keys = [...req.body.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]);
        for (const k of keys) bucket.delete(k);
        return xml(
          res,
          200,
          `<DeleteResult>${keys.map((k) => `<Deleted><Key>${k}</Key></Deleted>`).join('')}</DeleteResult>`,
        );
      }
      return s3Error(res, 501, 'NotImplemented');
    }
    if (!bucket) return s3Error(res, 404, 'NoSuchBucket');
    if (req.method === 'PUT') {
      const data = req.bytes;
      bucket.set(key, data);
      res.writeHead(200, { etag: `"${createHash('md5').update(data).digest('hex')}"` });
      return void res.end();
    }
    const data = bucket.get(key);
    if (!data) return s3Error(res, 404, 'NoSuchKey');
    if (req.method === 'HEAD') {
      res.writeHead(200, {
        'content-length': data.length,
        etag: `"${createHash('md5').update(data).digest('hex')}"`,
      });
      return void res.end();
    }
    if (req.method === 'GET') {
      const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ''));
      if (range) {
        const [first, last] = [Number(range[1]), Math.min(Number(range[2]), data.length - 1)];
        res.writeHead(206, {
          'content-range': `bytes ${first}-${last}/${data.length}`,
          'content-length': last - first + 1,
        });
        return void res.end(data.subarray(first, last + 1));
      }
      res.writeHead(200, {
        'content-length': data.length,
        etag: `"${createHash('md5').update(data).digest('hex')}"`,
      });
      return void res.end(data);
    }
    return s3Error(res, 501, 'NotImplemented');
  });
  return Object.assign(server, { buckets });
}
