/** SPEC behaviour 8: PutObject infers Content-Type from the body when the request gives none. */
const SIGNATURES: [prefix: number[], type: string][] = [
  [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/png'],
  [[0xff, 0xd8, 0xff], 'image/jpeg'],
  [[0x47, 0x49, 0x46, 0x38], 'image/gif'],
  [[0x25, 0x50, 0x44, 0x46, 0x2d], 'application/pdf'],
  [[0x1f, 0x8b], 'application/gzip'],
  [[0x50, 0x4b, 0x03, 0x04], 'application/zip'],
  [[0x42, 0x4d], 'image/bmp'],
];

export function sniffContentType(head: Buffer): string {
  if (head.length === 0) return 'application/octet-stream';
  for (const [prefix, type] of SIGNATURES) {
    if (head.length >= prefix.length && prefix.every((b, i) => head[i] === b)) return type;
  }
  if (
    head.length >= 12 &&
    head.toString('latin1', 0, 4) === 'RIFF' &&
    head.toString('latin1', 8, 12) === 'WEBP'
  ) {
    return 'image/webp';
  }
  if (!isText(head)) return 'application/octet-stream';
  const start = head.toString('utf8').trimStart().slice(0, 64).toLowerCase();
  if (start.startsWith('<?xml')) return 'application/xml';
  if (start.startsWith('<!doctype html') || start.startsWith('<html')) return 'text/html; charset=utf-8';
  if (start.startsWith('{') || start.startsWith('[')) return 'application/json';
  return 'text/plain; charset=utf-8';
}

/** UTF-8 without control characters other than tab, CR and LF (a cut multi-byte tail is allowed). */
function isText(head: Buffer): boolean {
  for (const b of head) if (b < 0x09 || (b > 0x0d && b < 0x20) || b === 0x7f) return false;
  const text = head.toString('utf8');
  const bad = text.indexOf('\ufffd');
  return bad < 0 || bad >= text.length - 3;
}

const EXTENSIONS: Record<string, string> = {
  txt: 'text/plain; charset=utf-8',
  html: 'text/html; charset=utf-8',
  json: 'application/json',
  xml: 'application/xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  pdf: 'application/pdf',
};

/** The type a key's extension suggests (a wrong way to infer it: SPEC says from the body). */
export function extensionContentType(key: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(key)?.[1]?.toLowerCase();
  return (ext && EXTENSIONS[ext]) || 'application/octet-stream';
}
