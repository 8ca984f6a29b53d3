import * as buckets from './buckets.ts';
import type { S3Call } from './call.ts';
import { copyObject } from './copy.ts';
import * as cors from './cors.ts';
import { deleteObjects } from './delete-objects.ts';
import { accessDenied, invalidArgument, notImplemented, S3Error } from './errors.ts';
import { listMultipartUploads } from './list-uploads.ts';
import { ignoredParam, listBuckets, listObjects } from './listing.ts';
import * as mp from './multipart.ts';
import { deleteObject, getObject, putObject } from './objects.ts';

type Op = (call: S3Call) => void | Promise<void>;

/** Query parameters that select an operation (subresources); anything else is an operation's own parameter. */
const SUBRESOURCES = new Set([
  'acl',
  'analytics',
  'accelerate',
  'attributes',
  'cors',
  'delete',
  'encryption',
  'intelligent-tiering',
  'inventory',
  'legal-hold',
  'lifecycle',
  'location',
  'logging',
  'metrics',
  'notification',
  'object-lock',
  'ownershipControls',
  'policy',
  'policyStatus',
  'publicAccessBlock',
  'replication',
  'requestPayment',
  'restore',
  'retention',
  'select',
  'session',
  'tagging',
  'torrent',
  'uploads',
  'uploadId',
  'versioning',
  'versions',
  'website',
  'renameObject',
  'metadataTable',
  'metadataConfiguration',
]);

const BUCKET_OPS: Record<string, Record<string, Op>> = {
  GET: {
    '': listObjects,
    location: buckets.getBucketLocation,
    cors: cors.getBucketCors,
    encryption: buckets.getBucketEncryption,
    uploads: listMultipartUploads,
    acl: (c) => buckets.standIn(c, 'acl'),
    versioning: (c) => buckets.standIn(c, 'versioning'),
    lifecycle: (c) => buckets.standIn(c, 'lifecycle'),
    replication: (c) => buckets.standIn(c, 'replication'),
    tagging: (c) => buckets.standIn(c, 'tagging'),
    'object-lock': (c) => buckets.standIn(c, 'object-lock'),
  },
  PUT: {
    '': buckets.createBucket,
    cors: cors.putBucketCors,
    encryption: buckets.putBucketEncryption,
    lifecycle: buckets.putBucketLifecycle,
  },
  DELETE: {
    '': buckets.deleteBucket,
    cors: cors.deleteBucketCors,
    encryption: buckets.deleteBucketEncryption,
    lifecycle: buckets.deleteBucketLifecycle,
  },
  HEAD: { '': buckets.headBucket },
  POST: { delete: deleteObjects },
};

const OBJECT_OPS: Record<string, Record<string, Op>> = {
  GET: { '': getObject, uploadId: mp.listParts },
  HEAD: { '': getObject },
  PUT: {
    '': (c) => (c.req.headers['x-amz-copy-source'] !== undefined ? copyObject(c) : putObject(c)),
    uploadId: (c) =>
      c.req.headers['x-amz-copy-source'] !== undefined ? mp.uploadPartCopy(c) : mp.uploadPart(c),
  },
  POST: { '': putObject, uploads: mp.createMultipartUpload, uploadId: mp.completeMultipartUpload },
  DELETE: { '': deleteObject, uploadId: mp.abortMultipartUpload },
};

/** The subresource naming the operation, or '' for the plain one. Several subresources are not an operation. */
function subresource(query: URLSearchParams): string {
  const found = [...new Set([...query.keys()].filter((k) => SUBRESOURCES.has(k) && !ignoredParam(k)))];
  if (found.length > 1) throw notImplemented(`The combination ?${found.join('&')}`);
  return found[0] ?? '';
}

/**
 * Picks the operation from method, bucket, key and subresource. SPEC behaviour 6: an unsupported operation
 * is rejected as not implemented, never turned into another one; behaviour 7: x-id is ignored.
 */
export async function dispatch(call: S3Call): Promise<void> {
  if (!call.bucket) {
    if (
      call.query.has('X-Amz-Signature') &&
      (call.ctx.faults.has('s3-presign-list-rejected') || call.ctx.faults.has('s3-presign-service-rejected'))
    ) {
      throw accessDenied('Presigned URLs are not accepted for listings.');
    }
    if (call.method === 'GET') return listBuckets(call);
    throw unsupported(call, `${call.method} on the service`);
  }
  const sub = subresource(call.query);
  const table = call.key ? OBJECT_OPS : BUCKET_OPS;
  let op = fellThrough(call, sub) ?? table[call.method]?.[sub];
  if (!op && call.ctx.faults.has('s3-unsupported-converted')) op = table[call.method]?.[''];
  if (call.key && call.query.get('x-id') === 'DeleteObject' && call.ctx.faults.has('s3-x-id-honored')) {
    op = OBJECT_OPS.DELETE[''];
  }
  faultyRejections(call, sub);
  if (!op)
    throw unsupported(call, `${call.method} ${call.key ? 'object' : 'bucket'}${sub ? ` ?${sub}` : ''}`);
  if (call.key && sub === 'uploadId' && call.method === 'PUT' && !call.query.has('partNumber')) {
    throw new S3Error(400, 'InvalidRequest', 'UploadPart needs partNumber and uploadId.');
  }
  if (call.key && sub === '' && call.method === 'PUT' && call.query.has('partNumber')) {
    throw new S3Error(400, 'InvalidRequest', 'UploadPart needs partNumber and uploadId.');
  }
  await op(call);
}

const STAND_INS = new Set(['acl', 'versioning', 'lifecycle', 'replication', 'tagging', 'object-lock']);

/** The request's query without one parameter: what an operation a subresource fell through to sees. */
function without(call: S3Call, name: string): S3Call {
  const query = new URLSearchParams(call.query);
  query.delete(name);
  return { ...call, query };
}

/**
 * Faults of a router that lets a subresource it does not know (or a stand-in's) fall through to the
 * plain operation of its method and address, as some S3 servers do. Undefined without them.
 */
function fellThrough(call: S3Call, sub: string): Op | undefined {
  if (!sub) return undefined;
  const f = call.ctx.faults;
  if (!call.key && call.method === 'GET' && STAND_INS.has(sub)) {
    // The lifecycle read answers the rules once some are set: only a fresh bucket's read falls through.
    const rules = sub === 'lifecycle' && call.store.buckets.get(call.bucket)?.lifecycle;
    if (!rules && f.has('s3-standin-as-list-objects')) return (c) => listObjects(without(c, sub));
    return undefined;
  }
  if ((call.key ? OBJECT_OPS : BUCKET_OPS)[call.method]?.[sub]) return undefined;
  if (call.key && call.method === 'GET' && f.has('s3-unsupported-get-as-get-object'))
    return (c) => getObject(without(c, sub));
  if (!call.key && call.method === 'GET' && f.has('s3-unsupported-get-as-list-objects'))
    return (c) => listObjects(without(c, sub));
  if (!call.key && call.method === 'PUT' && f.has('s3-unsupported-put-as-create-bucket')) {
    return (c) => {
      if (!c.store.buckets.has(c.bucket)) return buckets.createBucket(without(c, sub));
      throw new S3Error(
        409,
        'BucketAlreadyOwnedByYou',
        'Your previous request to create the named bucket succeeded and you already own it.',
        { BucketName: c.bucket },
      );
    };
  }
  return undefined;
}

/**
 * Faults that refuse an operation the reference otherwise supports. Each is consulted only for the
 * requests it would refuse (the fault trace, fault-trace.ts, counts a consult as reaching the fault).
 */
function faultyRejections(call: S3Call, sub: string): void {
  const f = call.ctx.faults;
  const bucketOnly = !call.key;
  if (
    (call.query.has('x-purpose') || call.req.headers['x-purpose'] !== undefined) &&
    f.has('s3-x-purpose-rejected')
  ) {
    throw invalidArgument('Unknown parameter x-purpose.');
  }
  if (bucketOnly && call.method === 'GET' && STAND_INS.has(sub) && f.has('s3-standin-not-implemented')) {
    if (sub !== 'lifecycle' || !call.store.buckets.get(call.bucket)?.lifecycle)
      throw notImplemented(`GET ?${sub}`);
  }
  if (bucketOnly && sub === 'encryption' && f.has('s3-encryption-not-implemented'))
    throw notImplemented('Bucket encryption');
  if (!bucketOnly && call.method === 'POST' && sub === '' && f.has('s3-put-post-rejected'))
    throw notImplemented('POST object');
  // Under a fault, a POST is read as Amazon S3's browser form upload, which needs a multipart/form-data body.
  if (
    !bucketOnly &&
    call.method === 'POST' &&
    sub === '' &&
    !/^multipart\/form-data/i.test(call.req.headers['content-type'] ?? '') &&
    f.has('s3-put-post-as-form')
  ) {
    throw new S3Error(
      400,
      'MalformedPOSTRequest',
      'The body of your POST request is not well-formed multipart/form-data.',
    );
  }
  if (call.query.has('X-Amz-Signature') && !bucketOnly && sub === '' && f.has('s3-presign-object-rejected')) {
    throw accessDenied('Presigned URLs are not accepted for objects.');
  }
  // Under a fault, x-purpose in the query is one more parameter the operation does not know.
  if (call.query.has('x-purpose') && f.has('s3-x-purpose-query-not-implemented'))
    throw notImplemented('The parameter x-purpose');
  // Under a fault, presigned URLs are taken for objects only, not for a bucket's listing.
  if (call.query.has('X-Amz-Signature') && call.method === 'GET' && bucketOnly && sub === '') {
    if (f.has('s3-presign-list-rejected'))
      throw accessDenied('Presigned URLs are not accepted for listings.');
    if (f.has('s3-presign-bucket-rejected'))
      throw accessDenied('Presigned URLs are not accepted for buckets.');
  }
  // Under a fault, presigned URLs are taken for reads only (a download-link feature).
  if (call.query.has('X-Amz-Signature') && call.method === 'PUT' && f.has('s3-presign-put-rejected'))
    throw accessDenied('Presigned URLs are accepted for GET only.');
  // Under a fault, x-id is checked against the operation the request selects, as a strict router would.
  const xId = call.query.get('x-id');
  const plain = xId === null ? undefined : plainOperation(call, sub);
  if (plain !== undefined && xId !== plain && f.has('s3-x-id-mismatch-rejected'))
    throw invalidArgument(`x-id ${xId} does not name this operation.`);
  if (
    sub === 'uploadId' &&
    call.method === 'PUT' &&
    call.req.headers['x-amz-copy-source'] !== undefined &&
    f.has('s3-upload-part-copy-not-implemented')
  ) {
    throw notImplemented('UploadPartCopy');
  }
}

/** The S3 action name of a request with no subresource, or undefined for any other. */
function plainOperation(call: S3Call, sub: string): string | undefined {
  if (sub !== '') return undefined;
  if (call.key && call.method === 'PUT' && call.req.headers['x-amz-copy-source'] !== undefined)
    return 'CopyObject';
  if (call.key)
    return { GET: 'GetObject', HEAD: 'HeadObject', PUT: 'PutObject', DELETE: 'DeleteObject' }[call.method];
  if (call.method === 'GET') return call.query.get('list-type') === '2' ? 'ListObjectsV2' : 'ListObjects';
  return { HEAD: 'HeadBucket', PUT: 'CreateBucket', DELETE: 'DeleteBucket' }[call.method];
}

function unsupported(call: S3Call, what: string): S3Error {
  if (call.ctx.faults.has('s3-unsupported-500')) {
    return new S3Error(500, 'InternalError', 'We encountered an internal error. Please try again.');
  }
  return notImplemented(what);
}
