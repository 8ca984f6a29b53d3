import { readSmallBody } from './body.ts';
import type { S3Call } from './call.ts';
import { malformedXml } from './errors.ts';
import { sendResult } from './respond.ts';
import { asArray, parseXml, text } from './xml.ts';

/** SPEC behaviour 12 and Limits: at most 1000 keys per request; keys are taken exactly, spaces included. */
export const DELETE_OBJECTS_MAX = 1000;

export async function deleteObjects(call: S3Call): Promise<void> {
  const bucket = call.store.bucket(call.bucket);
  const body = await readSmallBody(call.req, call.payloadHash);
  let doc: Record<string, unknown>;
  try {
    doc = parseXml(body.toString('utf8'));
  } catch {
    throw malformedXml();
  }
  const del = doc.Delete as Record<string, unknown> | undefined;
  if (!del || typeof del !== 'object') throw malformedXml();
  const objects = asArray(del.Object as Record<string, unknown> | Record<string, unknown>[]);
  if (objects.length === 0) throw malformedXml();
  if (objects.length > DELETE_OBJECTS_MAX && !call.ctx.faults.has('s3-delete-objects-over-limit')) {
    throw malformedXml(`The request must contain at most ${DELETE_OBJECTS_MAX} keys.`);
  }
  const quiet = text(del.Quiet)?.trim().toLowerCase() === 'true';
  const deleted: Record<string, string>[] = [];
  for (const o of objects) {
    let key = text(o?.Key);
    if (key === undefined) throw malformedXml();
    if (call.ctx.faults.has('s3-delete-objects-trims-keys')) key = key.trim();
    call.store.deleteObject(bucket, key);
    deleted.push({ Key: key });
  }
  sendResult(call.res, 'DeleteResult', quiet ? {} : { Deleted: deleted }, {}, call.ctx);
}
