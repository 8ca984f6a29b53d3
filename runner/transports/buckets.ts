import type { Agent } from 'undici';
import { runPrefix } from '../model/run-id.ts';
import type { S3Target } from '../model/target.ts';
import { bucketRefused } from '../results/advice.ts';
import { TargetBlocked } from '../util/errors.ts';
import { type SendOptions, sendHttp } from './http.ts';
import { buildS3Request } from './s3-raw.ts';

/** A bucket name from the run id: lower case, at most 63 characters, recognisable as edgecheck's. */
export function bucketName(runId: string, caseSlug: string, label: string): string {
  const clean = label.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  return `${runPrefix(runId)}-${caseSlug}-${clean}`.slice(0, 63).replace(/-+$/, '');
}

/**
 * A plain signed PUT with no body: the fewest assumptions about the target. (The SDK would add a
 * CreateBucketConfiguration document for any region but us-east-1, so a target that mishandles
 * XML bodies would block every case instead of failing the one clause about XML.)
 */
export async function createBucket(
  agent: Agent,
  target: S3Target,
  name: string,
  opts: SendOptions,
): Promise<void> {
  const req = await buildS3Request(target, { method: 'PUT', bucket: name });
  const res = await sendHttp(agent, req, opts);
  if (res.status >= 300) {
    const code = /<Code>([^<]*)<\/Code>/.exec(res.text())?.[1];
    // A refusal is a considered answer: what needs the bucket is blocked, not unjudged.
    throw new TargetBlocked(bucketRefused(name, res.status, code));
  }
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The commands that remove a bucket by hand, should teardown fail (credentials from the
 * environment): open multipart uploads are aborted first, since `rb --force` leaves them, and a
 * bucket holding any cannot be deleted.
 */
export function removeBucketCommand(target: S3Target, name: string): string {
  const at = `--endpoint-url ${q(target.endpoint)} --region ${q(target.region)}`;
  return [
    `aws s3api list-multipart-uploads --bucket ${name} ${at} --query 'Uploads[].[Key,UploadId]' --output text`,
    `| while IFS="$(printf '\\t')" read -r k u; do [ -n "$u" ] && aws s3api abort-multipart-upload --bucket ${name} --key "$k" --upload-id "$u" ${at}; done;`,
    `aws s3 rb s3://${name} --force ${at}`,
  ].join(' ');
}
