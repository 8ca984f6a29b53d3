import { decodeXmlEntities, XMLParser } from 'edgecheck/kit';

// Keys may begin or end with spaces, so text is never trimmed; list elements are always arrays.
const parser = new XMLParser({
  processEntities: false,
  tagValueProcessor: (_name, value) => decodeXmlEntities(value),
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: false,
  isArray: (name) => ['Contents', 'CommonPrefixes', 'Bucket', 'Upload', 'Part'].includes(name),
  // No callback reads the element's path: without this the parser writes it out for every element.
  jPath: false,
});

export function parseXml(text: string): Record<string, any> {
  return parser.parse(text) as Record<string, any>;
}

/**
 * The content of a success answer's root element `name`, or of its `...Response` twin: the AWS
 * SDKs read the children and never the root's name (`CompleteMultipartUploadResponse` parses as
 * `CompleteMultipartUploadResult` does), and no clause states the suffix. Undefined for any other
 * root (an Error, another operation's answer) or a body that is not XML.
 */
export function xmlResult(text: string, name: string): Record<string, any> | undefined {
  let doc: Record<string, any>;
  try {
    doc = parseXml(text);
  } catch {
    return undefined;
  }
  const content = doc[name] ?? doc[name.replace(/Result$/, 'Response')];
  if (content === undefined) return undefined;
  return content && typeof content === 'object' ? content : {};
}

export interface ListPage {
  keys: string[];
  /** Each key's LastModified as sent, in the order of keys ('' where it has none). */
  modified: string[];
  prefixes: string[];
  isTruncated: boolean;
  keyCount?: number;
  maxKeys?: number;
  nextToken?: string;
  token?: string;
  nextMarker?: string;
  /** Each key's Owner ID in the order of keys: undefined where it has no Owner, '' where its Owner has no ID. */
  owners?: (string | undefined)[];
  /** The request's parameters as the page echoes them, as sent (encoded where encoding-type url was asked for). */
  echoes: ListEchoes;
}

/** The elements of a listing that echo its request: Prefix, Delimiter, Marker (V1), StartAfter (V2). */
export interface ListEchoes {
  Prefix?: string;
  Delimiter?: string;
  Marker?: string;
  StartAfter?: string;
}

const text = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));

/** A ListObjects / ListObjectsV2 answer, as the fields the listing rules speak of. */
export function parseListPage(body: string): ListPage {
  const doc = xmlResult(body, 'ListBucketResult');
  if (!doc || typeof doc !== 'object') throw new Error(`not a ListBucketResult: ${body.slice(0, 120)}`);
  const num = (v: unknown) => (v === undefined ? undefined : Number(v));
  return {
    keys: (doc.Contents ?? []).map((c: any) => String(c.Key ?? '')),
    modified: (doc.Contents ?? []).map((c: any) => String(c.LastModified ?? '')),
    prefixes: (doc.CommonPrefixes ?? []).map((c: any) => String(c.Prefix ?? '')),
    isTruncated: String(doc.IsTruncated) === 'true',
    keyCount: num(doc.KeyCount),
    maxKeys: num(doc.MaxKeys),
    nextToken: text(doc.NextContinuationToken),
    token: text(doc.ContinuationToken),
    nextMarker: text(doc.NextMarker),
    owners: (doc.Contents ?? []).map((c: any) =>
      c.Owner === undefined ? undefined : String(c.Owner?.ID ?? '').trim(),
    ),
    echoes: {
      Prefix: text(doc.Prefix),
      Delimiter: text(doc.Delimiter),
      Marker: text(doc.Marker),
      StartAfter: text(doc.StartAfter),
    },
  };
}
