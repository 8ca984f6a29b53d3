import { describe, expect, it } from 'vitest';
import {
  explainEmptyCaptures,
  GeneratedBody,
  lookup,
  MissingValue,
  placeholdersIn,
  resolve,
  type Scope,
} from '../runner/template/resolve.ts';
import { InputError } from '../runner/util/errors.ts';

const scope: Scope = {
  run: { id: 'r1x' },
  case: { slug: '3' },
  target: { accountId: 'acc1', zoneId: undefined, ids: { invite: 'inv9' } },
  asOf: '2024-06-01',
  profile: 'quick',
  rec: { id: 'rec-1', ttl: 300, proxied: false, tags: ['a', 'b'], meta: null },
  count: 3,
};

describe('placeholders', () => {
  it('are replaced inside strings, several per string', () => {
    expect(resolve('/accounts/${target.accountId}/things/${rec.id}', scope)).toBe(
      '/accounts/acc1/things/rec-1',
    );
    expect(resolve('edgecheck-${run.id}-${case.slug}', scope)).toBe('edgecheck-r1x-3');
    expect(resolve('${ asOf }', scope)).toBe('2024-06-01'); // spaces inside the braces are ignored
  });

  it('a string that is exactly one placeholder keeps the value’s type', () => {
    expect(resolve('${rec.ttl}', scope)).toBe(300);
    expect(resolve('${rec.proxied}', scope)).toBe(false);
    expect(resolve('${rec.tags}', scope)).toEqual(['a', 'b']);
    expect(resolve('${rec}', scope)).toBe(scope.rec);
    expect(resolve('${rec.meta}', scope)).toBeNull();
  });

  it('inside a longer string, non-strings are written as JSON', () => {
    expect(resolve('ttl=${rec.ttl}', scope)).toBe('ttl=300');
    expect(resolve('tags=${rec.tags}', scope)).toBe('tags=["a","b"]');
  });

  it('resolve walks objects and arrays and leaves other values alone', () => {
    expect(resolve({ a: ['${count}', { b: 'x${count}' }], n: 1, t: true, z: null }, scope)).toEqual({
      a: [3, { b: 'x3' }],
      n: 1,
      t: true,
      z: null,
    });
  });

  it('a name with no value throws MissingValue naming it', () => {
    for (const name of ['nope', 'rec.nope', 'target.ids.missing', 'target.zoneId', 'rec.id.deeper']) {
      let thrown: unknown;
      try {
        resolve(`/x/\${${name}}`, scope);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(MissingValue);
      expect((thrown as MissingValue).placeholder).toBe(name);
      expect((thrown as MissingValue).message).toBe(`no value for \${${name}}`);
    }
  });

  it('lookup reads dotted paths', () => {
    expect(lookup(scope, 'target.ids.invite')).toBe('inv9');
    expect(() => lookup(scope, 'target.ids.nope')).toThrow(MissingValue);
  });

  it('placeholdersIn lists every name, marking those inside $repeat', () => {
    expect(
      placeholdersIn({
        path: '/z/${target.zoneId}/${rec.id}',
        body: { $repeat: { count: 2, item: { n: 'r-${i}' } } },
      }),
    ).toEqual([
      { name: 'target.zoneId', inRepeat: false },
      { name: 'rec.id', inRepeat: false },
      { name: 'i', inRepeat: true },
    ]);
  });
});

describe('value operators', () => {
  it('$generate gives a GeneratedBody of the size and seed, sizes with units allowed', () => {
    const g = resolve({ Body: { $generate: { size: '5MiB', seed: 7 } } }, scope) as { Body: GeneratedBody };
    expect(g.Body).toBeInstanceOf(GeneratedBody);
    expect(g.Body).toMatchObject({ size: 5 * 1024 * 1024, seed: 7 });
    expect(resolve({ $generate: { size: 10 } }, scope)).toMatchObject({ size: 10, seed: 0 });
    expect(resolve({ $generate: { size: '${count}', seed: '${rec.ttl}' } }, scope)).toMatchObject({
      size: 3,
      seed: 300,
    });
  });

  it('$generate with a size that is not one is an input error naming $generate.size', () => {
    expect(() => resolve({ $generate: { size: 'lots' } }, scope)).toThrow(InputError);
    expect(() => resolve({ $generate: { size: 'lots' } }, scope)).toThrow(
      `$generate.size: 'lots' is not a size: write a byte count or e.g. "5MiB"`,
    );
  });

  it('$repeat makes count copies of item with ${i} the index, keeping types', () => {
    expect(
      resolve({ $repeat: { count: 3, item: { name: 'rec-${i}.${run.id}', n: '${i}' } } }, scope),
    ).toEqual([
      { name: 'rec-0.r1x', n: 0 },
      { name: 'rec-1.r1x', n: 1 },
      { name: 'rec-2.r1x', n: 2 },
    ]);
    expect(resolve({ $repeat: { count: '${count}', item: 'k' } }, scope)).toEqual(['k', 'k', 'k']);
    expect(resolve({ $repeat: { count: 0, item: 'k' } }, scope)).toEqual([]);
  });

  it('${i} outside $repeat has no value', () => {
    expect(() => resolve('k-${i}', scope)).toThrow(MissingValue);
  });

  it('$profile picks the value of the run’s profile', () => {
    const v = { size: { $profile: { quick: 1024, full: '${count}' } } };
    expect(resolve(v, scope)).toEqual({ size: 1024 });
    expect(resolve(v, { ...scope, profile: 'full' })).toEqual({ size: 3 });
    expect(
      resolve({ $generate: { size: { $profile: { quick: '1KiB', full: '1MiB' } } } }, scope),
    ).toMatchObject({
      size: 1024,
    });
  });
});

describe('a capture that came back empty, in a failure message', () => {
  const empty = new Map([['complete', 'the /ETag of step complete']]);
  it('names the capture where the message shows it expected', () => {
    expect(explainEmptyCaptures('at /ETag: expected "", found "x"', { '/ETag': '${complete}' }, empty)).toBe(
      'at /ETag: expected the /ETag of step complete (empty), found "x"',
    );
    expect(explainEmptyCaptures('expected exactly "", found 1', '${complete}', empty)).toBe(
      'expected exactly the /ETag of step complete (empty), found 1',
    );
  });
  it('leaves a "" the target sent as it is, and says the capture was empty beside it', () => {
    const template = { '/A': '${complete}', '/B': 'x' };
    expect(explainEmptyCaptures('at /B: expected "x", found ""', template, empty)).toBe(
      'at /B: expected "x", found "" (the /ETag of step complete came back empty)',
    );
  });
  it('leaves a message alone when the check used no empty capture', () => {
    expect(explainEmptyCaptures('expected "", found "x"', { '/B': '' }, empty)).toBe(
      'expected "", found "x"',
    );
  });
});
