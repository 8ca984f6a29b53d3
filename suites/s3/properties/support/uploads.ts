import { type ObservedView, RecentMap } from 'edgecheck/kit';
import { operationOf, placeOf } from './exchange.ts';
import { parseXml, xmlResult } from './xml.ts';

/** Uploads an observer remembers, and parts of each: bounded whatever the traffic. */
const UPLOADS = 2000;
const PARTS = 100;

/** A part seen uploaded: its size as sent and the ETag answered. */
export interface SeenPart {
  size?: number;
  etag?: string;
}

/** What the traffic showed of one multipart upload. */
export interface SeenUpload {
  /** x-amz-server-side-encryption its CreateMultipartUpload asked, answered 200. */
  sse?: string;
  /** The parts seen uploaded (answered 200), by number; `overflow` once more than PARTS were. */
  parts: Map<number, SeenPart>;
  overflow: boolean;
  /** An abort of it was answered 2xx. */
  aborted?: boolean;
  /** The ETag its Complete answered 200 with. */
  completed?: string;
  /** A Complete of it was answered 412. */
  conditionFailed?: boolean;
}

/** The upload id an exchange names (query uploadId), with where it lives: what an observer keys uploads by. */
export function uploadOf(ex: ObservedView): string | undefined {
  const id = ex.query.get('uploadId');
  return id === null ? undefined : `${placeOf(ex)}?${id}`;
}

/** An ETag without its quotes, which clients add or leave out. */
export const bare = (etag: string): string => etag.replace(/^"+|"+$/g, '');

/** The size a part request sent: its decoded length under aws-chunked, else Content-Length. */
function sizeSent(ex: ObservedView): number | undefined {
  const v = ex.requestHeaders['x-amz-decoded-content-length'] ?? ex.requestHeaders['content-length'];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : ex.requestBody?.length;
}

/**
 * Remembers the multipart uploads an observer sees: created (with encryption), parts uploaded,
 * aborted, completed, or whose Complete failed its condition. `observe` is given every exchange
 * after the observer judged it, so that an exchange is judged against what came before it.
 */
export class UploadsSeen {
  private readonly uploads = new RecentMap<string, SeenUpload>(UPLOADS);

  get(ex: ObservedView): SeenUpload | undefined {
    const id = uploadOf(ex);
    return id === undefined ? undefined : this.uploads.get(id);
  }

  private upload(id: string): SeenUpload {
    const found = this.uploads.get(id);
    if (found) return found;
    const made: SeenUpload = { parts: new Map(), overflow: false };
    this.uploads.set(id, made);
    return made;
  }

  observe(ex: ObservedView, keepParts = false): void {
    const op = operationOf(ex);
    if (op === 'CreateMultipartUpload' && ex.status === 200) {
      const id = createdUploadId(ex);
      const sse = ex.requestHeaders['x-amz-server-side-encryption'];
      if (id !== undefined && sse !== undefined) this.upload(`${placeOf(ex)}?${id}`).sse = sse;
      return;
    }
    const id = uploadOf(ex);
    if (id === undefined) return;
    if (op === 'UploadPart' && ex.status === 200 && keepParts) {
      const n = Number(ex.query.get('partNumber'));
      const u = this.upload(id);
      if (!Number.isInteger(n)) return;
      if (!u.parts.has(n) && u.parts.size >= PARTS) u.overflow = true;
      else u.parts.set(n, { size: sizeSent(ex), etag: ex.headers.etag });
    } else if (op === 'AbortMultipartUpload' && ex.status >= 200 && ex.status < 300) {
      const u = this.upload(id);
      u.aborted = true;
      u.completed = undefined;
    } else if (op === 'CompleteMultipartUpload') {
      if (ex.status === 412) this.upload(id).conditionFailed = true;
      const etag = ex.status === 200 ? completedEtag(ex) : undefined;
      if (etag !== undefined) this.upload(id).completed = etag;
    }
  }
}

/** The UploadId a CreateMultipartUpload answered. */
export function createdUploadId(ex: ObservedView): string | undefined {
  try {
    const id = xmlResult(ex.text(), 'InitiateMultipartUploadResult')?.UploadId;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The ETag a Complete answered 200 with (its result document's), if it has one. */
export function completedEtag(ex: ObservedView): string | undefined {
  const etag = xmlResult(ex.text(), 'CompleteMultipartUploadResult')?.ETag;
  return typeof etag === 'string' ? etag : undefined;
}

/** The parts a CompleteMultipartUpload request lists, in its order; undefined where its body was not kept or is no such document. */
export function partsListed(ex: ObservedView): { number: number; etag: string }[] | undefined {
  if (ex.requestBody === undefined) return undefined;
  let sent: unknown;
  try {
    sent = parseXml(ex.requestBody.toString('utf8'))?.CompleteMultipartUpload?.Part;
  } catch {
    return undefined;
  }
  if (!Array.isArray(sent)) return undefined;
  const parts = sent.map((p) => ({ number: Number(p?.PartNumber), etag: String(p?.ETag ?? '') }));
  return parts.every((p) => Number.isInteger(p.number)) ? parts : undefined;
}

/** A ListParts answer's parts, with its page's bounds; undefined for no ListPartsResult. */
export function partsAnswered(
  ex: ObservedView,
): { parts: Map<number, { size: number; etag: string }>; after: number; until?: number } | undefined {
  const doc = xmlResult(ex.text(), 'ListPartsResult');
  if (doc === undefined) return undefined;
  const parts = new Map<number, { size: number; etag: string }>();
  for (const p of doc.Part ?? [])
    parts.set(Number(p?.PartNumber), { size: Number(p?.Size), etag: String(p?.ETag ?? '') });
  const truncated = String(doc.IsTruncated) === 'true';
  return {
    parts,
    after: Number(ex.query.get('part-number-marker') ?? 0) || 0,
    until: truncated ? Number(doc.NextPartNumberMarker) : undefined,
  };
}
