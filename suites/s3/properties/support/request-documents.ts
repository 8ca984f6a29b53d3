import { type ObservedView, XMLParser } from 'edgecheck/kit';
import { operationOf, payloadOf } from './exchange.ts';
import { parseXml } from './xml.ts';

/** The bucket sub-resource a request names (cors, lifecycle, encryption...), if it names one. */
export const subresourceOf = (ex: ObservedView): string | undefined =>
  operationOf(ex) === 'BucketSubresource' ? [...ex.query.keys()].find((k) => k !== 'x-id') : undefined;

/** The operations whose request is an XML document, as SPEC names them, and whether this exchange is one. */
export function takesXml(ex: ObservedView): boolean {
  const op = operationOf(ex);
  if (op === 'DeleteObjects' || op === 'CompleteMultipartUpload' || op === 'CreateBucket') return true;
  const sub = subresourceOf(ex);
  return ex.method === 'PUT' && (sub === 'cors' || sub === 'lifecycle' || sub === 'encryption');
}

const checker = new XMLParser();

/** Whether a request document kept whole is well-formed XML (undefined: not kept, or empty). */
export function wellFormed(ex: ObservedView): boolean | undefined {
  const body = payloadOf(ex);
  if (body === undefined || body.length === 0) return undefined;
  try {
    checker.parse(body.toString('utf8'), true);
    return true;
  } catch {
    return false;
  }
}

/** A request's document, parsed (lists as parsed: one element or several), if it was kept and parses. */
export function documentOf(ex: ObservedView): Record<string, any> | undefined {
  const body = payloadOf(ex);
  if (body === undefined || body.length === 0) return undefined;
  try {
    return parseXml(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Elements of a parsed document, one or several, as a list. */
export const each = (v: unknown): any[] => (v === undefined || v === null ? [] : [v].flat());

/** Every element name under `node`, at any depth, with the path to it. */
export function elementNames(node: unknown, at = ''): string[] {
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node as Record<string, unknown>).flatMap(([name, child]) =>
    name.startsWith('#') || name.startsWith('?')
      ? []
      : [`${at}/${name}`, ...each(child).flatMap((c) => elementNames(c, `${at}/${name}`))],
  );
}
