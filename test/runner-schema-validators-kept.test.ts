import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../runner/schema/registry.ts';
import { SCHEMAS_DIR } from '../runner/util/paths.ts';

// A validator's code is kept between runs (runner/schema/registry.ts): a registry that finds it
// judges exactly as one that compiles, and a schema edited since is compiled afresh.
describe('schema validators kept between runs', () => {
  const saved = process.env.EDGECHECK_CACHE_DIR;
  let work: string;
  let schemasDir: string;

  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'edgecheck-validators-'));
    schemasDir = path.join(work, 'schemas');
    cpSync(SCHEMAS_DIR, schemasDir, { recursive: true });
    process.env.EDGECHECK_CACHE_DIR = path.join(work, 'cache');
  });
  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
    if (saved === undefined) delete process.env.EDGECHECK_CACHE_DIR;
    else process.env.EDGECHECK_CACHE_DIR = saved;
  });

  const kept = () => readdirSync(path.join(work, 'cache')).filter((n) => n.startsWith('validators-'));
  const answers: [string, unknown][] = [
    ['envelope.json#/definitions/success', { success: true, errors: [], messages: [], result: {} }],
    ['envelope.json#/definitions/success', { success: false }],
    ['envelope.json', { success: true, errors: [{ code: 'x' }], messages: [] }],
    ['dns-record.json', { id: 'x', type: 'A', name: 'a.example.com', content: '1.2.3.4', ttl: -4 }],
    ['zone.json', { id: 'z', name: 'example.com', created_on: 'yesterday' }],
  ];

  it('judges every value as the compiled validator does, with the same errors', () => {
    const compiling = new SchemaRegistry(schemasDir);
    const first = answers.map(([ref, v]) => compiling.check(ref, v));
    expect(first.some((problem) => problem !== undefined)).toBe(true);
    expect(kept()).toHaveLength(1);
    const reading = new SchemaRegistry(schemasDir);
    expect(answers.map(([ref, v]) => reading.check(ref, v))).toEqual(first);
    // Read, not compiled: nothing new was written.
    expect(kept()).toHaveLength(1);
  });

  it('compiles a schema edited since its code was kept', () => {
    const file = path.join(schemasDir, 'tiny.json');
    writeFileSync(file, JSON.stringify({ type: 'object', required: ['a'] }));
    expect(new SchemaRegistry(schemasDir).check('tiny.json', { a: 1 })).toBeUndefined();
    writeFileSync(file, JSON.stringify({ type: 'object', required: ['a', 'b'] }));
    expect(new SchemaRegistry(schemasDir).check('tiny.json', { a: 1 })).toMatch(/required property 'b'/);
  });
});
