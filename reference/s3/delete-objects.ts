import type { S3Call } from './call.ts';
import { malformedXml, S3Error } from './errors.ts';
import { readRequestXml } from './request-xml.ts';
import { sendResult } from './respond.ts';
import { asArray, text } from './xml.ts';

/** SPEC behaviour 12 and Limits: at most 1000 keys per request; keys are taken exactly, spaces included. */
export const DELETE_OBJECTS_MAX = 1000;

export async function deleteObjects(call: S3Call): Promise<void> {
  const bucket = call.store.bucket(call.bucket);
  const doc = await readRequestXml(call);
  // <Delete></Delete> parses as text, an empty Delete as one with Quiet alone does as an element.
  const raw = doc?.Delete;
  const del = (typeof raw === 'string' && raw.trim() === '' ? {} : raw) as
    | Record<string, unknown>
    | undefined;
  if (!del || typeof del !== 'object') throw malformedXml();
  const objects = asArray(del.Object as Record<string, unknown> | Record<string, unknown>[]);
  if (objects.length === 0) {
    emptyDelete(call);
    return;
  }
  // The lower limit under the fault matters only for a request of exactly the maximum.
  const limit =
    objects.length >= DELETE_OBJECTS_MAX && call.ctx.faults.has('s3-delete-objects-limit-999')
      ? DELETE_OBJECTS_MAX - 1
      : DELETE_OBJECTS_MAX;
  // Under a fault, the limit is off by one: 1001 keys pass.
  const offByOne = objects.length === limit + 1 && call.ctx.faults.has('s3-delete-objects-limit-1001');
  if (objects.length > limit && !offByOne && !call.ctx.faults.has('s3-delete-objects-over-limit')) {
    // Under a fault, refused with another code than the error table's MalformedXML.
    if (call.ctx.faults.has('s3-delete-objects-over-limit-invalid-request'))
      throw new S3Error(
        400,
        'InvalidRequest',
        `The request must contain at most ${DELETE_OBJECTS_MAX} keys.`,
      );
    throw malformedXml(`The request must contain at most ${DELETE_OBJECTS_MAX} keys.`);
  }
  // Quiet mode lists errors alone. Under faults, Quiet is ignored, or its presence makes the
  // request quiet whatever its value (<Quiet>false</Quiet> too). Each fault is asked only where it
  // changes the answer: a run's teardown empties every bucket with DeleteObjects, without Quiet.
  const f = call.ctx.faults;
  const asked = text(del.Quiet)?.trim().toLowerCase() === 'true';
  const quiet = asked
    ? !f.has('s3-delete-objects-quiet-ignored')
    : del.Quiet !== undefined && f.has('s3-delete-objects-quiet-present');
  const deleted: Record<string, string>[] = [];
  for (const o of objects) {
    let key = text(o?.Key);
    if (key === undefined) throw malformedXml();
    if (key !== key.trim() && f.has('s3-delete-objects-trims-keys')) key = key.trim();
    const existed = bucket.objects.has(key);
    call.store.deleteObject(bucket, key);
    // Under a fault, a key that was not there is not listed as deleted (Amazon S3 lists it).
    if (existed || !f.has('s3-delete-objects-missing-not-listed')) deleted.push({ Key: key });
  }
  sendResult(call.res, 'DeleteResult', quiet ? {} : { Deleted: deleted }, {}, call.ctx);
}

/**
 * A Delete that names no Object: Amazon S3's schema requires one, and a request without is refused
 * with 400 MalformedXML. Under faults, it is answered 200 with an empty DeleteResult, or refused
 * with 400 InvalidRequest.
 */
function emptyDelete(call: S3Call): void {
  if (call.ctx.faults.has('s3-delete-objects-empty-accepted')) {
    sendResult(call.res, 'DeleteResult', {}, {}, call.ctx);
    return;
  }
  if (call.ctx.faults.has('s3-delete-objects-empty-invalid-request'))
    throw new S3Error(400, 'InvalidRequest', 'The request names no object to delete.');
  throw malformedXml();
}
