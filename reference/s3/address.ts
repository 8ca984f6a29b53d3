import { S3Error } from './errors.ts';

export interface Address {
  bucket: string;
  key: string;
  /** Path as sent, without the query (what SigV4 signs). */
  rawPath: string;
  query: URLSearchParams;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new S3Error(400, 'InvalidURI', 'Could not parse the specified URI.');
  }
}

/** The bucket a virtual-hosted Host header (`<bucket>.localhost:<port>`) names, else undefined. */
export function virtualHostBucket(host: string | undefined): string | undefined {
  const hostname = (host ?? '').replace(/:\d+$/, '').toLowerCase();
  return /^(.+)\.localhost$/.exec(hostname)?.[1];
}

/**
 * SPEC behaviour 1: path-style (`/bucket/key`) and virtual-hosted style (`bucket.<host>`). On loopback the
 * virtual-hosted form is `<bucket>.localhost:<port>`, which resolves to 127.0.0.1.
 */
export function parseAddress(url: string, host: string | undefined): Address {
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  const virtual = virtualHostBucket(host);
  const path = rawPath.startsWith('/') ? rawPath.slice(1) : rawPath;
  if (virtual !== undefined) return { bucket: virtual, key: decode(path), rawPath, query };
  const slash = path.indexOf('/');
  if (slash < 0) return { bucket: decode(path), key: '', rawPath, query };
  return { bucket: decode(path.slice(0, slash)), key: decode(path.slice(slash + 1)), rawPath, query };
}

/** The bucket a request addresses, or undefined if it names none or its address does not parse. */
export function addressedBucket(url: string, host: string | undefined): string | undefined {
  try {
    return parseAddress(url, host).bucket || undefined;
  } catch {
    return undefined;
  }
}
