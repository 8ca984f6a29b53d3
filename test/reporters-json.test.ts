import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import { JsonReporter } from '../reporters/json.ts';
import schema from '../schemas/results.schema.json' with { type: 'json' };
import {
  caseResult,
  check,
  clause,
  departureResults,
  feed,
  memoryStream,
  runResults,
  sampleResults,
} from './helpers/results-fixture.ts';

// ajv-formats is CommonJS: under NodeNext its callable is the `default` of the namespace.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;
const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv);
const validate = ajv.compile(schema);
const dirs: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'edgecheck-json-'));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

function errorsOf(doc: unknown): string {
  validate(doc);
  return ajv.errorsText(validate.errors);
}

describe('json reporter', () => {
  it('writes the run results to a file in directories it creates, valid against the schema', async () => {
    const dest = join(await tempDir(), 'out', 'nested', 'results.json');
    const results = sampleResults();
    await feed(new JsonReporter({ dest }), results);
    const text = await readFile(dest, 'utf8');
    const doc = JSON.parse(text);
    expect(validate(doc), errorsOf(doc)).toBe(true);
    expect(doc).toEqual(results);
    // Pretty-printed, so a person can read and diff it.
    expect(text.split('\n').length).toBeGreaterThan(50);
  });

  it('carries amazon and the answer’s match on the clauses where SPEC departs from Amazon S3, their verdicts in summary.departures and their answers in summary.departureAnswers', async () => {
    const stream = memoryStream();
    await feed(new JsonReporter({ stream }), departureResults());
    const doc = JSON.parse(stream.text());
    expect(validate(doc), errorsOf(doc)).toBe(true);
    expect(doc.clauses.find((c: { id: string }) => c.id === 's3.standin.get-bucket-lifecycle').amazon).toBe(
      '404 NoSuchLifecycleConfiguration',
    );
    expect(doc.clauses.find((c: { id: string }) => c.id === 's3.get.range-206').amazon).toBeUndefined();
    expect(doc.summary.departures).toEqual({
      pass: 1,
      fail: 3,
      error: 1,
      blocked: 1,
      skipped: 0,
      untested: 0,
    });
    expect(doc.summary.clauses).toMatchObject({ pass: 2, fail: 4, error: 1, blocked: 1 });
    const match = (id: string) => doc.clauses.find((c: { id: string }) => c.id === id).amazonMatch;
    expect(match('s3.standin.get-bucket-lifecycle')).toBe(true);
    expect(match('s3.standin.get-bucket-replication')).toBe(false);
    expect(match('s3.region.auto')).toBeUndefined();
    // The blocked departing clause is counted by verdict, never by answer.
    expect(doc.summary.departureAnswers).toEqual({ asAmazon: 1, neither: 1, undecided: 2 });
  });

  it('writes to the stream when no path is given', async () => {
    const stream = memoryStream();
    const results = sampleResults();
    await feed(new JsonReporter({ stream }), results);
    expect(JSON.parse(stream.text())).toEqual(results);
  });

  it('still writes a valid document, marked as failing, when the run is interrupted before run-end', async () => {
    const stream = memoryStream();
    const results = sampleResults();
    await feed(new JsonReporter({ stream }), results, true);
    const doc = JSON.parse(stream.text());
    expect(validate(doc), errorsOf(doc)).toBe(true);
    expect(doc.exitCode).toBe(1);
    expect(doc.cases.map((c: { id: string }) => c.id)).toEqual(results.cases.map((c) => c.id));
    expect(doc.summary.checks).toEqual(results.summary.checks);
  });

  it('serializes odd expected and actual values (bigint, bytes, cycles) instead of crashing', async () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const results = runResults(
      [clause('s3.get.odd')],
      [
        caseResult('s3.odd', 's3', [
          check({
            caseId: 's3.odd',
            clauses: ['s3.get.odd'],
            verdict: 'fail',
            expected: 10n,
            actual: cyclic,
          }),
          check({ caseId: 's3.odd', clauses: ['s3.get.odd'], verdict: 'fail', actual: Buffer.from('abc') }),
        ]),
      ],
    );
    const stream = memoryStream();
    await feed(new JsonReporter({ stream }), results);
    const doc = JSON.parse(stream.text());
    expect(validate(doc), errorsOf(doc)).toBe(true);
    expect(doc.cases[0].checks[0].expected).toBe('10');
    expect(doc.cases[0].checks[0].actual).toEqual({ a: 1, self: '[Circular]' });
    expect(doc.cases[0].checks[1].actual).toBe('<3 bytes>');
  });
});

describe('results schema', () => {
  it('rejects an unknown verdict', () => {
    const doc = structuredClone(sampleResults()) as any;
    doc.clauses[0].verdict = 'passed';
    expect(validate(doc)).toBe(false);
    doc.clauses[0].verdict = 'pass';
    doc.cases[0].checks[0].verdict = 'untested'; // a check is never untested, only a clause
    expect(validate(doc)).toBe(false);
  });

  it('rejects unknown properties and missing required fields', () => {
    const extra = structuredClone(sampleResults()) as any;
    extra.cases[0].checks[0].secret = 'x';
    expect(validate(extra)).toBe(false);
    const missing = structuredClone(sampleResults()) as any;
    delete missing.summary.clauses.untested;
    expect(validate(missing)).toBe(false);
    const noOrigin = structuredClone(sampleResults()) as any;
    delete noOrigin.cases[1].checks[0].origin;
    expect(validate(noOrigin)).toBe(false);
  });

  it('rejects a malformed as-of date, clause id and exit code', () => {
    for (const mutate of [
      (d: any) => {
        d.asOf = '1 Feb 2025';
      },
      (d: any) => {
        d.clauses[0].id = 'Not An Id';
      },
      (d: any) => {
        d.exitCode = 2;
      },
    ]) {
      const doc = structuredClone(sampleResults()) as any;
      mutate(doc);
      expect(validate(doc)).toBe(false);
    }
  });
});
