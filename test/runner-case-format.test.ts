import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadCaseFile } from '../runner/load/cases.ts';
import { schemas } from '../runner/schema/registry.ts';
import {
  DOC_FILE,
  GIVEN_SCHEMA_FILE,
  generatedDoc,
  generatedGivenSchema,
  generatedSchema,
  SCHEMA_FILE,
} from '../scripts/case-format.ts';

const doc = readFileSync(DOC_FILE, 'utf8');
const yamlBlocks = [...doc.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
const caseBlocks = yamlBlocks.filter((b) => b.includes('schemas/case.schema.json'));

describe('the case format has one definition (runner/model/case-format.ts)', () => {
  it('schemas/case.schema.json is what the definition generates (npm run schemas)', () => {
    expect(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'))).toEqual(generatedSchema());
  });

  it('schemas/given.schema.json is what the definition generates (npm run schemas)', () => {
    expect(JSON.parse(readFileSync(GIVEN_SCHEMA_FILE, 'utf8'))).toEqual(generatedGivenSchema());
  });

  it("docs/case-format.md's reference tables are what the definition generates (npm run schemas)", () => {
    expect(doc).toContain('<!-- BEGIN generated');
    expect(generatedDoc(doc)).toBe(doc);
  });
});

describe('the examples of docs/case-format.md', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ec-doc-examples-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('include cases', () => {
    expect(caseBlocks.length).toBeGreaterThan(0);
  });

  it.each(caseBlocks.map((b, i) => [i, b]))('case example %i is valid and loads', (i, block) => {
    expect(schemas().check('case.schema.json', parse(block as string))).toBeUndefined();
    const file = path.join(dir, `example-${i}.case.yaml`);
    writeFileSync(file, block as string);
    const [loaded] = loadCaseFile(file, 'docs');
    expect(loaded.steps.length).toBeGreaterThan(0);
  });

  it('the clauses example is valid', () => {
    const clauses = yamlBlocks.filter((b) => b.includes('schemas/clauses.schema.json'));
    expect(clauses.length).toBe(1);
    expect(schemas().check('clauses.schema.json', parse(clauses[0]))).toBeUndefined();
  });
});
