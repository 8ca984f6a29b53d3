import type { StepDef } from '../model/case.ts';
import { destroyBucket } from '../transports/bucket-teardown.ts';
import { bucketName, createBucket, removeBucketCommand } from '../transports/buckets.ts';
import { teardownAgent } from '../transports/management.ts';
import { emptyBody, StepResponse } from '../transports/response.ts';
import { TargetLacks } from '../util/errors.ts';
import { sendOptions, teardownContext } from './context.ts';
import { s3Bucket } from './footprint.ts';
import type { StepKind } from './kind.ts';

type BucketStep = Extract<StepDef, { kind: 'bucket' }>;

/** A bucket of the case's own, named from the run id, emptied and deleted at the case's end. */
export const bucketStep: StepKind<BucketStep> = {
  load: (raw, common) => ({ ...common, kind: 'bucket', bucket: raw.bucket! }),
  sent: () => undefined,
  needs: (target) => (target.s3 ? undefined : 'the target has no S3 endpoint configured'),
  captures: 'other',
  footprint: (step) => ({ reads: [], writes: [s3Bucket(step.bucket)], replaces: [s3Bucket(step.bucket)] }),
  // Created, then listed, emptied, deleted and confirmed gone at teardown.
  requests: 5,
  async perform(step, scope, ctx, owner, ledger) {
    const { target } = ctx;
    if (!target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
    const name = bucketName(ctx.runId, owner.slug, step.bucket);
    const s3Target = target.s3;
    await createBucket(ctx.agent, s3Target, name, sendOptions(ctx, 's3'));
    ledger.add({
      what: `bucket ${name}`,
      undo: () => removeBucketCommand(s3Target, name),
      run: (td) =>
        destroyBucket(
          ctx.agent,
          s3Target,
          name,
          sendOptions(teardownContext(ctx, td), 's3'),
          teardownAgent(owner.id),
        ),
    });
    scope[step.bucket] = name;
    return { response: new StepResponse(200, {}, emptyBody()), ok: true };
  },
  // Its own teardown is the ledger entry perform adds.
};
