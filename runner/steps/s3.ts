import type { StepDef } from '../model/case.ts';
import { resolve } from '../template/resolve.ts';
import { teardownAgent } from '../transports/management.ts';
import { isS3Command } from '../transports/s3-commands.ts';
import { sendS3Command } from '../transports/s3-sdk.ts';
import { TargetLacks } from '../util/errors.ts';
import { agentOf, sendOptions } from './context.ts';
import { type Footprint, s3Footprint } from './footprint.ts';
import { isNotFound, type StepKind } from './kind.ts';
import { awsCliFor } from './repro.ts';

type S3Step = Extract<StepDef, { kind: 's3' }>;

/**
 * An SDK command as the request it sends: its method, and the query that names a bucket's
 * configuration (GetBucketCors, ?cors) or a part of an object (UploadPart, ?partNumber).
 */
function sdkFootprint(command: string, input: Record<string, unknown>): Footprint {
  const bucket = typeof input.Bucket === 'string' ? input.Bucket : undefined;
  const key = typeof input.Key === 'string' ? input.Key : undefined;
  const copy = typeof input.CopySource === 'string' ? { 'x-amz-copy-source': input.CopySource } : undefined;
  const [, verb, rest = ''] = /^([A-Z][a-z]+)(.*)$/.exec(command) ?? [];
  const method =
    verb === 'Get' || verb === 'List'
      ? 'GET'
      : verb === 'Head'
        ? 'HEAD'
        : verb === 'Delete' && command !== 'DeleteObjects'
          ? 'DELETE'
          : verb === 'Create' && rest === 'MultipartUpload'
            ? 'POST'
            : command === 'CompleteMultipartUpload' || command === 'DeleteObjects'
              ? 'POST'
              : 'PUT';
  const bucketConfiguration = /^Bucket([A-Z]\w*?)(Configuration)?$/.exec(rest)?.[1];
  const query: Record<string, string> = {};
  if (bucketConfiguration)
    query[SDK_CONFIGURATIONS[bucketConfiguration] ?? bucketConfiguration.toLowerCase()] = '';
  if (command === 'GetObjectLockConfiguration') query['object-lock'] = '';
  if (key && /MultipartUpload|Part/.test(command)) query.uploadId = '';
  if (key && /^(Put|Get|Delete)Object(Tagging|Acl|Retention|LegalHold)$/.test(command)) query.tagging = '';
  return s3Footprint(method, bucket, command === 'ListBuckets' ? undefined : key, query, copy);
}

/** SDK names of bucket configurations whose query is not the name in lower case. */
const SDK_CONFIGURATIONS: Record<string, string> = {
  Notification: 'notification',
  OwnershipControls: 'ownershipControls',
  PublicAccessBlock: 'publicAccessBlock',
  RequestPayment: 'requestPayment',
  IntelligentTiering: 'intelligent-tiering',
  PolicyStatus: 'policyStatus',
};

/** The read that finds what an S3 removal removes: answering 404, it proves the thing gone. */
const READ_BACK: Record<string, { command: string; keys: string[] }> = {
  AbortMultipartUpload: { command: 'ListParts', keys: ['Bucket', 'Key', 'UploadId'] },
  DeleteObject: { command: 'HeadObject', keys: ['Bucket', 'Key'] },
  DeleteBucket: { command: 'HeadBucket', keys: ['Bucket'] },
};

/** An S3 operation through the real @aws-sdk/client-s3, its `input` as the command's. */
export const s3Step: StepKind<S3Step> = {
  load: (raw, common) => ({ ...common, kind: 's3', s3: raw.s3!, input: raw.input }),
  sent: (step) => step.input,
  lint: (step) =>
    isS3Command(step.s3)
      ? undefined
      : `unknown S3 command '${step.s3}': use an @aws-sdk/client-s3 command name without 'Command'`,
  needs: (target) => (target.s3 ? undefined : 'the target has no S3 endpoint configured'),
  captures: 'output',
  // Get, Head and List commands read; every other command may write.
  footprint: (step) => sdkFootprint(step.s3, step.input ?? {}),
  requests: 1,
  async perform(step, scope, ctx, owner) {
    const { target } = ctx;
    if (!target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
    const input = resolve(step.input ?? {}, scope) as Record<string, unknown>;
    const response = await sendS3Command(ctx.s3(), step.s3, input, {
      ...sendOptions(ctx, 's3'),
      userAgent: agentOf(ctx, owner),
    });
    return {
      response,
      repro: () => awsCliFor(step.s3, input, target.s3!),
      ok: !response.error,
      sent: { kind: 'sdk', command: step.s3 },
    };
  },
  describe(step, scope, ctx, caseId) {
    if (!ctx.target.s3) return undefined;
    const input = resolve(step.input ?? {}, scope) as Record<string, unknown>;
    const s3Target = ctx.target.s3;
    const read = READ_BACK[step.s3];
    return {
      what: `${step.s3} ${JSON.stringify(input)}`,
      undo: () => awsCliFor(step.s3, input, s3Target),
      absent: read
        ? async (tctx) => {
            const readInput = Object.fromEntries(read.keys.map((k) => [k, input[k]]));
            const r = await sendS3Command(tctx.s3(), read.command, readInput, {
              ...sendOptions(tctx, 's3'),
              userAgent: teardownAgent(caseId),
            });
            return isNotFound(r.status);
          }
        : undefined,
    };
  },
};
