import type { ReferenceContext } from '../context.ts';
import { ApiError, badRequest, CODES, methodNotAllowed, noRoute } from './api-error.ts';
import type { ApiRequest, ApiResult, Router } from './router.ts';
import { CHANGES, since } from './schedule.ts';
import { objectBody, requireAccount } from './scope.ts';
import type { Json } from './store.ts';

/**
 * Incremental migration configuration of a bucket (SPEC: Object storage management API). The object shape
 * changed on 2024-02-06: before, `{enabled, source: {vendor: s3|gcs, ...}}`; from then on,
 * `{status, source: {provider: aws|gcs, ...}}`. Only the fields below are kept: credentials sent along are
 * never stored or returned.
 */
interface Config {
  enabled: boolean;
  provider: 'aws' | 'gcs';
  bucket: string;
  region?: string;
  endpoint?: string;
}

function newShape(ctx: ReferenceContext): boolean {
  return since(ctx, CHANGES.migrationShape);
}

function render(ctx: ReferenceContext, bucket: string, c: Config | undefined): Json {
  if (!c)
    return newShape(ctx)
      ? { bucket, status: 'disabled', source: null }
      : { bucket, enabled: false, source: null };
  const source: Json = { bucket: c.bucket };
  if (c.region !== undefined) source.region = c.region;
  if (c.endpoint !== undefined) source.endpoint = c.endpoint;
  if (newShape(ctx))
    return {
      bucket,
      status: c.enabled ? 'enabled' : 'disabled',
      source: { provider: c.provider, ...source },
    };
  return { bucket, enabled: c.enabled, source: { vendor: c.provider === 'aws' ? 's3' : 'gcs', ...source } };
}

/** Parses a body in the shape of the as-of date, merged over `base` for PATCH; returns problems as text. */
function parse(ctx: ReferenceContext, body: Json, base?: Config): Config | string {
  const modern = since(ctx, CHANGES.migrationShape);
  const src = body.source;
  if (src !== undefined && (typeof src !== 'object' || src === null || Array.isArray(src)))
    return 'source must be an object';
  const s = (src ?? {}) as Json;
  const kindKey = modern ? 'provider' : 'vendor';
  const kinds: Record<string, 'aws' | 'gcs'> = modern
    ? { aws: 'aws', gcs: 'gcs' }
    : { s3: 'aws', gcs: 'gcs' };
  const kindRaw =
    s[kindKey] ?? (base ? Object.entries(kinds).find(([, v]) => v === base.provider)?.[0] : undefined);
  if (typeof kindRaw !== 'string' || !(kindRaw in kinds)) {
    return `source.${kindKey} must be one of ${Object.keys(kinds).join(', ')}`;
  }
  const provider = kinds[kindRaw];
  if (provider === 'gcs' && !since(ctx, CHANGES.migrationGoogleSource)) {
    return 'Google Cloud Storage sources are available from 2024-01-11';
  }
  const bucket = s.bucket ?? base?.bucket;
  if (typeof bucket !== 'string' || bucket === '') return 'source.bucket is required';
  for (const key of ['region', 'endpoint'] as const) {
    if (s[key] !== undefined && typeof s[key] !== 'string') return `source.${key} must be a string`;
  }
  let enabled = base?.enabled ?? true;
  if (modern && body.status !== undefined) {
    if (!['enabled', 'disabled'].includes(String(body.status)))
      return "status must be 'enabled' or 'disabled'";
    enabled = body.status === 'enabled';
  } else if (!modern && body.enabled !== undefined) {
    if (typeof body.enabled !== 'boolean') return 'enabled must be a boolean';
    enabled = body.enabled;
  }
  const config: Config = { enabled, provider, bucket };
  const region = (s.region as string | undefined) ?? base?.region;
  const endpoint = (s.endpoint as string | undefined) ?? base?.endpoint;
  if (region !== undefined) config.region = region;
  if (endpoint !== undefined) config.endpoint = endpoint;
  return config;
}

const BUCKET = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

function bucketOf(req: ApiRequest): string {
  if (req.ctx.faults.has('no-migration-routes')) throw noRoute();
  if (req.params.account_id !== undefined) requireAccount(req);
  const bucket = req.params.bucket;
  if (!BUCKET.test(bucket)) throw badRequest(`bucket name '${bucket}' is invalid`);
  return bucket;
}

function write(req: ApiRequest, merge: boolean): ApiResult {
  const bucket = bucketOf(req);
  const base = merge ? (req.state.migrations.get(bucket) as Config | undefined) : undefined;
  const parsed = parse(req.ctx, objectBody(req), base);
  if (typeof parsed === 'string') throw badRequest(`migration configuration: ${parsed}`);
  req.state.migrations.set(bucket, parsed as unknown as Json);
  return { result: render(req.ctx, bucket, parsed) };
}

export function registerMigration(router: Router): void {
  for (const base of ['/accounts/:account_id/r2/buckets/:bucket/migration', '/buckets/:bucket/migration']) {
    router.on('GET', base, (req) => {
      const bucket = bucketOf(req);
      // Under the fault a bucket without a configuration answers not found instead of its empty configuration.
      if (!req.state.migrations.has(bucket) && req.ctx.faults.has('migration-unset-not-found'))
        throw ApiError.of(404, CODES.notFound, `no migration configuration for bucket ${bucket}`);
      return { result: render(req.ctx, bucket, req.state.migrations.get(bucket) as Config | undefined) };
    });
    // Under the faults one of the two methods that modify the configuration is missing.
    router.on('PUT', base, (req) => {
      if (req.ctx.faults.has('migration-no-put')) throw methodNotAllowed(req.method);
      return write(req, false);
    });
    router.on('PATCH', base, (req) => {
      if (req.ctx.faults.has('migration-no-patch')) throw methodNotAllowed(req.method);
      return write(req, true);
    });
    router.on(['POST', 'PUT'], `${base}/validate`, (req) => {
      const bucket = bucketOf(req);
      const stored = req.state.migrations.get(bucket) as Config | undefined;
      const parsed =
        req.body === undefined
          ? (stored ?? 'no migration configuration to validate')
          : parse(req.ctx, objectBody(req));
      const errors = typeof parsed === 'string' ? [parsed] : [];
      return { result: { bucket, valid: errors.length === 0, errors } };
    });
  }
}
