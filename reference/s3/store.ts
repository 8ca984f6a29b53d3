import type { Blob } from './blobs.ts';
import { BlobStore } from './blobs.ts';
import { noSuchBucket } from './errors.ts';

/** Stored headers and identity of one object. */
export interface ObjectRecord {
  key: string;
  blob: Blob;
  etag: string;
  lastModified: Date;
  versionId: string;
  contentType: string;
  /** Content-Encoding, Content-Disposition, Content-Language, Cache-Control, Expires as sent. */
  headers: Record<string, string>;
  /** x-amz-meta-* without the prefix. */
  metadata: Record<string, string>;
  /** Checksums sent with a single PUT, by algorithm (base64). */
  checksums: Record<string, string>;
  /** Part sizes of a multipart object (GetObject partNumber). */
  partSizes?: number[];
  /** x-amz-server-side-encryption the write asked for, or its bucket's default (AES256 is the only one). */
  sse?: 'AES256';
  /** Set when `sse` is the bucket's default, not what a PutObject asked for. */
  sseByDefault?: boolean;
  /** Set on an object a single PutObject wrote (not a copy, not a multipart upload). */
  byPut?: boolean;
}

export interface CorsRule {
  id?: string;
  allowedOrigins: string[];
  allowedMethods: string[];
  allowedHeaders: string[];
  exposeHeaders: string[];
  maxAgeSeconds?: number;
}

export interface PartRecord {
  partNumber: number;
  blob: Blob;
  etag: string;
  lastModified: Date;
  /** Checksums the part was sent with, by algorithm (base64). */
  checksums?: Record<string, string>;
}

export interface UploadRecord {
  uploadId: string;
  key: string;
  initiated: Date;
  contentType?: string;
  headers: Record<string, string>;
  metadata: Record<string, string>;
  sse?: 'AES256';
  /** x-amz-checksum-algorithm of CreateMultipartUpload, lower case: the completed object's checksum. */
  checksumAlgorithm?: string;
  parts: Map<number, PartRecord>;
}

export interface BucketRecord {
  name: string;
  created: Date;
  locationHint?: string;
  objects: Map<string, ObjectRecord>;
  uploads: Map<string, UploadRecord>;
  /** Upload ids that were completed or aborted: aborting them again is not an error. */
  finishedUploads: Set<string>;
  /** What each completed upload answered, so that a repeated Complete answers the same. */
  completedUploads: Map<
    string,
    { key: string; result: Record<string, unknown>; headers: Record<string, string> }
  >;
  cors?: CorsRule[];
  /** The lifecycle configuration as a parsed document, returned as stored. */
  lifecycle?: unknown;
  /**
   * The default encryption: AES256, the only value, which every bucket has from its creation and gets
   * back from DeleteBucketEncryption (another value, or none, only under a fault).
   */
  encryption?: string;
  /** Under a fault: DeleteBucketEncryption left the configuration but stopped applying it to writes. */
  encryptionDefaultOff?: boolean;
  /** PutBucketEncryption has set a configuration (a fault's DeleteBucketEncryption finds none otherwise). */
  encryptionPut?: boolean;
}

/** Buckets, objects and uploads; bodies live in the blob store (memory or the data directory). */
export class S3Store {
  readonly buckets = new Map<string, BucketRecord>();
  readonly blobs: BlobStore;

  constructor(dataDir?: string, inMemoryUpTo?: number) {
    this.blobs = new BlobStore(dataDir, inMemoryUpTo);
  }

  bucket(name: string): BucketRecord {
    const b = this.buckets.get(name);
    if (!b) throw noSuchBucket(name);
    return b;
  }

  createBucket(name: string, locationHint?: string): BucketRecord {
    const b: BucketRecord = {
      name,
      created: new Date(),
      locationHint,
      objects: new Map(),
      uploads: new Map(),
      finishedUploads: new Set(),
      completedUploads: new Map(),
      encryption: 'AES256',
    };
    this.buckets.set(name, b);
    return b;
  }

  putObject(bucket: BucketRecord, record: ObjectRecord): void {
    const old = bucket.objects.get(record.key);
    bucket.objects.set(record.key, record);
    if (old) this.blobs.release(old.blob);
  }

  deleteObject(bucket: BucketRecord, key: string): void {
    const old = bucket.objects.get(key);
    if (!old) return;
    bucket.objects.delete(key);
    this.blobs.release(old.blob);
  }

  dropUpload(bucket: BucketRecord, upload: UploadRecord): void {
    bucket.uploads.delete(upload.uploadId);
    bucket.finishedUploads.add(upload.uploadId);
    for (const p of upload.parts.values()) this.blobs.release(p.blob);
  }
}
