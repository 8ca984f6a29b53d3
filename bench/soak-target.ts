import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The target of the proxy soak, its own process (`node --import tsx bench/soak-target.ts`): answers
 * what everyday traffic gets, so that many passive checks select each exchange: a zone, a page of
 * zones with result_info, a missing key's 404 Error document, a one-byte range, a ListObjectsV2
 * page asked for with a prefix, a HEAD of a bucket. Prints its URL, then serves until killed.
 * An argument, in ms, delays every answer, as a target across a network would.
 */
const latencyMs = Number(process.argv[2] ?? 0);
// A whole zone, as zone.json requires: a zone read is held to it in passing.
const ZONE = readFileSync(new URL('../fixtures/management/zone.json', import.meta.url), 'utf8');

function zones(page: number): string {
  const result = Array.from({ length: 5 }, (_, i) => ({ id: `z${page}-${i}`, name: `zone${i}.example.com` }));
  return JSON.stringify({
    success: true,
    errors: [],
    messages: [],
    result,
    result_info: { page, per_page: 5, count: 5, total_count: 50, total_pages: 10 },
  });
}

const MISSING =
  '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>';

// An object's date, as GET and HEAD answer it and a listing gives it (ISO 8601).
const LAST_MODIFIED = 'Thu, 01 Jan 2026 00:00:00 GMT';

function listing(prefix: string): string {
  const keys = [0, 1, 2].map(
    (i) =>
      `<Contents><Key>${prefix}${i}</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><Size>1</Size><ETag>"c4ca4238a0b923820dcc509a6f75849b"</ETag></Contents>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name><Prefix>${prefix}</Prefix><KeyCount>3</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${keys.join('')}</ListBucketResult>`;
}

function answer(req: http.IncomingMessage, res: http.ServerResponse): http.ServerResponse {
  const url = new URL(req.url ?? '/', 'http://t');
  const send = (status: number, type: string, body: string, extra: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra });
    return res.end(req.method === 'HEAD' ? undefined : body);
  };
  if (url.pathname === '/client/v4/zones')
    return send(200, 'application/json', zones(Number(url.searchParams.get('page') ?? 1)));
  const zone = /^\/client\/v4\/zones\/([^/]+)$/.exec(url.pathname);
  // The zone asked for: its id is the path's.
  if (zone)
    return send(200, 'application/json', ZONE.replace('"id": "z"', `"id": ${JSON.stringify(zone[1])}`));
  if (url.pathname.startsWith('/client/v4/')) return send(200, 'application/json', ZONE);
  if (req.method === 'HEAD') return send(200, 'application/xml', '', { 'x-amz-bucket-region': 'auto' });
  if (url.searchParams.get('list-type') === '2')
    return send(200, 'application/xml', listing(url.searchParams.get('prefix') ?? ''));
  if (url.pathname.endsWith('/missing')) return send(404, 'application/xml', MISSING);
  if (req.headers.range === 'bytes=0-0')
    return send(206, 'application/octet-stream', 'h', {
      'content-range': 'bytes 0-0/14',
      etag: '"e"',
      'accept-ranges': 'bytes',
      'last-modified': LAST_MODIFIED,
    });
  return send(200, 'application/octet-stream', 'hello, passive', {
    etag: '"e"',
    'accept-ranges': 'bytes',
    'last-modified': LAST_MODIFIED,
  });
}

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => (latencyMs ? setTimeout(answer, latencyMs, req, res) : answer(req, res)));
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
