import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResults } from '../runner/model/results.ts';
import schema from '../schemas/results.schema.json' with { type: 'json' };
import { runMain } from './helpers/cli.ts';

// ajv-formats is CommonJS: under NodeNext its callable is the `default` of the namespace.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

/**
 * Three shards of one run and the same run unsharded, against the embedded reference with a fault
 * on (so that some clauses fail), the same seed and date: merged, the shards give the run's verdicts.
 * The management suites alone: two areas and their properties, a quarter of a whole run's time.
 */
const RUN = [
  'run',
  '--suite',
  'management',
  '--suite',
  'deprecations',
  '--seed',
  '4242',
  '--as-of',
  '2025-02-01',
  '--fault',
  'accept-missing-auth',
];

let dir: string;
const shards: string[] = [];
let whole: RunResults;
let merged: RunResults;
let mergeOutcome: { code: number; stdout: string; stderr: string };

const read = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as RunResults;
const verdicts = (r: RunResults) => r.clauses.map((c) => `${c.id} ${c.verdict} ${c.checks}`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgecheck-merge-'));
  for (const i of [1, 2, 3]) {
    const file = join(dir, `shard-${i}.json`);
    const r = await runMain([...RUN, '--shard', `${i}/3`, '--reporter', `json=${file}`]);
    expect(r.stderr).toBe('');
    shards.push(file);
  }
  const file = join(dir, 'whole.json');
  await runMain([...RUN, '--reporter', `json=${file}`]);
  whole = await read(file);
  const out = join(dir, 'out', 'merged.json');
  // Given out of order: the merge restores the run's order.
  mergeOutcome = await runMain([
    'merge',
    shards[2],
    shards[0],
    shards[1],
    '-o',
    out,
    '--reporter',
    `junit=${join(dir, 'out', 'junit.xml')}`,
  ]);
  merged = await read(out);
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs merge on documents changed by `edit`, expecting the one-line refusal. */
async function refused(docs: RunResults[]): Promise<string> {
  const files = await Promise.all(
    docs.map(async (d, i) => {
      const file = join(dir, `edited-${i}.json`);
      await writeFile(file, JSON.stringify(d));
      return file;
    }),
  );
  const r = await runMain(['merge', ...files, '-o', join(dir, 'refused.json')]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  return r.stderr.trimEnd();
}

describe('edgecheck merge', () => {
  it('gives the clause verdicts of one unsharded run, in a document that validates against the schema', async () => {
    const ajv = new Ajv({ allErrors: true, strict: true });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    expect(validate(merged), ajv.errorsText(validate.errors)).toBe(true);
    expect(whole.summary.clauses.fail).toBeGreaterThan(0);
    expect(verdicts(merged)).toEqual(verdicts(whole));
    expect(merged.summary).toEqual(whole.summary);
    expect(merged.cases.map((c) => c.id)).toEqual(whole.cases.map((c) => c.id));
    expect(merged.clauses.find((c) => c.verdict === 'fail')?.message).toBe(
      whole.clauses.find((c) => c.verdict === 'fail')?.message,
    );
    expect(merged.exitCode).toBe(whole.exitCode);
    expect(mergeOutcome.code).toBe(1);
    expect(mergeOutcome.stderr).toBe('');
    await expect(readFile(join(dir, 'out', 'junit.xml'), 'utf8')).resolves.toContain('<testsuites ');
  });

  it('judges a clause that one shard left untested by the shard that tested it', async () => {
    const docs = await Promise.all(shards.map(read));
    for (const d of docs) {
      // Every shard lists every clause of the selection, untested where another shard judges it.
      expect(d.clauses.map((c) => c.id)).toEqual(whole.clauses.map((c) => c.id));
      expect(d.selection?.shard).toMatch(/^[123]\/3$/);
    }
    const untestedSomewhere = merged.clauses.filter(
      (c) =>
        c.verdict === 'pass' &&
        docs.some((d) => d.clauses.find((k) => k.id === c.id)?.verdict === 'untested'),
    );
    expect(untestedSomewhere.length).toBeGreaterThan(50);
    const failing = merged.clauses.find((c) => c.verdict === 'fail')!;
    expect(docs.map((d) => d.clauses.find((k) => k.id === failing.id)?.verdict)).toContain('untested');
  });

  it('keeps what each shard was: run ids, shards, seeds, requests summed', async () => {
    const docs = await Promise.all(shards.map(read));
    expect(merged.mergedFrom?.map((r) => r.shard)).toEqual(['3/3', '1/3', '2/3']);
    expect(merged.mergedFrom?.map((r) => r.runId)).toEqual([docs[2].runId, docs[0].runId, docs[1].runId]);
    expect(merged.runId).toBe(`${docs[2].runId}+${docs[0].runId}+${docs[1].runId}`);
    expect(merged.selection).toEqual(whole.selection);
    expect(whole.selection?.shard).toBeUndefined();
    expect(merged.requests?.total).toBe(docs.reduce((n, d) => n + (d.requests?.total ?? 0), 0));
    expect(merged.target.faults).toEqual(['accept-missing-auth']);
  });

  it('refuses documents of different runs in one line, exit 2', async () => {
    const docs = await Promise.all(shards.map(read));
    const [a, b, c] = docs;
    expect(await refused([a, { ...b, asOf: '2025-03-01' }, c])).toBe(
      `edgecheck: merge: different as-of dates: ${join(dir, 'edited-0.json')} 2025-02-01, ${join(dir, 'edited-1.json')} 2025-03-01; run every shard with the same --as-of`,
    );
    expect(await refused([a, b, { ...c, selection: { ...c.selection!, suites: ['management'] } }])).toMatch(
      /^edgecheck: merge: different suites selection: .* '--suite deprecations --suite management', .*edited-2\.json '--suite management'; shards of one run differ only in --shard$/,
    );
    expect(await refused([a, b, a])).toMatch(
      /^edgecheck: merge: overlapping cases: shard 1\/3 is both .*edited-0\.json and .*edited-2\.json$/,
    );
    const relabelled = { ...a, selection: { ...a.selection!, shard: '3/3' } };
    expect(await refused([a, b, relabelled])).toMatch(
      /^edgecheck: merge: overlapping cases: \S+ is in both .*edited-0\.json and .*edited-2\.json$/,
    );
    expect(await refused([a, { ...b, selection: { ...b.selection!, shard: '2/4' } }])).toMatch(
      /different shard counts/,
    );
    expect(await refused([c, a])).toMatch(
      /^edgecheck: merge: missing shards: 2\/3; merge every shard of the run$/,
    );
    const { selection: _, ...older } = b;
    expect(await refused([a, older as RunResults])).toMatch(
      /edited-1\.json does not say what its run selected/,
    );
  });

  it('refuses a file that is not a results document, and documents that name no file', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"hello": 1}');
    const r = await runMain(['merge', shards[0], bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^edgecheck: .*bad\.json: not an edgecheck results document/);
    const none = await runMain(['merge']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give the JSON results of the shards');
  });
});
