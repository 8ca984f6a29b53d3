import type { ReferenceContext } from '../context.ts';
import type { Handler } from '../handler.ts';
import { createPublicEntry } from './public-entry.ts';
import { createS3Endpoint } from './s3-endpoint.ts';
import { S3Store } from './store.ts';

/** The S3-compatible interface and the public bucket entry point, sharing one store. */
export function createS3Handlers(
  ctx: ReferenceContext,
  store: S3Store = new S3Store(ctx.dataDir),
): { s3: Handler; public: Handler } {
  return { s3: createS3Endpoint(ctx, store), public: createPublicEntry(ctx, store) };
}
