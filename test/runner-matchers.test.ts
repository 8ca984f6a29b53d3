import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateBuffer, generateStream } from '../runner/data/generate.ts';
import { evaluateCheck } from '../runner/match/check.ts';
import { getPointer } from '../runner/match/pointer.ts';
import { ABSENT, match } from '../runner/match/value.ts';
import { getXmlPath, parseXml } from '../runner/match/xml.ts';
import type { CheckDef } from '../runner/model/case.ts';
import { collectBody, StepResponse } from '../runner/transports/response.ts';
import { CheckFailure, TargetError } from '../runner/util/errors.ts';
import { jsonResponse, responseOf } from './helpers/engine-response.ts';

const holds = (expected: unknown, actual: unknown) => match(expected, actual) === undefined;

describe('literal values', () => {
  it('a literal object matches as a subset: extra keys are ignored, missing or different ones fail', () => {
    expect(holds({ a: 1 }, { a: 1, b: 2 })).toBe(true);
    expect(holds({ a: { b: 1 } }, { a: { b: 1, c: 3 }, d: 4 })).toBe(true);
    expect(match({ a: 1, z: 2 }, { a: 1 })).toMatchObject({ at: '/z', message: 'expected 2, found nothing' });
    expect(match({ a: { b: 1 } }, { a: { b: 2 } })).toMatchObject({
      at: '/a/b',
      message: 'expected 1, found 2',
      expected: 1,
      actual: 2,
    });
    expect(holds({ a: 1 }, [1])).toBe(false);
    expect(holds({}, null)).toBe(false);
  });

  it('a literal array matches exactly: same length, in order', () => {
    expect(holds([1, 2], [1, 2])).toBe(true);
    expect(match([1, 2], [1, 2, 3])?.message).toBe('expected 2 elements, found 3');
    expect(match([1, 2], [2, 1])).toMatchObject({ at: '/0', message: 'expected 1, found 2' });
    expect(holds([{ a: 1 }], [{ a: 1, b: 2 }])).toBe(true); // elements are still subsets
    expect(match([1], { 0: 1 })?.message).toBe('expected an array, found {"0":1}');
  });

  it('scalars match strictly: "3" is not 3, false is not 0, null is not absent', () => {
    expect(holds(3, 3)).toBe(true);
    expect(match('3', 3)?.message).toBe('expected "3", found 3');
    expect(holds(3, '3')).toBe(false);
    expect(holds(false, 0)).toBe(false);
    expect(holds(null, null)).toBe(true);
    expect(match(null, ABSENT)?.message).toBe('expected null, found nothing');
  });

  it('subset semantics hold for any JSON value (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (a, b) => {
          const literal = (v: unknown) => !JSON.stringify(v).includes('"$'); // `$` keys are operators
          fc.pre(literal(a) && literal(b));
          const merged = { ...b, ...a };
          // Every value matches itself, and a sub-object matches any object that contains it.
          expect(match(merged, merged)).toBeUndefined();
          expect(match(a, merged)).toBeUndefined();
          // Changing one expected key to a value that is not there makes it fail.
          const keys = Object.keys(a);
          if (keys.length) {
            const changed = { ...a, [keys[0]]: { unlikely: [merged[keys[0]]] } };
            expect(match(changed, merged)).toBeDefined();
          }
        },
      ),
      { numRuns: 100, seed: 7 },
    );
  });
});

describe('value operators', () => {
  const cases: { op: string; expected: unknown; pass: unknown[]; fail: unknown[] }[] = [
    { op: '$equals', expected: { $equals: { a: 1 } }, pass: [{ a: 1 }], fail: [{ a: 1, b: 2 }, ABSENT] },
    {
      op: '$equals (array)',
      expected: { $equals: [1, 2] },
      pass: [[1, 2]],
      fail: [
        [2, 1],
        [1, 2, 3],
      ],
    },
    {
      op: '$matches',
      expected: { $matches: '^[0-9a-f]{32}$' },
      pass: ['0123456789abcdef0123456789abcdef'],
      fail: ['xyz', 42, ABSENT],
    },
    { op: '$present', expected: { $present: true }, pass: ['', 0, null, false], fail: [ABSENT] },
    { op: '$present: false', expected: { $present: false }, pass: [ABSENT], fail: ['x'] },
    { op: '$exists', expected: { $exists: true }, pass: [0], fail: [ABSENT] },
    { op: '$absent', expected: { $absent: true }, pass: [ABSENT], fail: [null, 'x'] },
    { op: '$absent: false', expected: { $absent: false }, pass: ['x'], fail: [ABSENT] },
    {
      op: '$contains (string)',
      expected: { $contains: 'ell' },
      pass: ['hello'],
      fail: ['help', ['hello'], ABSENT], // in an array, elements match whole, not as substrings
    },
    {
      op: '$contains (array)',
      expected: { $contains: { id: 2 } },
      pass: [[{ id: 1 }, { id: 2, x: 0 }]],
      fail: [[{ id: 1 }], []],
    },
    { op: '$oneOf', expected: { $oneOf: [200, 204] }, pass: [200, 204], fail: [201, '200', ABSENT] },
    { op: '$length', expected: { $length: 2 }, pass: [[1, 2], 'ab'], fail: [[1], 'abc', 2, ABSENT] },
    { op: '$length with an operator', expected: { $length: { $gte: 1 } }, pass: [[0]], fail: [[]] },
    { op: '$gt', expected: { $gt: 5 }, pass: [6, '6'], fail: [5, 'x', ABSENT] },
    { op: '$gte', expected: { $gte: 5 }, pass: [5, 6], fail: [4] },
    { op: '$lt', expected: { $lt: 5 }, pass: [4], fail: [5] },
    { op: '$lte', expected: { $lte: 5 }, pass: [5], fail: [6, null] },
    { op: '$type string', expected: { $type: 'string' }, pass: [''], fail: [1, null] },
    { op: '$type integer', expected: { $type: 'integer' }, pass: [3], fail: [3.5, '3'] },
    { op: '$type number', expected: { $type: 'number' }, pass: [3, 3.5], fail: ['3'] },
    { op: '$type boolean', expected: { $type: 'boolean' }, pass: [false], fail: [0] },
    { op: '$type array', expected: { $type: 'array' }, pass: [[]], fail: [{}] },
    { op: '$type object', expected: { $type: 'object' }, pass: [{}], fail: [[]] },
    { op: '$type null', expected: { $type: 'null' }, pass: [null], fail: [ABSENT, 0] },
    {
      op: '$schema',
      expected: { $schema: 'error.json' },
      pass: [{ code: 1003, message: 'bad' }],
      fail: [{ code: '1003', message: 'bad' }, { code: 1 }],
    },
    { op: '$not', expected: { $not: { $contains: 'x' } }, pass: ['abc'], fail: ['xyz'] },
    { op: '$not literal', expected: { $not: 3 }, pass: [4, '3'], fail: [3] },
    {
      op: '$anyOrder',
      expected: { $anyOrder: [1, 2, { a: 1 }] },
      pass: [[{ a: 1, b: 0 }, 2, 1]],
      fail: [
        [1, 2],
        [1, 2, 3],
        [1, 1, { a: 1 }],
      ],
    },
    { op: '$each', expected: { $each: { $type: 'integer' } }, pass: [[1, 2], []], fail: [[1, 'x'], 'x'] },
    {
      op: '$sorted asc',
      expected: { $sorted: 'asc' },
      pass: [
        ['a', 'b', 'b'],
        [1, 2],
      ],
      fail: [['b', 'a'], 'ab'],
    },
    { op: '$sorted desc', expected: { $sorted: 'desc' }, pass: [[3, 2, 2]], fail: [[1, 2]] },
    {
      op: '$sorted by',
      expected: { $sorted: { by: '/name', direction: 'asc' } },
      pass: [[{ name: 'a' }, { name: 'c' }]],
      fail: [[{ name: 'c' }, { name: 'a' }]],
    },
    {
      op: 'several operators',
      expected: { $type: 'string', $length: 3, $matches: '^a' },
      pass: ['abc'],
      fail: ['abcd', 'xbc'],
    },
  ];

  for (const c of cases) {
    it(`${c.op} holds and fails as documented`, () => {
      for (const v of c.pass)
        expect(
          match(c.expected, v),
          `${JSON.stringify(c.expected)} vs ${String(JSON.stringify(v))}`,
        ).toBeUndefined();
      for (const v of c.fail)
        expect(
          match(c.expected, v),
          `${JSON.stringify(c.expected)} vs ${String(JSON.stringify(v))}`,
        ).toBeDefined();
    });
  }

  it('messages say what was expected and what was found', () => {
    expect(match({ $matches: '^a' }, 'b')?.message).toBe('expected a string matching /^a/, found "b"');
    expect(match({ $gt: 5 }, 5)?.message).toBe('expected gt 5, found 5');
    expect(match({ $absent: true }, 'x')?.message).toBe('expected nothing, found "x"');
    expect(match({ $oneOf: [1, 2] }, 3)?.message).toBe('expected one of [1,2], found 3');
    expect(match({ $sorted: 'asc' }, [2, 1])?.message).toBe('expected sorted asc; 2 comes before 1');
    expect(match({ $schema: 'error.json' }, { code: 1 })?.message).toMatch(
      /^does not match schema error\.json: .*message/,
    );
    expect(match({ $each: { $gt: 0 } }, [1, 0])).toMatchObject({ at: '/1' });
  });
});

describe('JSON pointers', () => {
  const doc = { result: [{ id: 'a', 'x/y': 1, 't~': 2 }], empty: '' };
  it('walk objects and arrays, unescape ~1 and ~0, "" is the whole value', () => {
    expect(getPointer(doc, '')).toBe(doc);
    expect(getPointer(doc, '/result/0/id')).toBe('a');
    expect(getPointer(doc, '/result/0/x~1y')).toBe(1);
    expect(getPointer(doc, '/result/0/t~0')).toBe(2);
    expect(getPointer(doc, '/empty')).toBe('');
  });
  it('are ABSENT for a missing key, an index out of range, a non-index on an array, or no leading slash', () => {
    expect(getPointer(doc, '/nope')).toBe(ABSENT);
    expect(getPointer(doc, '/result/1')).toBe(ABSENT);
    expect(getPointer(doc, '/result/x')).toBe(ABSENT);
    expect(getPointer(doc, 'result')).toBe(ABSENT);
    expect(getPointer(doc, '/empty/length')).toBe(ABSENT);
  });
});

describe('XML paths', () => {
  const doc = parseXml(
    `<?xml version="1.0"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name>` +
      `<KeyCount>2</KeyCount><Contents><Key>a</Key><Size>1</Size></Contents><Contents><Key>b</Key><Size>22</Size></Contents>` +
      `<Owner id="o1"><DisplayName>me</DisplayName></Owner></ListBucketResult>`,
  );
  it('a name picks the first element; text is a string', () => {
    expect(getXmlPath(doc, '/ListBucketResult/Name')).toBe('b');
    expect(getXmlPath(doc, '/ListBucketResult/KeyCount')).toBe('2');
    expect(getXmlPath(doc, '/ListBucketResult/Contents/Key')).toBe('a');
  });
  it('an index picks the n-th repeated element', () => {
    expect(getXmlPath(doc, '/ListBucketResult/Contents/1/Key')).toBe('b');
    expect(getXmlPath(doc, '/ListBucketResult/Contents/2/Key')).toBe(ABSENT);
  });
  it('* maps over every element; over none it is []', () => {
    expect(getXmlPath(doc, '/ListBucketResult/Contents/*/Key')).toEqual(['a', 'b']);
    expect(getXmlPath(doc, '/ListBucketResult/CommonPrefixes/*/Prefix')).toEqual([]);
  });
  it('a first * is the root whatever its name; an empty root reads as ""', () => {
    expect(getXmlPath(doc, '/*/Name')).toBe('b');
    expect(getXmlPath(doc, '/*/Contents/*/Key')).toEqual(['a', 'b']);
    const empty = parseXml('<?xml version="1.0"?><GetBucketVersioningResponse xmlns="x"/>');
    expect(getXmlPath(empty, '/*')).toEqual({ '@xmlns': 'x' });
    expect(getXmlPath(parseXml('<VersioningConfiguration></VersioningConfiguration>'), '/*')).toBe('');
    expect(getXmlPath(parseXml('<A><B>1</B></A>'), '/*/C')).toBe(ABSENT);
  });
  it('$keys matches the names an element holds, attributes and text left out', () => {
    const root = getXmlPath(doc, '/*');
    expect(
      match({ $keys: { $each: { $oneOf: ['Name', 'KeyCount', 'Contents', 'Owner'] } } }, root),
    ).toBeUndefined();
    const m = match({ $keys: { $each: { $oneOf: ['Status', 'MfaDelete'] } } }, root);
    expect(m?.message).toMatch(/found \["Name","KeyCount","Contents","Owner"\]/);
    expect(match({ $keys: [] }, '')).toBeUndefined();
    expect(match({ $keys: [] }, { '@xmlns': 'x', '#text': '\n' })).toBeUndefined();
    expect(match({ $keys: { $length: 0 } }, 'Enabled')?.message).toMatch(/expected an object or element/);
    expect(match({ $keys: [] }, ABSENT)?.message).toMatch(/found nothing/);
  });
  it("#text reads an element's text, with attributes or without, and is ABSENT where it has none", () => {
    const text = (xml: string) => getXmlPath(parseXml(xml), '/LocationConstraint/#text');
    expect(text('<LocationConstraint xmlns="x">auto</LocationConstraint>')).toBe('auto');
    expect(text('<LocationConstraint>auto</LocationConstraint>')).toBe('auto');
    expect(text('<LocationConstraint xmlns="x"/>')).toBe(ABSENT);
    expect(text('<LocationConstraint></LocationConstraint>')).toBe(ABSENT);
  });
  it('@attr reads an attribute', () => {
    expect(getXmlPath(doc, '/ListBucketResult/Owner/@id')).toBe('o1');
    expect(getXmlPath(doc, '/ListBucketResult/Owner/@nope')).toBe(ABSENT);
  });
  it('a missing element is ABSENT', () => {
    expect(getXmlPath(doc, '/ListBucketResult/IsTruncated')).toBe(ABSENT);
    expect(getXmlPath(doc, '/Error/Code')).toBe(ABSENT);
  });
  it('XML that is not well-formed is a TargetError, not a failure', () => {
    expect(() => parseXml('<a><b></a>')).toThrow(TargetError);
  });
  it('character references and XML entities are decoded once, as an XML parser must', () => {
    const doc = parseXml(
      '<ListBucketResult><Key>it&#x27;s &#39;&amp;#39; &lt;&#x1F600;&gt;</Key><O a="&quot;x&#34;"/></ListBucketResult>',
    );
    expect(getXmlPath(doc, '/ListBucketResult/Key')).toBe("it's '&#39; <\u{1F600}>");
    expect(getXmlPath(doc, '/ListBucketResult/O/@a')).toBe('"x"');
  });
  it('a ...Result root is also read under its ...Response name, as the AWS SDKs read it; no other name', () => {
    const moto = parseXml(
      '<CompleteMultipartUploadResponse xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Key>k</Key>' +
        '<ETag>"e-2"</ETag></CompleteMultipartUploadResponse>',
    );
    expect(getXmlPath(moto, '/CompleteMultipartUploadResult/ETag')).toBe('"e-2"');
    expect(getXmlPath(moto, '/CompleteMultipartUploadResponse/Key')).toBe('k');
    expect(getXmlPath(moto, '/Error/Code')).toBe(ABSENT);
    const error = parseXml('<Error><Code>NoSuchKey</Code></Error>');
    expect(getXmlPath(error, '/CopyObjectResult/ETag')).toBe(ABSENT);
    expect(getXmlPath(error, '/Error/Code')).toBe('NoSuchKey');
    const listing = parseXml('<ListBucketResult><Name>b</Name></ListBucketResult>');
    expect(getXmlPath(listing, '/VersioningConfiguration')).toBe(ABSENT);
  });
});

/** Runs evaluateCheck; 'pass', or the failure message, or `error: ...` for a TargetError. */
function judge(
  check: Omit<CheckDef, 'clauses' | 'origin'>,
  res: Awaited<ReturnType<typeof responseOf>>,
): string {
  try {
    evaluateCheck({ clauses: ['x.y'], origin: 'test', ...check }, res);
    return 'pass';
  } catch (err) {
    if (err instanceof CheckFailure) return err.message;
    if (err instanceof TargetError) return `error: ${err.message}`;
    throw err;
  }
}

describe('evaluateCheck', () => {
  it('status: a number or a value matcher', async () => {
    const res = await jsonResponse(404, {});
    expect(judge({ status: 404 }, res)).toBe('pass');
    expect(judge({ status: { $gte: 400, $lt: 500 } }, res)).toBe('pass');
    expect(judge({ status: 200 }, res)).toBe('status: expected 200, got 404');
    expect(judge({ status: { $oneOf: [200, 204] } }, res)).toBe(
      'status: expected {"$oneOf":[200,204]}, got 404',
    );
  });

  it('headers: names case-insensitive, a literal must equal, $absent for a header that must not be there', async () => {
    const res = await responseOf(200, { etag: '"abc"', 'content-length': '0' });
    expect(judge({ headers: { ETag: '"abc"' } }, res)).toBe('pass');
    expect(judge({ headers: { 'Content-Length': 0 } }, res)).toBe('pass'); // numbers compare as header text
    expect(judge({ headers: { etag: 'abc' } }, res)).toBe('header etag: expected "abc", found "\\"abc\\""');
    expect(judge({ headers: { 'x-missing': { $absent: true } } }, res)).toBe('pass');
    expect(judge({ headers: { 'x-missing': 'v' } }, res)).toBe(
      'header x-missing: expected "v", found nothing',
    );
    expect(judge({ headers: { ETag: { $absent: true } } }, res)).toBe(
      'header etag: expected nothing, found "\\"abc\\""',
    );
  });

  it('json: pointers into the body, "" for the whole; a body that is not JSON is an error', async () => {
    const res = await jsonResponse(200, { success: true, result: [{ id: 'a' }] });
    expect(judge({ json: { '/success': true, '/result/0': { id: 'a' } } }, res)).toBe('pass');
    expect(judge({ json: { '': { success: true } } }, res)).toBe('pass');
    expect(judge({ json: { '/result': { $length: 2 } } }, res)).toBe(
      'json at /result: expected length 2, found 1',
    );
    // What a pointer that found nothing found instead, at the point where it stopped.
    const record = await jsonResponse(200, { result: { data: { priority: 10, weight: 5 } }, errors: null });
    expect(judge({ json: { '/result/data': { priority: 10, port: 5060 } } }, record)).toBe(
      'json at /result/data/port: expected 5060, found nothing: /result/data has no "port" (its keys: priority, weight)',
    );
    expect(judge({ json: { '/errors/0/code': 1003 } }, record)).toBe(
      'json at /errors/0/code: expected 1003, found nothing: /errors is null',
    );
    expect(judge({ json: { '/result/data/priority/x': 1 } }, record)).toBe(
      'json at /result/data/priority/x: expected 1, found nothing: /result/data/priority is a number',
    );
    expect(judge({ json: { '/messages': [] } }, record)).toBe(
      'json at /messages: expected [], found nothing: the body has no "messages" (its keys: result, errors)',
    );
    const html = await responseOf(200, { 'content-type': 'text/html' }, '<p>hi</p>');
    expect(judge({ json: { '/success': true } }, html)).toBe(
      'error: body is not JSON (text/html): "<p>hi</p>"',
    );
  });

  it('schema: the whole body against a schema of schemas/', async () => {
    expect(
      judge({ schema: 'error.json' }, await jsonResponse(400, { code: 7003, message: 'no route' })),
    ).toBe('pass');
    expect(
      judge({ schema: 'error.json' }, await jsonResponse(400, { code: 'x', message: 'no route' })),
    ).toMatch(/^body does not match error\.json: \/code: must be integer/);
  });

  it('xml: paths into the body; a body that is not XML is an error, an empty one holds nothing', async () => {
    const res = await responseOf(404, {}, '<Error><Code>NoSuchKey</Code><Key>k</Key></Error>');
    expect(judge({ xml: { '/Error/Code': 'NoSuchKey', '/Error/Resource': { $absent: true } } }, res)).toBe(
      'pass',
    );
    expect(judge({ xml: { '/Error/Code': 'NoSuchBucket' } }, res)).toBe(
      'xml at /Error/Code: expected "NoSuchBucket", found "NoSuchKey"',
    );
    expect(judge({ xml: { '/Error/Code': 'X' } }, await responseOf(404, {}, ''))).toBe(
      'xml at /Error/Code: expected "X", found nothing: the body is empty',
    );
    expect(judge({ xml: { '/Error': { $absent: true } } }, await responseOf(404, {}, ''))).toBe('pass');
    expect(judge({ xml: { '/Error/Code': 'X' } }, await responseOf(200, {}, '<a><b></a>'))).toMatch(
      /^error: body is not well-formed XML/,
    );
  });

  it('body: equals, contains, size, sha256, md5, empty', async () => {
    const text = 'hello, world';
    const res = await responseOf(200, {}, text);
    const sha = createHash('sha256').update(text).digest('hex');
    const md5 = createHash('md5').update(text).digest('hex');
    expect(
      judge({ body: { equals: text, contains: 'world', size: 12, sha256: sha, md5, empty: false } }, res),
    ).toBe('pass');
    expect(judge({ body: { sha256: sha.toUpperCase(), md5: md5.toUpperCase() } }, res)).toBe('pass');
    expect(judge({ body: { equals: 'hello' } }, res)).toBe('body: expected "hello", got "hello, world"');
    expect(judge({ body: { contains: 'mars' } }, res)).toBe(
      'body: expected to contain "mars", got "hello, world"',
    );
    expect(judge({ body: { size: '1KiB' } }, res)).toBe('body: expected 1024 bytes, got 12');
    expect(judge({ body: { sha256: '0'.repeat(64) } }, res)).toBe(
      `body: sha256 ${sha}, expected ${'0'.repeat(64)}`,
    );
    expect(judge({ body: { md5: '0'.repeat(32) } }, res)).toBe(
      `body: md5 ${md5}, expected ${'0'.repeat(32)}`,
    );
    expect(judge({ body: { empty: true } }, res)).toBe('body: expected empty, got 12 bytes');
    expect(judge({ body: { empty: true } }, await responseOf(204, {}))).toBe('pass');
    expect(judge({ body: { empty: false } }, await responseOf(204, {}))).toBe(
      'body: expected content, got none',
    );
  });

  it('body.generated: the whole object or a range of it, by size and content', async () => {
    const whole = await responseOf(200, {}, generateBuffer(9, 0, 1000));
    expect(judge({ body: { generated: { size: 1000, seed: 9 } } }, whole)).toBe('pass');
    expect(judge({ body: { generated: { size: 1000, seed: 10 } } }, whole)).toBe(
      'body: 1000 bytes, but not bytes 0-999 of the object (content differs)',
    );
    const range = await responseOf(206, {}, generateBuffer(9, 100, 200));
    expect(judge({ body: { generated: { size: 1000, seed: 9, range: [100, 199] } } }, range)).toBe('pass');
    expect(judge({ body: { generated: { size: 1000, seed: 9, range: [101, 200] } } }, range)).toBe(
      'body: 100 bytes, but not bytes 101-200 of the object (content differs)',
    );
    expect(judge({ body: { generated: { size: 1000, seed: 9, range: [100, 200] } } }, range)).toBe(
      'body: expected bytes 100-200 (101 bytes), got 100 bytes',
    );
  });

  it('a body larger than the runner keeps is still judged by size and digest, but not parsed', async () => {
    const size = 9 * 1024 * 1024; // above the 8 MiB kept for parsing and messages
    const big = new StepResponse(200, {}, await collectBody(generateStream(5, 0, size)));
    expect(big.body.truncated).toBe(true);
    expect(judge({ body: { size, generated: { size, seed: 5 } } }, big)).toBe('pass');
    expect(judge({ body: { generated: { size, seed: 6 } } }, big)).toBe(
      `body: ${size} bytes, but not bytes 0-${size - 1} of the object (content differs)`,
    );
    expect(judge({ json: { '': { $present: true } } }, big)).toBe(
      `error: body of ${size} bytes is over the 8 MiB edgecheck reads as JSON`,
    );
    expect(judge({ body: { equals: 'x' } }, big)).toMatch(/^body: expected "x", got /);
  });

  it('output and error: the SDK command result', async () => {
    const success = await responseOf(200, {}, '', { output: { ETag: '"e"', ContentLength: 3 } });
    expect(
      judge({ output: { '/ETag': '"e"', '/ContentLength': 3 }, error: { $absent: true } }, success),
    ).toBe('pass');
    expect(judge({ output: { '/ContentLength': '3' } }, success)).toBe(
      'output at /ContentLength: expected "3", found 3',
    );
    expect(judge({ error: 'NoSuchKey' }, success)).toBe('error: expected "NoSuchKey", found nothing');
    const failed = await responseOf(404, {}, '', {
      error: { name: 'NoSuchKey', message: 'The key does not exist' },
    });
    expect(judge({ error: 'NoSuchKey', status: 404 }, failed)).toBe('pass');
    expect(judge({ error: { $oneOf: ['NoSuchKey', 'NotFound'] } }, failed)).toBe('pass');
    expect(judge({ error: 'NoSuchBucket' }, failed)).toBe(
      'error: expected "NoSuchBucket", found "NoSuchKey" (404: The key does not exist)',
    );
    expect(judge({ output: { '/ETag': { $present: true } } }, failed)).toBe(
      'output: the command failed: 404 NoSuchKey: The key does not exist',
    );
    // The target sent no <Code>: the SDK's name for that (NotFound, UnknownError) is not judged.
    const bare = await responseOf(404, {}, '', { error: { name: '', message: '' } });
    expect(judge({ error: { $present: true } }, bare)).toBe('pass');
    expect(judge({ error: { $oneOf: ['NoSuchKey', 'NotFound'] } }, bare)).toBe(
      'error: expected {"$oneOf":["NoSuchKey","NotFound"]}, but the answer has no error code (404, empty body)',
    );
    expect(judge({ output: { '/ETag': { $present: true } } }, bare)).toBe(
      'output: the command failed: 404, empty body',
    );
  });

  it('xml: a path that finds nothing says what the answer holds instead', async () => {
    const error = await responseOf(404, {}, '<Error><Code>NoSuchBucket</Code><Message/></Error>');
    expect(judge({ xml: { '/ListBucketResult/Name': 'b' } }, error)).toBe(
      'xml at /ListBucketResult/Name: expected "b", found nothing: the answer is <Error> (NoSuchBucket)',
    );
    const listing = await responseOf(200, {}, '<ListBucketResult><Name>b</Name></ListBucketResult>');
    expect(judge({ xml: { '/LocationConstraint': 'auto' } }, listing)).toBe(
      'xml at /LocationConstraint: expected "auto", found nothing: the answer is <ListBucketResult>',
    );
    expect(judge({ xml: { '/ListBucketResult/KeyCount': '0' } }, listing)).toBe(
      'xml at /ListBucketResult/KeyCount: expected "0", found nothing: <ListBucketResult> has no <KeyCount>',
    );
  });

  it('every matcher of a check must hold', async () => {
    const res = await jsonResponse(200, { success: true });
    expect(judge({ status: 200, json: { '/success': false } }, res)).toBe(
      'json at /success: expected false, found true',
    );
  });
});
