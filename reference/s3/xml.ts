import { createRequire } from 'node:module';

// The CommonJS bundle, one file: the package's ES modules are forty files, eight times the CPU to load.
const { XMLBuilder, XMLParser, XMLValidator } = createRequire(import.meta.url)(
  'fast-xml-parser',
) as typeof import('fast-xml-parser');

export const S3_XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  suppressEmptyNode: false,
});

// Values stay strings and keep their spaces: keys such as " a " or "0001" must survive (DeleteObjects, CORS).
const parser = new XMLParser({
  ignoreAttributes: true,
  ignoreDeclaration: true,
  parseTagValue: false,
  trimValues: false,
  removeNSPrefix: true,
  // Numeric character references (Go's encoder writes &#34; for quotes in ETags).
  htmlEntities: true,
});

/** Renders `{ Root: {...} }` with an XML declaration; arrays become repeated elements. */
export function renderXml(doc: Record<string, unknown>): string {
  return DECLARATION + builder.build(doc);
}

/** Parses a request document; throws on anything that is not well-formed XML. */
export function parseXml(text: string, rejectDeclaration = false): Record<string, unknown> {
  const trimmed = text.trim();
  if (!trimmed.startsWith('<')) throw new Error('not XML');
  if (rejectDeclaration && trimmed.startsWith('<?xml')) throw new Error('XML declaration');
  const valid = XMLValidator.validate(trimmed);
  if (valid !== true) throw new Error('not well-formed');
  return parser.parse(trimmed) as Record<string, unknown>;
}

/** One element or a repeated element, always as an array. */
export function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** Text content of an element that may carry whitespace around structure. */
export function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && '#text' in (value as object))
    return String((value as { '#text': unknown })['#text']);
  return undefined;
}
