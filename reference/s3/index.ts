import type { ReferenceContext } from '../context.ts';
import type { Handler } from '../handler.ts';
import { BINDINGS_BUCKET } from './bindings.ts';
import { createPublicEntry } from './public-entry.ts';
import { createS3Endpoint } from './s3-endpoint.ts';
import { S3Store } from './store.ts';

/** The S3-compatible interface and the public bucket entry point, sharing one store. */
export function createS3Handlers(
  ctx: ReferenceContext,
  store: S3Store = new S3Store(ctx.dataDir),
): { s3: Handler; public: Handler } {
  // The bucket the bindings probe is bound to exists from the start, as on an account.
  if (!store.buckets.has(BINDINGS_BUCKET)) store.createBucket(BINDINGS_BUCKET);
  return { s3: createS3Endpoint(ctx, store), public: createPublicEntry(ctx, store) };
}
