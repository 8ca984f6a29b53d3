import { createHash } from 'node:crypto';

/** Hex MD5 of a body: what a part's or a single-part object's ETag holds. */
export const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex');

/** A CompleteMultipartUpload body naming the parts in the order given. */
export function completeXml(entries: { number: number; etag: string }[]): string {
  const items = entries.map((e) => `<Part><PartNumber>${e.number}</PartNumber><ETag>${e.etag}</ETag></Part>`);
  return `<CompleteMultipartUpload>${items.join('')}</CompleteMultipartUpload>`;
}
