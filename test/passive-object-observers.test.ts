import { beforeAll, describe, expect, it } from 'vitest';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { LoadedSuites } from '../runner/load/suite.ts';
import { type ObservedExchange, PassiveJudge } from '../runner/passive/index.ts';
import { bufferBody, partBody } from '../runner/transports/response.ts';
import { compositeOf, partChecksumOf } from '../suites/s3/properties/support/checksums.ts';

// Legal variants of what the object and upload observers judge (another encoding's case, a quoted
// ETag, a header's case or order, another addressing), each beside the departure the same observer
// fails, so that a pass is not "never judges".

let suites: LoadedSuites;

interface Sent {
  method: string;
  target: string;
  status: number;
  body?: string | Buffer;
  headers?: Record<string, string>;
  requestHeaders?: Record<string, string>;
  requestBody?: string | Buffer;
  /** The request body was cut: only its first bytes were kept. */
  cut?: boolean;
}

const bytes = (b: string | Buffer | undefined) => (Buffer.isBuffer(b) ? b : Buffer.from(b ?? ''));

function exchange(s: Sent): ObservedExchange {
  const requestHeaders = { host: 'objects.example', ...s.requestHeaders };
  return {
    door: 's3',
    request: {
      method: s.method,
      target: s.target,
      headers: requestHeaders,
      ...(s.requestBody === undefined
        ? {}
        : {
            body: s.cut
              ? partBody(bytes(s.requestBody).subarray(0, 4), bytes(s.requestBody).length)
              : bufferBody(bytes(s.requestBody)),
          }),
    },
    response: { status: s.status, headers: s.headers ?? {}, body: bufferBody(bytes(s.body)) },
  };
}

/** The verdict each clause gets from these exchanges alone, in this order. */
function verdicts(...sent: Sent[]): Record<string, string> {
  const judge = new PassiveJudge(
    { clauses: suites.clauses.values(), properties: suites.properties },
    today(),
  );
  for (const s of sent) judge.observe(exchange(s));
  const out: Record<string, string> = {};
  for (const c of judge.cases()) for (const id of c.checks[0].clauses) out[id] = c.verdict;
  return out;
}

beforeAll(async () => {
  const areas = listAreas();
  suites = await loadSuites(areas, areas);
});

describe('s3.mpu.list-uploads-encoding in passing', () => {
  const listed = (...keys: string[]): Sent => ({
    method: 'GET',
    target: '/b?uploads&encoding-type=url',
    status: 200,
    headers: { 'content-type': 'application/xml' },
    body: `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>b</Bucket><EncodingType>url</EncodingType>${keys.map((k) => `<Upload><Key>${k}</Key><UploadId>u</UploadId></Upload>`).join('')}</ListMultipartUploadsResult>`,
  });
  const clause = 's3.mpu.list-uploads-encoding';

  it('keys encoded in lower-case hex, a space as + or %20, pass', () => {
    expect(verdicts(listed('caf%c3%a9+1.txt', 'caf%C3%A9%201.txt', 'plain'))[clause]).toBe('pass');
  });

  it('a key sent as stored fails, and so does a Latin-1 escape; a listing of no upload is not judged', () => {
    expect(verdicts(listed('café 1.txt'))[clause]).toBe('fail');
    expect(verdicts(listed('caf%E9'))[clause]).toBe('fail');
    expect(verdicts(listed())[clause]).toBeUndefined();
  });

  it('without encoding-type, keys as stored are not judged', () => {
    expect(verdicts({ ...listed('café 1.txt'), target: '/b?uploads' })[clause]).toBeUndefined();
  });
});

describe('s3.object.multipart-headers in passing', () => {
  const clause = 's3.object.multipart-headers';
  const etag = `"${'c'.repeat(32)}-1"`;
  const create: Sent = {
    method: 'POST',
    target: '/b/k.csv?uploads',
    status: 200,
    requestHeaders: {
      'content-type': 'text/csv;charset=UTF-8',
      'content-encoding': 'deflate, gzip',
      expires: 'Thu, 02 Jan 2031 03:04:05 GMT',
      'x-amz-meta-team': 'finance',
    },
    body: '<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k.csv</Key><UploadId>up-1</UploadId></InitiateMultipartUploadResult>',
  };
  const complete: Sent = {
    method: 'POST',
    target: '/b/k.csv?uploadId=up-1',
    status: 200,
    body: `<CompleteMultipartUploadResult><Key>k.csv</Key><ETag>&quot;${'c'.repeat(32)}-1&quot;</ETag></CompleteMultipartUploadResult>`,
  };
  const head = (headers: Record<string, string>, target = '/b/k.csv'): Sent => ({
    method: 'HEAD',
    target,
    status: 200,
    headers: { etag, ...headers },
  });
  const same = {
    'content-type': 'text/csv; charset=utf-8',
    'content-encoding': 'deflate,gzip',
    expires: 'Thursday, 02-Jan-31 03:04:05 GMT',
    'x-amz-meta-team': 'finance',
  };

  it('the headers as sent, spaced or cased otherwise, Expires in another date form, pass', () => {
    expect(verdicts(create, complete, head(same))[clause]).toBe('pass');
  });

  it('metadata left out fails, and so does a content header left out', () => {
    const { 'x-amz-meta-team': _, ...noMeta } = same;
    expect(verdicts(create, complete, head(noMeta))[clause]).toBe('fail');
    const { expires: __, ...noExpires } = same;
    expect(verdicts(create, complete, head(noExpires))[clause]).toBe('fail');
  });

  it('after a copy onto the object, another ETag, another host, or an upload never seen created: not judged', () => {
    const copy: Sent = {
      method: 'PUT',
      target: '/b/k.csv',
      status: 200,
      requestHeaders: { 'x-amz-copy-source': '/b/k.csv', 'x-amz-metadata-directive': 'REPLACE' },
    };
    expect(verdicts(create, complete, copy, head({}))[clause]).toBeUndefined();
    expect(verdicts(create, complete, head({ etag: `"${'d'.repeat(32)}-1"` }))[clause]).toBeUndefined();
    const elsewhere = head({}, '/b/k.csv');
    elsewhere.requestHeaders = { host: 'b.objects.example' };
    expect(verdicts(create, complete, elsewhere)[clause]).toBeUndefined();
    expect(verdicts(complete, head({}))[clause]).toBeUndefined();
  });
});

describe('s3.checksum.multipart-composite in passing', () => {
  const clause = 's3.checksum.multipart-composite';
  const bodies = ['first part, any size here', 'second'];
  const sums = bodies.map((b) => partChecksumOf('crc32c', Buffer.from(b))!);
  const composite = compositeOf('crc32c', sums)!;
  const create = (headers: Record<string, string> = {}): Sent => ({
    method: 'POST',
    target: '/b/big?uploads',
    status: 200,
    requestHeaders: { 'x-amz-checksum-algorithm': 'crc32c', ...headers },
    body: '<InitiateMultipartUploadResult><UploadId>up-2</UploadId></InitiateMultipartUploadResult>',
  });
  const part = (n: number, answered = sums[n - 1]!, cut = false): Sent => ({
    method: 'PUT',
    target: `/b/big?partNumber=${n}&uploadId=up-2`,
    status: 200,
    requestHeaders: { 'x-amz-checksum-crc32c': sums[n - 1]! },
    requestBody: bodies[n - 1],
    cut,
    headers: { etag: `"${n}"`, 'x-amz-checksum-crc32c': answered },
  });
  // Parts listed out of order: the composite is of them in part-number order.
  const complete = (answered: string): Sent => ({
    method: 'POST',
    target: '/b/big?uploadId=up-2',
    status: 200,
    requestBody:
      '<CompleteMultipartUpload><Part><PartNumber>2</PartNumber><ETag>2</ETag></Part><Part><PartNumber>1</PartNumber><ETag>"1"</ETag></Part></CompleteMultipartUpload>',
    body: `<CompleteMultipartUploadResponse><ETag>"e-2"</ETag><ChecksumCRC32C>${answered}</ChecksumCRC32C></CompleteMultipartUploadResponse>`,
  });
  const head = (answered: string): Sent => ({
    method: 'HEAD',
    target: '/b/big',
    status: 200,
    requestHeaders: { 'x-amz-checksum-mode': 'enabled' },
    headers: { etag: 'W/"e-2"', 'x-amz-checksum-crc32c': answered },
  });

  it('parts sent in any order, listed out of order, a result named ...Response, a weak ETag on HEAD: pass', () => {
    expect(verdicts(create(), part(2), part(1), complete(composite), head(composite))[clause]).toBe('pass');
  });

  it('a composite without -N fails, and so does one of the parts in listed order, or a HEAD without it', () => {
    const bare = composite.replace(/-2$/, '');
    expect(verdicts(create(), part(1), part(2), complete(bare))[clause]).toBe('fail');
    const listedOrder = compositeOf('crc32c', [sums[1]!, sums[0]!])!;
    expect(verdicts(create(), part(1), part(2), complete(listedOrder))[clause]).toBe('fail');
    expect(verdicts(create(), part(1), part(2), complete(composite), head(''))[clause]).toBe('fail');
    expect(verdicts(create(), part(1, sums[1]))[clause]).toBe('fail');
  });

  it('a part whose body was cut, or a full-object checksum, leaves the Complete unjudged', () => {
    expect(verdicts(create(), part(1, sums[0], true), part(2), complete('x'))[clause]).toBe('pass');
    const whole = create({ 'x-amz-checksum-type': 'FULL_OBJECT' });
    expect(verdicts(whole, part(1), part(2), complete('x'))[clause]).toBeUndefined();
  });
});

describe('s3.put.aws-chunked-not-streaming in passing', () => {
  const clause = 's3.put.aws-chunked-not-streaming';
  const body = 'plain bytes, no chunks';
  const etag = '"bb9d84524e703bf8af7912aacd427185"';
  const put = (coding: string, headers: Record<string, string> = {}, status = 200): Sent => ({
    method: 'PUT',
    target: '/b/coded.bin',
    status,
    requestHeaders: { 'content-encoding': coding, 'content-length': String(body.length), ...headers },
    requestBody: body,
    headers: status === 200 ? { etag } : {},
    body: status === 200 ? '' : '<Error><Code>IncompleteBody</Code></Error>',
  });
  const get = (coding: string | undefined, answered = body): Sent => ({
    method: 'GET',
    target: '/b/coded.bin',
    status: 200,
    headers: { etag: etag.replace(/^"|"$/g, ''), ...(coding ? { 'content-encoding': coding } : {}) },
    body: answered,
  });

  it('codings kept in order, spaced or cased otherwise, an unquoted ETag, aws-chunked alone keeping none: pass', () => {
    expect(verdicts(put('GZIP , AWS-Chunked'), get('gzip'))[clause]).toBe('pass');
    expect(verdicts(put('aws-chunked,deflate, gzip'), get('deflate,gzip'))[clause]).toBe('pass');
    expect(verdicts(put('aws-chunked'), get(undefined))[clause]).toBe('pass');
  });

  it('aws-chunked kept fails, and so do other bytes, and a whole body refused as cut short', () => {
    expect(verdicts(put('gzip, aws-chunked'), get('gzip, aws-chunked'))[clause]).toBe('fail');
    expect(verdicts(put('gzip, aws-chunked'), get('gzip', 'plain'))[clause]).toBe('fail');
    expect(verdicts(put('gzip, aws-chunked', {}, 400))[clause]).toBe('fail');
  });

  it('a streaming-signed upload, a body not kept whole, or a write since: not judged', () => {
    const streaming = put('gzip, aws-chunked', {
      'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
    });
    expect(verdicts(streaming, get('gzip, aws-chunked'))[clause]).toBeUndefined();
    expect(verdicts({ ...put('gzip, aws-chunked', {}, 400), cut: true })[clause]).toBeUndefined();
    const again: Sent = { ...put('gzip'), requestHeaders: { 'content-encoding': 'gzip' } };
    expect(verdicts(put('aws-chunked'), again, get('gzip'))[clause]).toBeUndefined();
  });
});

describe('s3.copy.onto-itself in passing', () => {
  const clause = 's3.copy.onto-itself';
  const copy = (
    source: string,
    headers: Record<string, string> = {},
    status = 200,
    host = '127.0.0.1:9000',
  ): Sent => ({
    method: 'PUT',
    target: '/b/self%20copy.txt',
    status,
    requestHeaders: { host, 'x-amz-copy-source': source, ...headers },
    body:
      status === 200
        ? '<CopyObjectResult><ETag>"e"</ETag></CopyObjectResult>'
        : '<Error><Code>InvalidRequest</Code></Error>',
  });

  it('a self-copy accepted fails, its source encoded or not, with or without its slash, at localhost too', () => {
    expect(verdicts(copy('/b/self%20copy.txt'))[clause]).toBe('fail');
    expect(verdicts(copy('b/self copy.txt'))[clause]).toBe('fail');
    expect(
      verdicts(copy('/b/self%20copy.txt', { 'x-amz-metadata-directive': 'COPY' }, 200, 'localhost:9000'))[
        clause
      ],
    ).toBe('fail');
  });

  it('refused, with REPLACE, of a version, changing the storage class, or answered an Error in a 200: not judged', () => {
    expect(verdicts(copy('/b/self%20copy.txt', {}, 400))[clause]).toBeUndefined();
    expect(
      verdicts(copy('/b/self%20copy.txt', { 'x-amz-metadata-directive': 'replace' }))[clause],
    ).toBeUndefined();
    expect(verdicts(copy('/b/self%20copy.txt?versionId=v1'))[clause]).toBeUndefined();
    expect(
      verdicts(copy('/b/self%20copy.txt', { 'x-amz-storage-class': 'STANDARD_IA' }))[clause],
    ).toBeUndefined();
    const failedLate = { ...copy('/b/self%20copy.txt'), body: '<Error><Code>InternalError</Code></Error>' };
    expect(verdicts(failedLate)[clause]).toBeUndefined();
    expect(verdicts(copy('/b/other.txt'))[clause]).toBeUndefined();
  });

  it('under a Host that may name the bucket (virtual-hosted), the path may be a key: not judged', () => {
    expect(verdicts(copy('/b/self%20copy.txt', {}, 200, 'b.objects.example'))[clause]).toBeUndefined();
    expect(verdicts(copy('/b/b/self%20copy.txt', {}, 200, 'b.objects.example'))[clause]).toBeUndefined();
  });
});
