import type { XMLParser } from 'fast-xml-parser';
import { TargetError } from './errors.ts';
import { fastXml } from './packages.ts';

/*
 * XML answers as documents: what a transport reads an answer with, and what the matchers walk
 * (runner/match/xml.ts). A leaf, so transports need not reach up into the matchers.
 */

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };

/**
 * XML's own entities and character references (`&#x27;`, `&#39;`), decoded in one pass, as an XML
 * parser must: fast-xml-parser leaves character references as they are unless told to decode
 * HTML's entities too (which XML does not define), and decoding `&amp;` first would turn a key's
 * literal `&#39;` into a quote.
 */
export function decodeXmlEntities(text: string): string {
  return text.replace(/&(?:#x([0-9a-fA-F]+)|#([0-9]+)|(lt|gt|amp|apos|quot));/g, (whole, hex, dec, name) => {
    const code = hex ? Number.parseInt(hex, 16) : dec ? Number(dec) : undefined;
    if (code === undefined) return NAMED[name];
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

let parser: XMLParser | undefined;

// Every element parses as an array, so a path means the same whether an element occurs once or many times.
function xmlParser(): XMLParser {
  parser ??= new (fastXml().XMLParser)({
    processEntities: false,
    tagValueProcessor: (_name, value) => decodeXmlEntities(value),
    attributeValueProcessor: (_name, value) => decodeXmlEntities(value),
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    ignoreDeclaration: true,
    isArray: (_name, _jpath, _leaf, isAttribute) => !isAttribute,
    // No callback reads the element's path: without this the parser writes it out for every element.
    jPath: false,
  });
  return parser;
}

export function parseXml(text: string): unknown {
  // Text that does not even begin as XML is shown as it is, not as the validator's "char 'x' is not expected".
  if (!/^\uFEFF?\s*</.test(text))
    throw new TargetError(`body is not XML: ${JSON.stringify(text.slice(0, 80))}`);
  const valid = fastXml().XMLValidator.validate(text);
  if (valid !== true) {
    throw new TargetError(`body is not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`);
  }
  return xmlParser().parse(text);
}
