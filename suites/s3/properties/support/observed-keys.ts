import { decodeXmlEntities, type ObservedView, RecentMap } from 'edgecheck/kit';
import { bucketOf, seenObject } from './observed-objects.ts';

/** Buckets remembered, and keys in each: what a proxy seeing millions of writes keeps stays bounded. */
const BUCKETS = 32;
const KEYS_PER_BUCKET = 4096;

/**
 * What the traffic did to each bucket's keys: the keys it stored (PutObject, CopyObject or
 * CompleteMultipartUpload answered 200) and did not delete since (DeleteObject, DeleteObjects,
 * DeleteBucket), and how many deletes it sent. Forgetting is always safe: a key forgotten is one
 * no listing is judged against, and a bucket forgotten starts again with no deletes counted, which
 * the cursors remembered from before it do not match.
 */
export class BucketTraffic {
  private readonly keys = new RecentMap<string, Set<string>>(BUCKETS);
  private readonly deleted = new RecentMap<string, number>(BUCKETS);

  observe(ex: ObservedView): void {
    if (ex.door !== 's3' || ex.status >= 300) return;
    const o = seenObject(ex) ?? completed(ex);
    if (o) {
      if (ex.method === 'DELETE') this.forget(o.bucket, [o.key]);
      // A copy may be answered 200 with an error in its body: only writes whose 200 says they took place.
      else if ((ex.method === 'PUT' || ex.method === 'POST') && ex.status === 200 && !o.copySource)
        this.store(o.bucket, o.key);
      return;
    }
    const bucket = bucketOf(ex);
    if (bucket === undefined) return;
    if (ex.method === 'DELETE' && ex.query.size === 0) this.forget(bucket, undefined);
    else if (ex.method === 'POST' && ex.query.has('delete')) this.forget(bucket, deletedKeys(ex));
  }

  /** How many deletes the traffic sent to the bucket (as long as it is remembered). */
  deletes(bucket: string): number {
    return this.deleted.get(bucket) ?? 0;
  }

  /** The keys the traffic stored in the bucket and did not delete since, as far as remembered. */
  stored(bucket: string): Iterable<string> {
    return this.keys.get(bucket) ?? [];
  }

  /** A key the traffic stored in the bucket under `prefix` that sorts after `last` (UTF-8 order), if any. */
  storedAfter(bucket: string, prefix: string, last: string): string | undefined {
    const after = Buffer.from(last, 'utf8');
    for (const key of this.keys.get(bucket) ?? [])
      if (key.startsWith(prefix) && Buffer.compare(Buffer.from(key, 'utf8'), after) > 0) return key;
    return undefined;
  }

  private store(bucket: string, key: string): void {
    const keys = this.keys.get(bucket) ?? new Set<string>();
    keys.delete(key);
    keys.add(key);
    // The oldest write goes first: Sets iterate in insertion order.
    if (keys.size > KEYS_PER_BUCKET) keys.delete(keys.values().next().value as string);
    this.keys.set(bucket, keys);
  }

  /** Forgets the keys deleted (all of the bucket's when undefined: it is gone, or which went is unknown). */
  private forget(bucket: string, keys: string[] | undefined): void {
    this.deleted.set(bucket, this.deletes(bucket) + 1);
    if (keys === undefined) this.keys.delete(bucket);
    else for (const key of keys) this.keys.get(bucket)?.delete(key);
  }
}

/** A CompleteMultipartUpload (POST of an object with uploadId) is a write of its key. */
function completed(ex: ObservedView): { bucket: string; key: string; copySource?: string } | undefined {
  if (ex.method !== 'POST' || !ex.query.has('uploadId')) return undefined;
  // It too may be answered 200 with an error in its body.
  if (!ex.body?.toString('utf8').includes('<CompleteMultipartUploadResult')) return undefined;
  const m = /^\/([^/]+)\/(.+)$/.exec(ex.path);
  if (!m) return undefined;
  try {
    const host = ex.requestHeaders.host ?? '';
    return { bucket: `${host} /${m[1]}`, key: decodeURIComponent(m[2]) };
  } catch {
    return undefined;
  }
}

/** The keys a DeleteObjects request names; undefined when its body was not kept whole. */
function deletedKeys(ex: ObservedView): string[] | undefined {
  if (ex.requestBody === undefined) return undefined;
  const text = ex.requestBody.toString('utf8');
  return [...text.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => decodeXmlEntities(m[1]));
}
