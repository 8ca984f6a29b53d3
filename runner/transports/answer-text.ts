import { parseXml } from '../util/xml.ts';

/*
 * How a target's answer is told in messages: its status and what its body holds, as the target
 * sent them. A client library's name for an answer it could not read (UnknownError, NotFound,
 * "Deserialization error") says nothing about the target; these words say what it sent.
 */

/** What of a body these words need (a CollectedBody of response.ts has it). */
interface Body {
  size: number;
  bytes: Buffer;
  truncated: boolean;
}

/** How much of a body is looked at for its root element. */
export const HEAD_BYTES = 512;

/** The name of an XML body's root element, or undefined when the body does not start as XML. */
export function rootElement(head: Buffer | string): string | undefined {
  const text = (typeof head === 'string' ? head : head.subarray(0, HEAD_BYTES).toString('utf8')).replace(
    /^\uFEFF/,
    '',
  );
  // Declarations, comments and processing instructions may come before the root.
  const rest = text.replace(/^(\s*(<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>))*\s*/i, '');
  return /^<([A-Za-z_][\w.:-]*)/.exec(rest)?.[1];
}

/** The <Code> and <Message> of an S3 error document, each undefined when absent or empty. */
export function errorDocument(body: Body): { code?: string; message?: string } | undefined {
  if (body.size === 0 || body.truncated || rootElement(body.bytes) !== 'Error') return undefined;
  let doc: unknown;
  try {
    doc = parseXml(body.bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const error = ((doc as Record<string, unknown[]>).Error ?? [])[0] as Record<string, unknown> | undefined;
  const text = (name: string): string | undefined => {
    const v = (error?.[name] as unknown[] | undefined)?.[0];
    const s = typeof v === 'string' ? v : (v as { '#text'?: unknown } | undefined)?.['#text'];
    return typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined;
  };
  return { code: text('Code'), message: text('Message') };
}

/**
 * What an answer holds, after its status: `404 NoSuchBucket, no message`,
 * `411 MissingContentLength: You must provide...`, `404, empty body`, `200 <ListBucketResult>`,
 * `400, not XML: "..."`.
 */
export function answerText(status: number, headers: Record<string, string>, body: Body): string {
  if (body.size === 0) return `${status}, empty body`;
  const root = rootElement(body.bytes);
  if (root === 'Error') {
    const e = errorDocument(body);
    if (e) {
      const code = e.code ? `${status} ${e.code}` : `${status} <Error> without a <Code>`;
      return `${code}${e.message ? `: ${e.message}` : ', no message'}`;
    }
  }
  if (root && !/^html$/i.test(root)) return `${status} <${root}>`;
  const type = headers['content-type'];
  const text = body.bytes.subarray(0, 80).toString('utf8');
  if (/^\s*(<!doctype\s+html|<html[\s>])/i.test(text))
    return `${status}, an HTML page${type ? ` (${type})` : ''}`;
  return `${status}, not XML${type ? ` (${type})` : ''}: ${JSON.stringify(text)}${body.size > 80 ? '…' : ''}`;
}
