import { bucketRefused, type PropertyContext, type WireResponse } from 'edgecheck/kit';
import { xmlResult } from './xml.ts';

/**
 * A bucket made and emptied with plain requests: no XML bodies and no signed payloads, so that a
 * target refusing one of those fails only the properties about them. Torn down at the end.
 */
export async function rawBucket(ctx: PropertyContext, label: string): Promise<string> {
  const name = ctx.bucketName(label);
  // Registered first: a PUT cut short by an interrupt may still have made the bucket.
  ctx.defer(() => destroyBucket(ctx, name), `bucket ${name}`);
  const res = await ctx.http({ method: 'PUT', bucket: name });
  // A refusal is the target's considered answer: what needs the bucket is blocked, as a case is.
  if (res.status !== 200) ctx.blocked(bucketRefused(name, res.status, errorCode(res)));
  return name;
}

/** The S3 error code of an answer, if it has one. */
export function errorCode(res: WireResponse): string | undefined {
  return /<Code>([^<]*)<\/Code>/.exec(res.text())?.[1];
}

/** Empties and deletes the bucket; throws unless it is gone, so the run lists what is left. */
export async function destroyBucket(ctx: PropertyContext, bucket: string): Promise<void> {
  for (let token: string | undefined, n = 0; n < 1000; n++) {
    const query: Record<string, string> = { 'list-type': '2' };
    if (token) query['continuation-token'] = token;
    const listed = await ctx.http({ method: 'GET', bucket, query });
    if (listed.status === 404) return;
    const page = xmlResult(listed.text(), 'ListBucketResult') ?? {};
    for (const c of page.Contents ?? []) await ctx.http({ method: 'DELETE', bucket, key: String(c.Key) });
    token = String(page.IsTruncated) === 'true' ? String(page.NextContinuationToken ?? '') : undefined;
    if (!token) break;
  }
  const uploads = xmlResult(
    (await ctx.http({ method: 'GET', bucket, query: { uploads: '' } })).text(),
    'ListMultipartUploadsResult',
  );
  for (const u of uploads?.Upload ?? []) {
    await ctx.http({ method: 'DELETE', bucket, key: String(u.Key), query: { uploadId: String(u.UploadId) } });
  }
  const res = await ctx.http({ method: 'DELETE', bucket });
  if (res.status !== 204 && res.status !== 200 && res.status !== 404) {
    throw new Error(`DELETE bucket ${bucket} answered ${res.status}`);
  }
}
