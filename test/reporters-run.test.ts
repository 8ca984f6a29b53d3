import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgainstEmbedded } from '../cli/embedded.ts';
import { createReporter } from '../reporters/registry.ts';
import type { RunResults } from '../runner/model/results.ts';
import schema from '../schemas/results.schema.json' with { type: 'json' };
import { memoryStream } from './helpers/results-fixture.ts';

// ajv-formats is CommonJS: under NodeNext its callable is the `default` of the namespace.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

/**
 * The reporters fed by a real run against the embedded reference (started and stopped by the
 * run) with a fault on, so that the documents hold passes, failures and reproductions.
 */
describe('reporters on a real run', () => {
  let dir: string;
  let results: RunResults;
  const consoleOut = memoryStream();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgecheck-run-'));
    results = await runAgainstEmbedded({
      suites: ['management'],
      cases: ['mgmt.auth.*'],
      reference: { faults: ['accept-missing-auth'] },
      asOf: '2025-02-01',
      concurrency: 2,
      reporters: [
        createReporter('console', { stream: consoleOut }),
        createReporter(`json=${join(dir, 'out', 'results.json')}`),
        createReporter(`junit=${join(dir, 'out', 'junit.xml')}`),
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a JSON document that validates against the schema and equals the results', async () => {
    const doc = JSON.parse(await readFile(join(dir, 'out', 'results.json'), 'utf8'));
    const ajv = new Ajv({ allErrors: true, strict: true });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    expect(validate(doc), ajv.errorsText(validate.errors)).toBe(true);
    expect(doc).toEqual(JSON.parse(JSON.stringify(results)));
    expect(results.summary.clauses.fail).toBeGreaterThan(0);
    expect(results.summary.clauses.pass).toBeGreaterThan(0);
  });

  it('writes JUnit whose counts match the clause verdicts', async () => {
    const xml = await readFile(join(dir, 'out', 'junit.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const root = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml).testsuites;
    const s = results.summary.clauses;
    expect(Number(root.tests)).toBe(results.clauses.length);
    expect(Number(root.failures)).toBe(s.fail);
    expect(Number(root.errors)).toBe(s.error);
    expect(Number(root.skipped)).toBe(s.blocked + s.skipped + s.untested);
  });

  it('prints the failing check with its reproduction and the closing line', () => {
    const out = consoleOut.text();
    const failing = results.cases.flatMap((c) => c.checks).find((k) => k.verdict === 'fail')!;
    expect(out).toContain(`${failing.caseId}, ${failing.step} (${failing.clauses.join(', ')})`);
    expect(out).toMatch(/^1\) fail: /m);
    expect(failing.repro).toMatch(/^curl /);
    expect(out).toContain(failing.repro!);
    const s = results.summary.clauses;
    expect(out.trimEnd().split('\n').at(-1)).toMatch(new RegExp(`^${s.pass} passed, ${s.fail} failed(, |$)`));
  });
});
