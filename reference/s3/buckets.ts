import { randomUUID } from 'node:crypto';
import { headerValue, type S3Call } from './call.ts';
import { invalidArgument, malformedXml, notImplemented, S3Error } from './errors.ts';
import { readRequestXml } from './request-xml.ts';
import { sendEmpty, sendResult, sendXml } from './respond.ts';
import { asArray, text } from './xml.ts';

/** SPEC behaviour 2: `auto` (with its aliases) or a location hint. */
const LOCATIONS = new Set(['auto', '', 'us-east-1']);
const LOCATION_HINTS = new Set(['wnam', 'enam', 'weur', 'eeur', 'apac', 'oc']);

function optionalXml(call: S3Call): Promise<Record<string, unknown> | undefined> {
  return readRequestXml(call, 64 * 1024);
}

/** Amazon S3's naming rules, less the dots the service does not allow: 3 to 63 of a-z, 0-9 and -. */
const NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

function validName(name: string, call: S3Call): boolean {
  if (NAME.test(name)) return true;
  // Faults of a looser rule, asked only of a name the rule refuses for that one reason.
  const lower = name.toLowerCase();
  if (lower !== name && NAME.test(lower)) return call.ctx.faults.has('s3-bucket-name-upper-accepted');
  const dashed = name.replace(/_/g, '-');
  if (dashed !== name && NAME.test(dashed)) return call.ctx.faults.has('s3-bucket-name-underscore-accepted');
  return false;
}

export async function createBucket(call: S3Call): Promise<void> {
  if (!validName(call.bucket, call)) {
    // Under a fault the name is judged only after the bucket is made: it is created, then refused.
    if (!call.store.buckets.has(call.bucket) && call.ctx.faults.has('s3-bucket-name-checked-after-create'))
      call.store.createBucket(call.bucket);
    throw new S3Error(400, 'InvalidBucketName', 'The specified bucket is not valid.', {
      BucketName: call.bucket,
    });
  }
  // SPEC behaviour 3: object lock `false` is accepted, `true` is not implemented.
  const lock = headerValue(call.req, 'x-amz-bucket-object-lock-enabled')?.toLowerCase();
  if (lock === 'true' && !call.ctx.faults.has('s3-object-lock-accepted')) {
    // Amazon S3 answers an object lock it cannot set up with 400 InvalidRequest.
    if (call.ctx.faults.has('s3-object-lock-invalid-request'))
      throw new S3Error(400, 'InvalidRequest', 'Object lock is not supported.');
    // Under a fault, the header is looked at only after the bucket is made: it is created, then refused.
    if (
      call.ctx.faults.has('s3-object-lock-true-created-then-refused') &&
      !call.store.buckets.has(call.bucket)
    )
      call.store.createBucket(call.bucket);
    throw notImplemented('Object lock');
  }
  if (lock === 'false' && call.ctx.faults.has('s3-object-lock-false-rejected'))
    throw notImplemented('Object lock');
  // Under a fault, the header is looked at only after the bucket is made: it is created, then refused.
  const lateLockRefusal =
    lock === 'false' && call.ctx.faults.has('s3-object-lock-false-created-then-refused');
  const doc = await optionalXml(call);
  // Under a fault, a bucket asked for without a LocationConstraint must be in the region the request
  // was signed for, which auto is not, as Amazon S3 (and moto) refuse a region they do not serve.
  if (
    call.region === 'auto' &&
    !(doc?.CreateBucketConfiguration as Record<string, unknown> | undefined)?.LocationConstraint &&
    call.ctx.faults.has('s3-region-auto-create-refused')
  )
    throw new S3Error(
      400,
      'IllegalLocationConstraintException',
      'The unspecified location constraint is incompatible for the region specific endpoint this request was sent to.',
    );
  let hint: string | undefined;
  if (doc) {
    const config = doc.CreateBucketConfiguration as Record<string, unknown> | undefined;
    if (!config || typeof config !== 'object') throw malformedXml();
    const location = text(config.LocationConstraint)?.trim();
    const anyLocation = call.ctx.faults.has('s3-location-constraint-any');
    // Amazon S3 knows no region auto and refuses it as it refuses any unknown one.
    if (location === 'auto' && call.ctx.faults.has('s3-location-constraint-auto-refused'))
      throw new S3Error(400, 'InvalidLocationConstraint', 'The specified location-constraint is not valid.');
    if (location !== undefined && !anyLocation && !LOCATIONS.has(location) && !LOCATION_HINTS.has(location)) {
      throw new S3Error(400, 'InvalidLocationConstraint', 'The specified location-constraint is not valid.');
    }
    if (location && LOCATION_HINTS.has(location)) hint = location;
  }
  const headerHint = headerValue(call.req, 'cf-location-hint')?.toLowerCase();
  if (headerHint !== undefined) {
    if (!LOCATION_HINTS.has(headerHint)) throw invalidArgument(`Unknown location hint '${headerHint}'.`);
    hint = headerHint;
  }
  if (call.store.buckets.has(call.bucket)) {
    throw new S3Error(
      409,
      'BucketAlreadyOwnedByYou',
      'Your previous request to create the named bucket succeeded and you already own it.',
      {
        BucketName: call.bucket,
      },
    );
  }
  call.store.createBucket(call.bucket, hint);
  if (lateLockRefusal) throw notImplemented('Object lock');
  sendEmpty(
    call.res,
    200,
    call.ctx.faults.has('s3-create-bucket-no-location') ? {} : { location: `/${call.bucket}` },
  );
}

export function headBucket(call: S3Call): void {
  call.store.bucket(call.bucket);
  if (call.ctx.faults.has('s3-head-bucket-region-missing')) return void sendEmpty(call.res, 200);
  const region = call.ctx.faults.has('s3-region-us-east-1') ? 'us-east-1' : 'auto';
  sendEmpty(call.res, 200, { 'x-amz-bucket-region': region });
}

export function deleteBucket(call: S3Call): void {
  const bucket = call.store.bucket(call.bucket);
  if (bucket.objects.size > 0) {
    throw new S3Error(409, 'BucketNotEmpty', 'The bucket you tried to delete is not empty.', {
      BucketName: bucket.name,
    });
  }
  for (const u of [...bucket.uploads.values()]) call.store.dropUpload(bucket, u);
  call.store.buckets.delete(bucket.name);
  sendEmpty(call.res, 204);
}

export function getBucketLocation(call: S3Call): void {
  call.store.bucket(call.bucket);
  // Under a fault, us-east-1; under another, an empty LocationConstraint, as Amazon S3 answers for us-east-1.
  const region = call.ctx.faults.has('s3-region-us-east-1')
    ? 'us-east-1'
    : call.ctx.faults.has('s3-location-empty')
      ? ''
      : 'auto';
  // Under a fault, LocationConstraint carries no S3 namespace: auto on the wire, which the AWS SDK does not read.
  if (call.ctx.faults.has('s3-location-no-xmlns')) {
    sendXml(call.res, 200, { LocationConstraint: { '#text': region } }, {}, call.ctx);
    return;
  }
  sendResult(call.res, 'LocationConstraint', { '#text': region }, {}, call.ctx);
}

/** SPEC behaviour 4: read-only stand-ins answering as for a plain, empty bucket. */
export function standIn(call: S3Call, subresource: string): void {
  const bucket = call.store.bucket(call.bucket);
  const owner = { ID: call.ctx.ids.accountId, DisplayName: call.ctx.ids.accountId };
  const answers: Record<string, [operation: string, root: string, content: Record<string, unknown>]> = {
    acl: [
      'GetBucketAcl',
      'AccessControlPolicy',
      {
        Owner: owner,
        AccessControlList: {
          Grant: {
            Grantee: {
              '@xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
              '@xsi:type': 'CanonicalUser',
              ...owner,
            },
            Permission: 'FULL_CONTROL',
          },
        },
      },
    ],
    // Under a fault, a fresh bucket reports versioning it never had.
    versioning: [
      'GetBucketVersioning',
      'VersioningConfiguration',
      subresource === 'versioning' && call.ctx.faults.has('s3-standin-versioning-enabled')
        ? { Status: 'Enabled' }
        : {},
    ],
    lifecycle: [
      'GetBucketLifecycleConfiguration',
      'LifecycleConfiguration',
      (bucket.lifecycle as Record<string, unknown>) ?? {},
    ],
    replication: ['GetBucketReplication', 'ReplicationConfiguration', {}],
    tagging: ['GetBucketTagging', 'Tagging', { TagSet: '' }],
    'object-lock': ['GetObjectLockConfiguration', 'ObjectLockConfiguration', {}],
  };
  // Under a fault, ?versioning is taken for ?versions: a fresh bucket's (empty) ListObjectVersions answers.
  if (subresource === 'versioning' && call.ctx.faults.has('s3-standin-versioning-as-list-versions'))
    answers.versioning = [
      'GetBucketVersioning',
      'ListVersionsResult',
      { Name: bucket.name, Prefix: '', MaxKeys: 1000, IsTruncated: false },
    ];
  const answer = answers[subresource];
  if (!answer) throw notImplemented(`GET ?${subresource}`);
  // Under a control fault, the root is named for the operation, as moto names it: SPEC names no document.
  const [operation, documentRoot, content] = answer;
  const root = call.ctx.faults.has('s3-standin-operation-roots') ? `${operation}Response` : documentRoot;
  sendResult(call.res, root, content, {}, call.ctx);
}

/** SPEC behaviour 5: bucket encryption, whose only value is AES256. */
export function getBucketEncryption(call: S3Call): void {
  const bucket = call.store.bucket(call.bucket);
  // Only under a fault has a bucket no configuration (Amazon S3's answer from before 2023).
  if (bucket.encryption === undefined) {
    throw new S3Error(
      404,
      'ServerSideEncryptionConfigurationNotFoundError',
      'The server side encryption configuration was not found.',
      { BucketName: bucket.name },
    );
  }
  sendResult(
    call.res,
    'ServerSideEncryptionConfiguration',
    {
      Rule: {
        ApplyServerSideEncryptionByDefault: { SSEAlgorithm: bucket.encryption },
        BucketKeyEnabled: false,
      },
    },
    {},
    call.ctx,
  );
}

export async function putBucketEncryption(call: S3Call): Promise<void> {
  const bucket = call.store.bucket(call.bucket);
  const doc = await optionalXml(call);
  const root = doc?.ServerSideEncryptionConfiguration as Record<string, unknown> | undefined;
  const rule = root?.Rule as Record<string, unknown> | undefined;
  const byDefault = rule?.ApplyServerSideEncryptionByDefault as Record<string, unknown> | undefined;
  const alg = text(byDefault?.SSEAlgorithm)?.trim();
  if (!alg) throw malformedXml();
  // Under a fault, aws:kms is accepted as Amazon S3 accepts it.
  const kmsAccepted = alg === 'aws:kms' && call.ctx.faults.has('s3-encryption-kms-accepted');
  if (alg !== 'AES256' && !kmsAccepted && !call.ctx.faults.has('s3-encryption-any-algorithm')) {
    // Under a fault, the refused algorithm is stored before it is refused.
    if (call.ctx.faults.has('s3-encryption-other-stored-then-refused')) bucket.encryption = alg;
    // Under a fault, another algorithm fails the request instead of being refused.
    if (call.ctx.faults.has('s3-encryption-other-500'))
      throw new S3Error(500, 'InternalError', 'We encountered an internal error. Please try again.');
    throw invalidArgument(`The encryption algorithm '${alg}' is not supported; the only value is AES256.`);
  }
  bucket.encryption = 'AES256';
  bucket.encryptionDefaultOff = undefined;
  bucket.encryptionPut = true;
  sendEmpty(call.res, 200);
}

/**
 * As Amazon S3 since 2023, DeleteBucketEncryption resets the bucket's default encryption to SSE-S3
 * (AES256), the default every bucket has: GetBucketEncryption reports it, and writes get it.
 */
export function deleteBucketEncryption(call: S3Call): void {
  const bucket = call.store.bucket(call.bucket);
  const f = call.ctx.faults;
  // Under a fault, an empty bucket is removed as by DeleteBucket, with the same 204.
  if (bucket.objects.size === 0 && f.has('s3-encryption-delete-deletes-bucket')) {
    for (const u of [...bucket.uploads.values()]) call.store.dropUpload(bucket, u);
    call.store.buckets.delete(bucket.name);
    return void sendEmpty(call.res, 204);
  }
  // Under a fault, a bucket no PutBucketEncryption has configured has nothing to delete.
  if (!bucket.encryptionPut && f.has('s3-encryption-delete-unset-404')) {
    throw new S3Error(
      404,
      'ServerSideEncryptionConfigurationNotFoundError',
      'The server side encryption configuration was not found.',
      { BucketName: bucket.name },
    );
  }
  // Under a fault, the configuration is removed (Amazon S3's behaviour before 2023); under another,
  // it is still reported but no longer applied to writes.
  if (f.has('s3-encryption-delete-removes-configuration')) bucket.encryption = undefined;
  else {
    bucket.encryption = 'AES256';
    if (f.has('s3-encryption-delete-stops-default')) bucket.encryptionDefaultOff = true;
  }
  sendEmpty(call.res, 204);
}

/** SPEC behaviour 15: lifecycle rules are stored and returned. */
export async function putBucketLifecycle(call: S3Call): Promise<void> {
  const bucket = call.store.bucket(call.bucket);
  const doc = await optionalXml(call);
  const root = doc?.LifecycleConfiguration as Record<string, unknown> | undefined;
  if (!root || typeof root !== 'object' || root.Rule === undefined) throw malformedXml();
  const rules = asArray(root.Rule as Record<string, unknown> | Record<string, unknown>[]);
  checkLifecycleRules(call, rules);
  const { '#text': _ws, Rule: _rules, ...rest } = root;
  const stored = stripWhitespace({ ...rest, Rule: assignRuleIds(call, rules) });
  if (!call.ctx.faults.has('s3-lifecycle-not-stored')) bucket.lifecycle = stored;
  sendEmpty(call.res, 200);
}

/**
 * As Amazon S3, a rule given without an ID gets one of its own, unique in the configuration, which
 * GetBucketLifecycleConfiguration returns. Each fault is asked only where a rule has no ID.
 */
function assignRuleIds(call: S3Call, rules: Record<string, unknown>[]): Record<string, unknown>[] {
  const f = call.ctx.faults;
  const missing = rules.filter((r) => !text(r?.ID)?.trim());
  if (missing.length === 0 || f.has('s3-lifecycle-id-not-assigned')) return rules;
  // Under a fault, every rule without an ID gets the same one.
  const shared = missing.length > 1 && f.has('s3-lifecycle-id-shared') ? ruleId() : undefined;
  return rules.map((r) => {
    if (text(r?.ID)?.trim()) return r;
    const { ID: _empty, ...rule } = r ?? {};
    return { ID: shared ?? ruleId(), ...rule };
  });
}

/** An id as Amazon S3 makes them: the base64 of a random UUID. */
const ruleId = () => Buffer.from(randomUUID()).toString('base64').replace(/=+$/, '');

/**
 * Amazon S3's rules for a lifecycle configuration: an ID of at most 255 characters, unique in the
 * configuration; Status Enabled or Disabled; Expiration Days a positive integer.
 */
function checkLifecycleRules(call: S3Call, rules: Record<string, unknown>[]): void {
  const ids = new Set<string>();
  const problems: string[] = [];
  let zeroDays = false;
  let badStatus: string | undefined;
  for (const rule of rules) {
    const id = text(rule?.ID)?.trim();
    if (id !== undefined && id.length > 255)
      problems.push('ID length should not exceed allowed limit of 255');
    if (id !== undefined && ids.has(id)) problems.push('Rule ID must be unique');
    if (id !== undefined) ids.add(id);
    const status = text(rule?.Status)?.trim();
    if (status !== 'Enabled' && status !== 'Disabled') badStatus = status ?? '';
    const expiration = rule?.Expiration as Record<string, unknown> | undefined;
    const days = text(expiration?.Days)?.trim();
    if (days !== undefined && !/^[1-9]\d*$/.test(days)) {
      if (days === '0') zeroDays = true;
      else problems.push("'Days' for Expiration action must be a positive integer");
    }
  }
  if (problems.length === 0 && !zeroDays && badStatus === undefined) return;
  if (call.ctx.faults.has('s3-lifecycle-unvalidated')) return;
  if (badStatus !== undefined) {
    // Under a fault, Status is matched without regard to case (enabled is taken for Enabled).
    const caseOnly = /^(enabled|disabled)$/i.test(badStatus);
    if (
      !(caseOnly && problems.length === 0 && !zeroDays && call.ctx.faults.has('s3-lifecycle-status-any-case'))
    ) {
      // Status is an enumeration of the schema: another value makes the document invalid, MalformedXML
      // as Amazon S3 answers it (under a fault, InvalidArgument as for the rules' other limits).
      if (call.ctx.faults.has('s3-lifecycle-status-invalid-argument'))
        throw invalidArgument('Status must be Enabled or Disabled');
      throw malformedXml();
    }
  }
  if (problems.length === 0 && !zeroDays) return;
  if (problems.length === 0 && call.ctx.faults.has('s3-lifecycle-days-zero-accepted')) return;
  throw invalidArgument(problems[0] ?? "'Days' for Expiration action must be a positive integer");
}

export function deleteBucketLifecycle(call: S3Call): void {
  call.store.bucket(call.bucket).lifecycle = undefined;
  sendEmpty(call.res, 204);
}

function stripWhitespace(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripWhitespace);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === '#text' && String(v).trim() === '') continue;
      out[k] = stripWhitespace(v);
    }
    return out;
  }
  return typeof value === 'string' ? value.trim() : value;
}
