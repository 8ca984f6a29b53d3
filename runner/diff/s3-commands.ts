import fc from 'fast-check';
import type { HttpRequest } from '../model/case.ts';

/**
 * The model the differential mode generates from: objects under a handful of keys of one bucket,
 * written, read (whole, ranged, conditionally), listed, copied, deleted and uploaded in parts.
 * Keys are few so that a sequence revisits them; each sequence writes under a prefix of its own.
 */
export const KEYS = ['a', 'b/c', 'é x'] as const;
export type Key = (typeof KEYS)[number];

/** What an If-Match / If-None-Match names: the key's current ETag (as this target gave it), another, a list, `*`. */
export type Tag = 'current' | 'other' | 'list' | 'weak' | '*';

export type S3Command =
  | { op: 'put'; key: Key; body: string }
  | { op: 'get'; key: Key; range?: string; ifMatch?: Tag; ifNoneMatch?: Tag }
  | { op: 'head'; key: Key; ifNoneMatch?: Tag }
  | { op: 'delete'; key: Key }
  | { op: 'list'; prefix?: string; delimiter?: '/'; maxKeys?: number; startAfter?: Key }
  | { op: 'copy'; from: Key; to: Key }
  | { op: 'multipart'; key: Key; body: string };

const key = fc.constantFrom(...KEYS);
const tag = fc.constantFrom<Tag>('current', 'other', 'list', 'weak', '*');
/** Every form a client sends: first byte, inner, suffix, open, past the end, reversed, not a number. */
const RANGES = [
  'bytes=0-0',
  'bytes=1-3',
  'bytes=-2',
  'bytes=2-',
  'bytes=0-100',
  'bytes=50-60',
  'bytes=3-1',
  'bytes=x-2',
];
/** Usually absent: a read with every option at once would answer the first condition only. */
const sometimes = <T>(arb: fc.Arbitrary<T>, weight = 2) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: arb, weight });
const body = fc.constantFrom('', 'x', 'hello', 'edge check');

/** Writes and reads weigh most, so that a sequence reads what it wrote. */
export const s3Command: fc.Arbitrary<S3Command> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('put' as const), key, body }), weight: 4 },
  {
    arbitrary: fc
      .record({
        op: fc.constant('get' as const),
        key,
        range: sometimes(fc.constantFrom(...RANGES), 4),
        ifMatch: sometimes(tag, 2),
        ifNoneMatch: sometimes(tag, 2),
      })
      .map((c) => drop(c) as S3Command),
    weight: 5,
  },
  {
    arbitrary: fc
      .record({ op: fc.constant('head' as const), key, ifNoneMatch: sometimes(tag) })
      .map((c) => drop(c) as S3Command),
    weight: 1,
  },
  { arbitrary: fc.record({ op: fc.constant('delete' as const), key }), weight: 1 },
  {
    arbitrary: fc
      .record({
        op: fc.constant('list' as const),
        prefix: sometimes(fc.constantFrom('b/', 'b', 'z')),
        delimiter: sometimes(fc.constant('/' as const)),
        maxKeys: sometimes(fc.constantFrom(0, 1, 2, 1000)),
        startAfter: sometimes(key),
      })
      .map((c) => drop(c) as S3Command),
    weight: 2,
  },
  { arbitrary: fc.record({ op: fc.constant('copy' as const), from: key, to: key }), weight: 1 },
  {
    arbitrary: fc.record({ op: fc.constant('multipart' as const), key, body: fc.constantFrom('', 'part') }),
    weight: 1,
  },
);

/** Absent options left out, so that a printed command shows only what it sends. */
function drop(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** What one target knows while a sequence runs: the ETags it gave each key. */
export type Etags = Map<Key, string>;

function tagValue(t: Tag, k: Key, etags: Etags): string {
  const current = etags.get(k) ?? '"00000000000000000000000000000000"';
  switch (t) {
    case 'current':
      return current;
    case 'other':
      return '"ffffffffffffffffffffffffffffffff"';
    case 'list':
      return `"ffffffffffffffffffffffffffffffff", ${current}`;
    case 'weak':
      return `W/${current}`;
    case '*':
      return '*';
  }
}

/** A command as a raw request under this sequence's prefix (multipart: its first request). */
export function requestsFor(cmd: S3Command, bucket: string, prefix: string, etags: Etags): HttpRequest[] {
  const k = (key: Key) => `${prefix}${key}`;
  switch (cmd.op) {
    case 'put':
      return [{ method: 'PUT', bucket, key: k(cmd.key), body: cmd.body }];
    case 'get': {
      const headers: Record<string, string> = {};
      if (cmd.range) headers.range = cmd.range;
      if (cmd.ifMatch) headers['if-match'] = tagValue(cmd.ifMatch, cmd.key, etags);
      if (cmd.ifNoneMatch) headers['if-none-match'] = tagValue(cmd.ifNoneMatch, cmd.key, etags);
      return [{ method: 'GET', bucket, key: k(cmd.key), headers }];
    }
    case 'head': {
      const headers: Record<string, string> = {};
      if (cmd.ifNoneMatch) headers['if-none-match'] = tagValue(cmd.ifNoneMatch, cmd.key, etags);
      return [{ method: 'HEAD', bucket, key: k(cmd.key), headers }];
    }
    case 'delete':
      return [{ method: 'DELETE', bucket, key: k(cmd.key) }];
    case 'list': {
      const query: Record<string, string> = { 'list-type': '2', prefix: `${prefix}${cmd.prefix ?? ''}` };
      if (cmd.delimiter) query.delimiter = cmd.delimiter;
      if (cmd.maxKeys !== undefined) query['max-keys'] = String(cmd.maxKeys);
      if (cmd.startAfter) query['start-after'] = k(cmd.startAfter);
      return [{ method: 'GET', bucket, query }];
    }
    case 'copy':
      return [
        {
          method: 'PUT',
          bucket,
          key: k(cmd.to),
          headers: {
            'x-amz-copy-source': `/${bucket}/${encodeURIComponent(k(cmd.from)).replace(/%2F/g, '/')}`,
          },
        },
      ];
    case 'multipart':
      // Create only: the part and the completion need the answers (run-diff.ts sends them).
      return [{ method: 'POST', bucket, key: k(cmd.key), query: { uploads: '' } }];
  }
}

/** The command in one line, for the printed sequence. */
export function describeCommand(cmd: S3Command): string {
  switch (cmd.op) {
    case 'put':
      return `PUT ${cmd.key} (${JSON.stringify(cmd.body)})`;
    case 'get':
      return `GET ${cmd.key}${cmd.range ? ` Range: ${cmd.range}` : ''}${cmd.ifMatch ? ` If-Match: ${cmd.ifMatch}` : ''}${cmd.ifNoneMatch ? ` If-None-Match: ${cmd.ifNoneMatch}` : ''}`;
    case 'head':
      return `HEAD ${cmd.key}${cmd.ifNoneMatch ? ` If-None-Match: ${cmd.ifNoneMatch}` : ''}`;
    case 'delete':
      return `DELETE ${cmd.key}`;
    case 'list':
      return `LIST${cmd.prefix !== undefined ? ` prefix=${cmd.prefix}` : ''}${cmd.delimiter ? ' delimiter=/' : ''}${cmd.maxKeys !== undefined ? ` max-keys=${cmd.maxKeys}` : ''}${cmd.startAfter ? ` start-after=${cmd.startAfter}` : ''}`;
    case 'copy':
      return `COPY ${cmd.from} -> ${cmd.to}`;
    case 'multipart':
      return `MULTIPART ${cmd.key} (one part, ${JSON.stringify(cmd.body)})`;
  }
}
