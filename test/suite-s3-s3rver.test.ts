import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_CREDENTIALS } from '../reference/context.ts';
import { type ReferenceHandle, startReference } from '../reference/server.ts';
import { runEdgecheck, today } from '../runner/api.ts';
import { type DiffReport, runDiff } from '../runner/diff/run-diff.ts';
import { s3Model } from '../runner/diff/s3-model.ts';
import type { RunResults } from '../runner/model/results.ts';
import type { Target } from '../runner/model/target.ts';
import { ROOT } from '../runner/util/paths.ts';
import { runBinAsync } from './helpers/cli.ts';
import { holdsToBaseline, readForeignBaseline } from './helpers/foreign-baseline.ts';
import { type ForeignServer, startS3rver } from './helpers/foreign-servers.ts';

/*
 * A second, independent implementation: s3rver, an S3 emulator, runs the S3 suite and its clause
 * verdicts are compared with baselines/s3rver.yaml, which says for every clause s3rver fails what
 * was seen on the wire. Any change of verdict, either way, fails the test.
 */

const SEED = 20261122;
const BASELINE = path.join(ROOT, 'baselines', 's3rver.yaml');

let server: ForeignServer;
let dir: string;
let results: RunResults;
let port: number;
let reference: ReferenceHandle;
/** The S3 suite against the reference alone, for the run with both targets to be held to. */
let alone: RunResults;

/**
 * The suite against s3rver and against the reference alone, at once: s3rver is slow per request
 * and the reference is not, so the reference's run fits in s3rver's waits.
 */
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-s3rver-run-'));
  server = await startS3rver();
  port = Number(new URL(server.s3.endpoint).port);
  reference = await startReference({ asOf: today() });
  const target: Target = { name: 's3rver', features: [], s3: server.s3 };
  [results, alone] = await Promise.all([
    runEdgecheck({ suites: ['s3'], target, seed: SEED, baseline: BASELINE }),
    runEdgecheck({
      suites: ['s3'],
      seed: SEED,
      target: {
        name: 'reference',
        features: [],
        s3: {
          endpoint: reference.urls.s3,
          region: 'auto',
          addressing: 'path',
          accessKeyId: REFERENCE_CREDENTIALS.accessKeyId,
          secretAccessKey: REFERENCE_CREDENTIALS.secretAccessKey,
        },
      },
    }),
  ]);
}, 300_000);

afterAll(async () => {
  await reference?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the S3 suite against s3rver', () => {
  holdsToBaseline('s3rver', BASELINE, () => results);
});

/*
 * Several targets in one run: the reference and s3rver side by side. The table names exactly the
 * clauses the baseline lists, and each target's document holds the verdicts a run of its own gives.
 */
describe('the reference and s3rver in one run (--target)', () => {
  let both: { code: number | null; stdout: string; stderr: string };
  const docs: Record<string, RunResults> = {};

  beforeAll(async () => {
    const yaml = (name: string, endpoint: string, region: string, keyEnv: string, secretEnv: string) =>
      `name: ${name}\nfeatures: []\ns3:\n  endpoint: ${endpoint}\n  region: "${region}"\n  addressing: path\n` +
      `  accessKeyIdEnv: ${keyEnv}\n  secretAccessKeyEnv: ${secretEnv}\n`;
    writeFileSync(
      path.join(dir, 'reference.yaml'),
      yaml('reference', reference.urls.s3, 'auto', 'REF_KEY', 'REF_SECRET'),
    );
    writeFileSync(
      path.join(dir, 's3rver.yaml'),
      yaml('s3rver', `http://127.0.0.1:${port}`, 'us-east-1', 'S3RVER_KEY', 'S3RVER_SECRET'),
    );
    const out = path.join(dir, 'out', 'results.json');
    both = await runBinAsync(
      [
        'run',
        '--suite',
        's3',
        '--seed',
        String(SEED),
        '--target',
        `reference=${path.join(dir, 'reference.yaml')}`,
        '--target',
        `s3rver=${path.join(dir, 's3rver.yaml')}`,
        '--reporter',
        'console',
        '--reporter',
        `json=${out}`,
      ],
      {
        REF_KEY: REFERENCE_CREDENTIALS.accessKeyId,
        REF_SECRET: REFERENCE_CREDENTIALS.secretAccessKey,
        S3RVER_KEY: 'S3RVER',
        S3RVER_SECRET: 'S3RVER',
      },
      240_000,
    );
    for (const name of ['reference', 's3rver']) {
      docs[name] = JSON.parse(readFileSync(path.join(dir, 'out', `results.${name}.json`), 'utf8'));
    }
  }, 300_000);

  const verdicts = (r: RunResults) => Object.fromEntries(r.clauses.map((c) => [c.id, c.verdict]));
  /** The clauses whose verdict differs between two runs, each with the failing check's message. */
  const moved = (r: RunResults, own: RunResults) => {
    const ownVerdict = verdicts(own);
    const why = (x: RunResults, id: string) =>
      x.cases
        .flatMap((c) => c.checks)
        .find((k) => k.clauses.includes(id) && k.verdict !== 'pass')
        ?.message?.slice(0, 300);
    return r.clauses
      .filter((c) => c.verdict !== ownVerdict[c.id])
      .map(
        (c) =>
          `${c.id}: ${c.verdict} in the run together (${why(r, c.id) ?? 'no check failed'}), ${ownVerdict[c.id]} alone (${why(own, c.id) ?? 'no check failed'})`,
      )
      .join('; ');
  };

  it('the side-by-side table lists exactly the clauses baselines/s3rver.yaml lists, failed or blocked, and the run exits 1', () => {
    const baseline = readForeignBaseline(BASELINE);
    // The side-by-side table, then its clauses where SPEC departs from Amazon S3 set apart again.
    const tables = both.stdout.slice(both.stdout.indexOf('\nclause '));
    const rows = [
      ...new Set(
        tables
          .split('\n')
          .filter((l) => /^s3\./.test(l))
          .map((l) => l.split(/\s+/)[0]),
      ),
    ];
    const listed = [...Object.keys(baseline.clauses), ...Object.keys(baseline.blocked ?? {})];
    // The clauses on one side only, each with both targets' verdicts, so that a CI log says which.
    const apart = [
      ...rows.filter((c) => !listed.includes(c)),
      ...listed.filter((c) => !rows.includes(c)),
    ].map((c) => `${c}: reference ${verdicts(docs.reference)[c]}, s3rver ${verdicts(docs.s3rver)[c]}`);
    expect(rows.sort(), `in the table or the baseline only: ${apart.join('; ')}`).toEqual(listed.sort());
    expect(both.code).toBe(1);
  });

  it("each target's document gives the verdicts of a run of its own", () => {
    expect(verdicts(docs.reference), moved(docs.reference, alone)).toEqual(verdicts(alone));
    expect(verdicts(docs.s3rver), moved(docs.s3rver, results)).toEqual(verdicts(results));
    expect(docs.s3rver.target.name).toBe('s3rver');
    expect(docs.s3rver.seed).toBe(SEED);
  });

  it('the console names each target on its lines, and no secret', () => {
    expect(both.stdout).toMatch(/^\[reference\] /m);
    expect(both.stdout).toMatch(/^\[s3rver\] /m);
    expect(both.stdout + both.stderr).not.toContain(REFERENCE_CREDENTIALS.secretAccessKey);
  });
});

/*
 * The differential mode between the reference and s3rver: the differences no clause names are the
 * candidates for new clauses that suites/s3/README.md lists.
 */
describe('edgecheck diff between the reference and s3rver', () => {
  it('finds differences, and each one no clause names is listed in suites/s3/README.md', async () => {
    const report = await diffWithS3rver();
    expect(report.findings.length).toBeGreaterThan(0);
    const readme = readFileSync(path.join(ROOT, 'suites', 's3', 'README.md'), 'utf8');
    const unlisted = report.findings
      .filter((f) => !f.clauses.length)
      .map((f) => f.signature)
      .filter((sig) => !readme.includes(`\`${sig}\``));
    expect(unlisted, report.findings.map((f) => f.signature).join('\n')).toEqual([]);
  }, 120_000);
});

/**
 * The diff's sequences against a reference of their own and s3rver, with s3rver to themselves: the
 * 1 s timeout is for s3rver's silence on a ranged GET of an empty object, and other runs' load on it
 * would time out answers that only came late.
 */
async function diffWithS3rver(): Promise<DiffReport> {
  const reference = await startReference({ asOf: today() });
  try {
    return await runDiff(
      [
        { name: 'reference', s3: reference.target().s3! },
        { name: 's3rver', s3: server.s3 },
      ],
      // s3rver never answers a ranged GET of an empty object: a short timeout keeps that finding quick.
      {
        runId: 'toydiffs3rv',
        seed: 20261123,
        runs: 50,
        maxLength: 6,
        maxDifferences: 12,
        timeoutMs: 1000,
      },
      s3Model('toydiffmodel'),
    );
  } finally {
    await reference.close();
  }
}
