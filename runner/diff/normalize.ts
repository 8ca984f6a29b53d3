import type { StepResponse } from '../transports/response.ts';
import { parseXml } from '../util/xml.ts';

/**
 * An answer reduced to what two correct implementations must agree on: the status, the error
 * code, the header names (less those that differ by nature: dates, request ids, connection
 * handling) with the values that carry meaning, and the body: an XML document as a sorted set of
 * path=value lines (element order and whitespace aside; ETags, dates, ids and tokens as their
 * kind only), any other body as its bytes.
 */
export interface Normalized {
  status: number;
  errorCode?: string;
  headers: Record<string, string>;
  body: string[];
}

/** Headers of the connection and of the server's own make, not of the answer. */
const IGNORED_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'server',
  'vary',
  'access-control-allow-origin',
  'x-amz-version-id',
  'x-amz-copy-source-version-id',
  'x-amz-mp-parts-count',
  // How a body is framed, not what it says.
  'content-length',
]);
/** Headers whose value is opaque: only their presence is compared. */
const OPAQUE_HEADERS = new Set([
  'etag',
  'last-modified',
  'content-length',
  'x-amz-bucket-region',
  'location',
]);
/** XML elements whose text is opaque (compared as their kind), or that differ by nature (dropped). */
const OPAQUE_ELEMENTS =
  /(^|\/)(ETag|LastModified|UploadId|NextContinuationToken|ContinuationToken|Initiated|Size)$/;
const DROPPED_ELEMENTS =
  /(^|\/)(RequestId|HostId|Message|Resource|Owner|StorageClass|Location|ActualObjectSize|RangeRequested)(\/|$)|^\/Error\/(?!Code$|@xmlns$)/;

/**
 * A `...Response` root read as its `...Result` twin, as the AWS SDKs read both (they never look at
 * the root's name): a vendor's choice of suffix is no difference.
 */
function resultRoot(doc: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k.replace(/Response$/, 'Result'), v]));
}

/**
 * A vendor's request or trace id, whatever the vendor calls it (`x-amz-request-id`,
 * `x-amzn-requestid`, `cf-ray`, `x-request-id`, `x-amz-id-2`): every answer has its own.
 */
const ID_HEADER = /(request|trace|correlation|span)-?id|(^|-)(id-\d+|ray)$/i;
/** A date or time, in any header: when it was answered, or when the target stored something. */
const DATE_VALUE =
  /^(\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)$/;

/** How headers are compared: `named`, by value where a clause names the header and else by presence; `all`, by value. */
export interface HeaderComparison {
  mode: 'named' | 'all';
  /** The headers some clause states a value of (lower case). */
  named: ReadonlySet<string>;
}

export function normalize(
  res: StepResponse,
  method = 'GET',
  compare: HeaderComparison = { mode: 'all', named: new Set() },
): Normalized {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (IGNORED_HEADERS.has(name) || ID_HEADER.test(name) || DATE_VALUE.test(value.trim())) continue;
    const byValue = !OPAQUE_HEADERS.has(name) && (compare.mode === 'all' || compare.named.has(name));
    headers[name] = byValue ? value.replace(/\s*,\s*/g, ',') : '(present)';
  }
  const text = res.text();
  // The type of an empty body says nothing, but for a HEAD that found the object, where it is the object's.
  if (!text.length && !(method === 'HEAD' && res.status < 300)) delete headers['content-type'];
  let body: string[] = [];
  let errorCode: string | undefined;
  if (/^\s*(<\?xml[^>]*>\s*)?<[A-Za-z]/.test(text)) {
    try {
      const doc = parseXml(text) as Record<string, unknown>;
      const error = doc.Error as Record<string, unknown> | undefined;
      if (error && typeof error === 'object') errorCode = String(error.Code ?? '');
      body = flatten(resultRoot(doc), '');
    } catch {
      body = [`(unparsed XML of ${text.length} bytes)`];
    }
  } else if (text.length) {
    body = [`(bytes) ${JSON.stringify(text.slice(0, 200))}`];
  }
  return { status: res.status, errorCode, headers, body: body.sort() };
}

function flatten(value: unknown, path: string): string[] {
  if (DROPPED_ELEMENTS.test(path)) return [];
  if (Array.isArray(value)) return value.flatMap((v) => flatten(v, path));
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([k]) => !k.startsWith('@_'));
    if (!entries.length) return [`${path}`];
    return entries.flatMap(([k, v]) => flatten(v, `${path}/${k}`));
  }
  if (OPAQUE_ELEMENTS.test(path)) return [`${path}=(${String(value) === '' ? 'empty' : 'value'})`];
  return [`${path}=${String(value)}`];
}

/** One way two answers differ: where, and the two sides in words. */
export interface Difference {
  /** `status`, `error-code`, `header:NAME`, `body`. */
  aspect: string;
  a: string;
  b: string;
}

export function differences(a: Normalized, b: Normalized): Difference[] {
  // Two statuses that differ say it all: the headers and body of each follow from its status.
  if (a.status !== b.status) {
    const said = (n: Normalized) => (n.errorCode ? `${n.status} ${n.errorCode}` : String(n.status));
    return [{ aspect: 'status', a: said(a), b: said(b) }];
  }
  const out: Difference[] = [];
  if ((a.errorCode ?? '') !== (b.errorCode ?? ''))
    out.push({ aspect: 'error-code', a: a.errorCode ?? '(none)', b: b.errorCode ?? '(none)' });
  for (const name of new Set([...Object.keys(a.headers), ...Object.keys(b.headers)])) {
    if (a.headers[name] !== b.headers[name]) {
      out.push({
        aspect: `header:${name}`,
        a: a.headers[name] ?? '(absent)',
        b: b.headers[name] ?? '(absent)',
      });
    }
  }
  if (a.body.join('\n') !== b.body.join('\n')) {
    const onlyA = a.body.filter((l) => !b.body.includes(l));
    const onlyB = b.body.filter((l) => !a.body.includes(l));
    out.push({
      aspect: 'body',
      a: onlyA.join('; ') || '(absent)',
      b: onlyB.join('; ') || '(absent)',
    });
  }
  return out;
}

/** How a JSON answer is reduced (normalizeJson). */
export interface JsonNormalizing {
  /** Keys whose values are a side's own (ids, clocks): compared by their kind only. */
  opaque: RegExp;
  /** Keys dropped with all they hold (messages, what two implementations need not share). */
  dropped: RegExp;
  /** Texts a side's answers hold that are the run's own (zone name, prefixes), with their placeholders. */
  names: [string, string][];
  /** JSON pointers left out (a listing's items and totals, where two accounts hold other things). */
  skip?: (path: string) => boolean;
  /** Rewrites the parsed document first (a listing's items narrowed to the run's own). */
  prepare?: (doc: unknown) => unknown;
}

/**
 * A JSON answer as sorted path=value lines: opaque values as their kind, the run's names as
 * placeholders, error messages dropped (codes kept, as `errorCode`).
 */
export function normalizeJson(res: StepResponse, how: JsonNormalizing): Normalized {
  let doc: unknown;
  try {
    doc = res.body.size ? JSON.parse(res.text()) : undefined;
  } catch {
    return { status: res.status, headers: {}, body: [`(not JSON, ${res.body.size} bytes)`] };
  }
  if (how.prepare) doc = how.prepare(doc);
  const errors = (doc as { errors?: { code?: unknown }[] } | undefined)?.errors;
  const errorCode =
    Array.isArray(errors) && errors.length ? errors.map((e) => String(e?.code)).join(',') : undefined;
  const lines: string[] = [];
  const walk = (v: unknown, path: string, key: string) => {
    if (how.dropped.test(key) || how.skip?.(path)) return;
    if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) walk(x, `${path}/${i}`, key);
      return;
    }
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, `${path}/${k}`, k);
      return;
    }
    if (how.opaque.test(key)) {
      lines.push(`${path}=(${v === null ? 'null' : typeof v})`);
      return;
    }
    let text = v;
    if (typeof v === 'string')
      for (const [name, as] of how.names) text = (text as string).split(name).join(as);
    lines.push(`${path}=${JSON.stringify(text)}`);
  };
  walk(doc, '', '');
  return { status: res.status, errorCode, headers: {}, body: lines.sort() };
}
