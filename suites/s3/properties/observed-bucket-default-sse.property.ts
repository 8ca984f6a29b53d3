import { type ObservedView, type PropertyDef, RecentMap } from 'edgecheck/kit';
import { bucketOf, seenObject, seenRead, seenWrite, Versions } from './support/observed-objects.ts';
import { expectThat } from './support/wire.ts';

/*
 * A bucket's default encryption, as the traffic set it: a PutObject asking for none into a bucket
 * whose PutBucketEncryption AES256 the traffic saw accepted answers AES256, and so does every GET
 * and HEAD of the version it wrote. A bucket is forgotten when the traffic deletes its encryption or
 * the bucket itself (what another writer does meanwhile is not seen: only AES256 can be set). The
 * cases of sse.case.yaml check the same statement in a run.
 */

/** How many buckets and versions are remembered: a proxy may see millions, its memory must not grow. */
const BUCKETS = 1_000;

/** The bucket a PutBucketEncryption naming AES256 (answered 2xx) sets, or one whose setting ends. */
function encryptionChange(ex: ObservedView): { bucket: string; aes256: boolean } | undefined {
  const bucket = bucketOf(ex);
  if (!bucket || ex.status < 200 || ex.status >= 300) return undefined;
  if (ex.method === 'DELETE') return { bucket, aes256: false };
  if (ex.method !== 'PUT' || !ex.query.has('encryption') || !ex.requestBody) return undefined;
  return {
    bucket,
    aes256: /<SSEAlgorithm>\s*AES256\s*<\/SSEAlgorithm>/.test(ex.requestBody.toString('utf8')),
  };
}

function observeBucketDefault() {
  const encrypted = new RecentMap<string, true>(BUCKETS);
  const versions = new Versions<true>();
  return (ex: ObservedView): boolean | undefined => {
    const change = encryptionChange(ex);
    if (change) {
      if (change.aes256) encrypted.set(change.bucket, true);
      else encrypted.delete(change.bucket);
      return undefined;
    }
    const written = seenWrite(ex);
    if (written) {
      const o = seenObject(ex)!;
      if (written.sseAsked !== undefined || !encrypted.get(o.bucket)) return undefined;
      expectThat(
        written.sseAnswered === 'AES256',
        `PUT ${ex.path} asking for no encryption, into a bucket whose default was set to AES256: x-amz-server-side-encryption ${written.sseAnswered ?? 'absent'}`,
      );
      versions.remember(o, written.etag, true);
      return true;
    }
    const o = seenRead(ex);
    if (!o || !versions.recall(o, ex.headers.etag)) return undefined;
    const answered = ex.headers['x-amz-server-side-encryption'];
    expectThat(
      answered === 'AES256',
      `${ex.method} ${ex.path} of what a PutObject wrote under the bucket's AES256 default: x-amz-server-side-encryption ${answered ?? 'absent'}`,
    );
    return true;
  };
}

const bucketDefault: PropertyDef = {
  id: 's3.prop.sse-bucket-default-observed',
  title: "A PutObject asking for no encryption takes the bucket's AES256 default, and its reads say so",
  clauses: ['s3.sse.bucket-default'],
  observe: {
    selects:
      'PutObjects asking for no encryption into a bucket whose PutBucketEncryption AES256 the traffic saw accepted, and GET and HEAD of the versions they wrote',
    observer: observeBucketDefault,
  },
};

export default [bucketDefault] satisfies PropertyDef[];
