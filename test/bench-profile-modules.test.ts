import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { moduleOf } from '../bench/profile-summary.ts';
import { ROOT } from '../runner/util/paths.ts';

const url = (...parts: string[]) => pathToFileURL(path.join(ROOT, ...parts)).href;

describe("the benchmark's profile names each script's module", () => {
  it('the same for a source, its package build and its cached checkout build', () => {
    expect(moduleOf(url('runner', 'load', 'suite.ts'), 'f')).toBe('runner/load');
    expect(moduleOf(url('dist', 'runner', 'load', 'suite.js'), 'f')).toBe('runner/load');
    const cached = url(
      'node_modules',
      '.cache',
      'edgecheck',
      'build-0123abcd',
      'reference',
      's3',
      'sigv4.js',
    );
    expect(moduleOf(cached, 'f')).toBe('reference/s3');
  });

  it('an npm package by its name, and Node itself as internals', () => {
    expect(moduleOf(url('node_modules', '@smithy', 'core', 'dist-cjs', 'index.js'), 'f')).toBe(
      '@smithy/core',
    );
    expect(moduleOf(url('node_modules', 'undici', 'lib', 'core', 'util.js'), 'f')).toBe('undici');
    expect(moduleOf('node:internal/crypto/hash', 'update')).toBe('node: internals');
  });
});
