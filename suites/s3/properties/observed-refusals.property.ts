import type { ObservedView, PropertyDef } from 'edgecheck/kit';
import { checksumOf } from './support/checksums.ts';
import { expectThat } from './support/wire.ts';

/*
 * Refusals traffic can only catch accepted: an answer 2xx to a request the clause refuses
 * contradicts it, while a refusal seen without its valid twin proves nothing (the cases in
 * client-habits.case.yaml check the refusal beside its twin in a run). Each judges one exchange
 * and keeps nothing.
 */

const OBJECT_PATH = /^\/[^/]+\/./;

/** A PutObject (not a copy, nor an upload part) whose body was kept whole as the object. */
function plainPut(ex: ObservedView): boolean {
  if (ex.door !== 's3' || ex.method !== 'PUT' || !OBJECT_PATH.test(ex.path)) return false;
  for (const name of ex.query.keys()) if (name !== 'x-id') return false;
  const h = ex.requestHeaders;
  // A streamed (aws-chunked) body holds its chunks' framing, not the object's bytes.
  const streamed =
    /STREAMING-/.test(h['x-amz-content-sha256'] ?? '') || /aws-chunked/i.test(h['content-encoding'] ?? '');
  return h['x-amz-copy-source'] === undefined && !streamed && ex.requestBody !== undefined;
}

const crc32Mismatch: PropertyDef = {
  id: 's3.prop.checksum-crc32-mismatch-observed',
  title: 'A PutObject whose x-amz-checksum-crc32 is not that of its body is not stored',
  clauses: ['s3.checksum.crc32-mismatch'],
  observe: {
    selects:
      'PutObjects with x-amz-sdk-checksum-algorithm CRC32 and an x-amz-checksum-crc32, body kept whole, answered 2xx',
    observer: () => (ex) => {
      if (ex.status < 200 || ex.status >= 300 || !plainPut(ex)) return undefined;
      const sent = ex.requestHeaders['x-amz-checksum-crc32'];
      if (sent === undefined || !/^crc32$/i.test(ex.requestHeaders['x-amz-sdk-checksum-algorithm'] ?? ''))
        return undefined;
      const body = checksumOf('crc32', ex.requestBody!);
      expectThat(
        sent === body,
        `PUT ${ex.path} with x-amz-checksum-crc32 ${sent}, of a body whose CRC32 is ${body}, answered ${ex.status}`,
      );
      return true;
    },
  },
};

/** A Delete document that names no Object: <Delete></Delete>, or one holding only Quiet. */
function namesNoObject(body: Buffer): boolean {
  const doc = body.toString('utf8');
  return /<Delete[\s>]/.test(doc) && !/<Object[\s>]/.test(doc);
}

const deleteEmpty: PropertyDef = {
  id: 's3.prop.delete-empty-malformed-xml-observed',
  title: 'A DeleteObjects whose Delete names no Object is not served',
  clauses: ['s3.delete.empty-malformed-xml'],
  observe: {
    selects: 'DeleteObjects (POST ?delete) whose kept document names no Object, answered 2xx',
    observer: () => (ex) => {
      if (ex.door !== 's3' || ex.method !== 'POST' || !ex.query.has('delete')) return undefined;
      if (!/^\/[^/]+\/?$/.test(ex.path) || ex.requestBody === undefined || !namesNoObject(ex.requestBody))
        return undefined;
      expectThat(ex.status >= 300, `POST ${ex.path}?delete naming no Object answered ${ex.status}`);
      return true;
    },
  },
};

/**
 * The bucket and key a path-style request names, where its addressing is certain: a Host that is an
 * IP address or a single name (localhost) can hold no bucket. Under another Host the path may be
 * a virtual-hosted key (/folder/key of the bucket the Host names), and the request is not judged.
 */
function pathStyleObject(ex: ObservedView): string | undefined {
  const host = (ex.requestHeaders.host ?? '').replace(/:\d+$/, '');
  const certain = /^\[.*\]$/.test(host) || /^[\d.]+$/.test(host) || /^[^.]+$/.test(host);
  if (!certain || !OBJECT_PATH.test(ex.path)) return undefined;
  try {
    return decodeURIComponent(ex.path.slice(1));
  } catch {
    return undefined;
  }
}

/** The object a copy source names (bucket/key, decoded, with or without its leading slash); undefined for a version. */
function copiedObject(source: string): string | undefined {
  if (/[?&]versionId=/.test(source)) return undefined;
  try {
    return decodeURIComponent(source.replace(/^\//, ''));
  } catch {
    return undefined;
  }
}

/** Request headers with which Amazon S3 takes a copy onto itself as a change (class, encryption, redirect). */
const CHANGES = /^x-amz-(storage-class|server-side-encryption.*|website-redirect-location)$/;

const copyOntoItself: PropertyDef = {
  id: 's3.prop.copy-onto-itself-observed',
  title: 'A CopyObject onto its own source without REPLACE is not carried out',
  clauses: ['s3.copy.onto-itself'],
  observe: {
    selects:
      'CopyObjects whose x-amz-copy-source is their own path-style object (no version, no REPLACE, no storage class, encryption or redirect change), answered 2xx with no error document',
    observer: () => (ex) => {
      const h = ex.requestHeaders;
      const source = h['x-amz-copy-source'];
      if (ex.door !== 's3' || ex.method !== 'PUT' || source === undefined) return undefined;
      for (const name of ex.query.keys()) if (name !== 'x-id') return undefined;
      const directive = h['x-amz-metadata-directive'];
      if (directive !== undefined && !/^copy$/i.test(directive)) return undefined;
      if (Object.keys(h).some((name) => CHANGES.test(name))) return undefined;
      const self = pathStyleObject(ex);
      if (self === undefined || copiedObject(source) !== self) return undefined;
      if (ex.status < 200 || ex.status >= 300) return undefined;
      // A CopyObject may answer 200 and then fail, with an Error document as its body.
      if (ex.body === undefined || /<Error[\s>]/.test(ex.body.toString('utf8'))) return undefined;
      throw new Error(`PUT ${ex.path} copying ${source} onto itself without REPLACE answered ${ex.status}`);
    },
  },
};

export default [crc32Mismatch, deleteEmpty, copyOntoItself] satisfies PropertyDef[];
