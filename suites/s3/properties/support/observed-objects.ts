import { type ObservedView, RecentMap } from 'edgecheck/kit';

/**
 * An object request seen in traffic: a path of a bucket and a key (path-style /bucket/key; in a
 * virtual-hosted request only keys holding a slash have such a path), whose query asks for nothing
 * but the object itself: no upload, part, sub-resource or response-* override.
 */
export interface SeenObject {
  /** The object as addressed, host and path: every request for it in the same form shares it. */
  id: string;
  /** Its bucket as addressed (host and the first path segment), as listings of it are (bucketOf). */
  bucket: string;
  /** The key, decoded. */
  key: string;
  method: string;
  /** The request's copy source (CopyObject), if any. */
  copySource?: string;
}

/** Query parameters that leave a request about the object itself: the SDKs' x-id, presigning's X-Amz-*. */
const PLAIN = /^(x-id|x-amz-[a-z0-9-]+)$/i;

const read = new WeakMap<ObservedView, SeenObject | undefined>();

/** The object an exchange is about, read once for every observer that asks (the judge gives each the same view). */
export function seenObject(ex: ObservedView): SeenObject | undefined {
  if (read.has(ex)) return read.get(ex);
  const seen = readObject(ex);
  read.set(ex, seen);
  return seen;
}

function readObject(ex: ObservedView): SeenObject | undefined {
  if (ex.door !== 's3') return undefined;
  const m = /^\/([^/]+)\/(.+)$/.exec(ex.path);
  if (!m) return undefined;
  for (const name of ex.query.keys()) if (!PLAIN.test(name)) return undefined;
  let key: string;
  try {
    key = decodeURIComponent(m[2]);
  } catch {
    return undefined;
  }
  const host = ex.requestHeaders.host ?? '';
  return {
    id: `${host} ${ex.path}`,
    bucket: `${host} /${m[1]}`,
    key,
    method: ex.method,
    copySource: ex.requestHeaders['x-amz-copy-source'],
  };
}

/** The x-amz-meta-* of `headers` by name (without the prefix), sorted: how the metadata observers compare it. */
export function userMetadata(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([name]) => name.startsWith('x-amz-meta-'))
      .map(([name, value]) => [name.slice('x-amz-meta-'.length), value] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

/** A bucket's request (a path of one segment) as bucketOf names it, for listings and bucket deletes. */
export function bucketOf(ex: ObservedView): string | undefined {
  const m = /^\/([^/]+)\/?$/.exec(ex.path);
  return m ? `${ex.requestHeaders.host ?? ''} /${m[1]}` : undefined;
}

/**
 * The version of an object an answer speaks of: its ETag, which another writer's write changes, so
 * that what one answer said of a version is what every answer of that version must say.
 */
export const versionOf = (o: SeenObject, etag: string) => `${o.id}\n${etag.replace(/^W\//, '')}`;

/** How many versions an observer remembers: a proxy may see millions of objects, its memory must not grow. */
export const REMEMBERED = 10_000;

/**
 * What a PutObject request says of the object it writes, once answered 200 with an ETag: its size
 * (undefined when the body was sent aws-chunked and its decoded length not given) and its headers.
 */
export interface Written {
  etag: string;
  size?: number;
  contentType?: string;
  /** x-amz-server-side-encryption as asked, and as answered. */
  sseAsked?: string;
  sseAnswered?: string;
}

/** The write a PutObject (not a copy) answered 200 made, else undefined. */
export function seenWrite(ex: ObservedView): Written | undefined {
  const o = seenObject(ex);
  const etag = ex.headers.etag;
  if (!o || ex.method !== 'PUT' || o.copySource !== undefined || ex.status !== 200 || !etag) return undefined;
  const h = ex.requestHeaders;
  const streamed = /^STREAMING-/i.test(h['x-amz-content-sha256'] ?? '');
  const length = streamed ? h['x-amz-decoded-content-length'] : h['content-length'];
  return {
    etag,
    size: length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined,
    contentType: h['content-type'],
    sseAsked: h['x-amz-server-side-encryption'],
    sseAnswered: ex.headers['x-amz-server-side-encryption'],
  };
}

/** A GET or HEAD of an object answered 200 whole: no Range, no condition that could change the answer. */
export function seenRead(ex: ObservedView): SeenObject | undefined {
  const o = seenObject(ex);
  if (!o || (ex.method !== 'GET' && ex.method !== 'HEAD') || ex.status !== 200) return undefined;
  if (ex.requestHeaders.range !== undefined) return undefined;
  return o;
}

/** Writes remembered by version, the latest REMEMBERED of them. */
export class Versions<V> {
  private readonly seen = new RecentMap<string, V>(REMEMBERED);

  remember(o: SeenObject, etag: string, value: V): void {
    this.seen.set(versionOf(o, etag), value);
  }

  recall(o: SeenObject, etag: string | undefined): V | undefined {
    return etag === undefined ? undefined : this.seen.get(versionOf(o, etag));
  }
}
