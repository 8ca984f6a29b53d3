/**
 * XML 1.0 allows neither most control characters nor lone surrogates, even escaped: drop them
 * before the builder escapes markup, or CI parsers reject the whole report.
 */
export function xmlSafe(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    '',
  );
}

/** Attribute values: one line, since parsers fold newlines in attributes into spaces anyway. */
export function xmlAttr(text: string): string {
  return xmlSafe(text).replace(/\s+/g, ' ').trim();
}
