import { describe, expect, it } from 'vitest';
import { checkStatement } from '../runner/load/check-statement.ts';
import type { CheckDef } from '../runner/model/case.ts';

const statement = (check: Omit<CheckDef, 'origin' | 'clauses'>) =>
  checkStatement({ clauses: ['x.y'], origin: 'x.case.yaml:1', ...check });

describe('the statement a check without a title proves, in words from its matchers', () => {
  it('says status, headers and body in that order', () => {
    expect(
      statement({
        status: 206,
        headers: { 'Content-Range': 'bytes 0-0/10' },
        body: { generated: { size: 10, seed: 1, range: [0, 0] } },
      }),
    ).toBe(
      'status 206; header content-range = "bytes 0-0/10"; body = bytes 0-0 of the generated object (10 bytes, seed 1)',
    );
  });

  it('words each matcher', () => {
    expect(
      statement({
        status: { $gte: 400, $lt: 500 },
        headers: { etag: { $matches: '^"[0-9a-f]{32}"$' }, 'x-amz-version-id': { $present: true } },
        json: { '/errors': [], '': { $schema: 'envelope.json' }, '/result/id': { $not: 'abc' } },
        xml: {
          '/ListBucketResult/Contents/*/Key': {
            $contains: 'b',
            $not: { $contains: { $oneOf: ['a/1', 'a/2'] } },
          },
          '/ListBucketResult/Contents': { $each: { $type: 'object' } },
          '/ListBucketResult/Contents/*/Size': { $sorted: { by: '/Key', direction: 'desc' } },
        },
        output: { '/Rules': { $length: { $gt: 0 } }, '/Keys': { $anyOrder: ['a', 'b'] } },
        error: 'NoSuchKey',
      }),
    ).toBe(
      [
        'status >= 400 and < 500',
        'header etag matches /^"[0-9a-f]{32}"$/',
        'header x-amz-version-id present',
        'json /errors = []',
        'json (the whole body) matches schema envelope.json',
        'json /result/id != "abc"',
        'xml /ListBucketResult/Contents/*/Key contains "b" and not (has an item that one of "a/1", "a/2")',
        'xml /ListBucketResult/Contents each is of type object',
        'xml /ListBucketResult/Contents/*/Size sorted by /Key descending',
        'output /Rules has length > 0',
        'output /Keys = ["a","b"] in any order',
        'SDK error NoSuchKey',
      ].join('; '),
    );
  });

  it('words objects as the fields they must hold, and matchers inside lists and objects', () => {
    expect(
      statement({
        json: {
          '/result': { $each: { locked: { $absent: true }, name: { $matches: '\\.' } } },
          '/result/rules': [{ description: 'one' }, { enabled: true }],
          '/result/logpull_options': { $oneOf: [{ $absent: true }, 'fields=a'] },
        },
        output: { '/Uploads': { $contains: { Key: 'listed.bin' } } },
      }),
    ).toBe(
      [
        'json /result each has locked absent, name matches /\\./',
        'json /result/rules = [(has description = "one"), (has enabled = true)]',
        'json /result/logpull_options one of (absent), "fields=a"',
        'output /Uploads has an item that has Key = "listed.bin"',
      ].join('; '),
    );
  });

  it('says no SDK error, no body, and cuts long literals', () => {
    expect(statement({ error: { $absent: true }, body: { empty: true } })).toBe('no body; no SDK error');
    const long = 'x'.repeat(200);
    expect(statement({ body: { equals: long } })).toBe(`body = "${'x'.repeat(78)}…`);
  });

  it('says where a precondition limits what is judged, apart from what is asserted', () => {
    expect(
      statement({
        requires: { xml: { '/ListBucketResult/IsTruncated': 'false' } },
        xml: { '/ListBucketResult/NextMarker': { $absent: true } },
      }),
    ).toBe('where xml /ListBucketResult/IsTruncated = "false": xml /ListBucketResult/NextMarker absent');
  });
});
