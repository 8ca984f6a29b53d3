import type { ObservedView } from 'edgecheck/kit';
import { operationOf, payloadOf } from './exchange.ts';
import { parseXml, xmlResult } from './xml.ts';

/** SPEC's and Amazon S3's limit of keys in one DeleteObjects. */
export const DELETE_LIMIT = 1000;

const list = (v: unknown): any[] => (v === undefined ? [] : [v].flat());

/** What a DeleteObjects request asked: its keys as sent and Quiet; undefined for a body not kept or no Delete document. */
export interface DeleteAsked {
  keys: string[];
  quiet: boolean;
  /** Every Object has a Key: the document is one S3 takes, as far as keys go. */
  wellFormed: boolean;
}

export function deleteAsked(ex: ObservedView): DeleteAsked | undefined {
  if (operationOf(ex) !== 'DeleteObjects') return undefined;
  const body = payloadOf(ex);
  if (body === undefined) return undefined;
  let doc: Record<string, any>;
  try {
    doc = parseXml(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const del = doc.Delete;
  if (del === undefined) return undefined;
  const objects = list(del?.Object);
  const keys = objects.map((o) => o?.Key).filter((k): k is string => typeof k === 'string');
  return {
    keys,
    quiet: String(del?.Quiet ?? '').trim() === 'true',
    wellFormed: objects.length > 0 && keys.length === objects.length,
  };
}

/** The keys a DeleteObjects answer lists as deleted and as failed; undefined for no DeleteResult. */
export function deleteAnswered(ex: ObservedView): { deleted: string[]; failed: string[] } | undefined {
  const doc = xmlResult(ex.text(), 'DeleteResult');
  if (doc === undefined) return undefined;
  const keys = (v: unknown) =>
    list(v).map((e) => (typeof e?.Key === 'string' ? e.Key : String(e?.Key ?? '')));
  return { deleted: keys(doc.Deleted), failed: keys(doc.Error) };
}

/** The DeleteObjects document for `keys`, each key's text escaped. */
export function deleteXml(keys: string[], quiet?: boolean): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const q = quiet === undefined ? '' : `<Quiet>${quiet}</Quiet>`;
  return `<Delete>${q}${keys.map((k) => `<Object><Key>${esc(k)}</Key></Object>`).join('')}</Delete>`;
}
