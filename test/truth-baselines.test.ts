import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceHandle, startReference } from '../reference/server.ts';
import { today } from '../runner/api.ts';
import type { S3Target } from '../runner/model/target.ts';
import { ROOT } from '../runner/util/paths.ts';
import { type ForeignBaseline, readForeignBaseline } from './helpers/foreign-baseline.ts';
import { type ForeignServer, haveMoto, startMoto, startS3rver } from './helpers/foreign-servers.ts';
import { haveBotocore } from './helpers/not-run.ts';

/*
 * edgecheck is not its own judge: every departure a baseline lists is shown again by
 * test/truth/truth.py, which decides each clause with AWS's own signer (botocore) and plain HTTP and
 * no code of edgecheck's. The probes must hold on the reference (which passes every clause), show
 * each listed departure, never show one where a baseline says the clause was only blocked, and hold
 * for every clause the target passes, and leave nothing behind. What each probe sent and got back is written to
 * test-output/truth-<target>.txt, and shown with any disagreement.
 */

const TRUTH = path.join(ROOT, 'test', 'truth', 'truth.py');
const OUTPUT = path.join(ROOT, 'test-output');
const run = promisify(execFile);

const HAVE_PYTHON = haveBotocore(
  'the independent proof of every baseline entry (test/truth-baselines.test.ts)',
);
const HAVE_MOTO = haveMoto();

interface Probed {
  clause: string;
  outcome: 'holds' | 'departs' | 'unjudgeable' | 'broken';
  reason: string;
  transcript: string[];
  /** Buckets a probe made that HeadBucket still finds after its clean-up. */
  left: { bucket: string; remove: string }[];
}

/** What the probes left on a target: nothing, or each bucket with the command that removes it. */
const leftovers = (probed: Map<string, Probed>) =>
  [...probed.values()].flatMap((p) => p.left.map((l) => `${p.clause}: ${l.bucket} (${l.remove})`));

async function probeAll(name: string, s3: S3Target): Promise<Map<string, Probed>> {
  const { stdout } = await probe(name, s3);
  return parseProbes(name, stdout);
}

/** truth.py against one target; a run that does not end says which target it was waiting for. */
async function probe(name: string, s3: S3Target): Promise<{ stdout: string }> {
  try {
    return await runTruth(s3);
  } catch (err) {
    // Not the error's own message: it repeats the command line, secret included.
    const e = err as { killed?: boolean; stderr?: string; code?: unknown };
    throw new Error(
      e.killed
        ? `truth.py against ${name} (${s3.endpoint}) did not finish within ${TRUTH_BOUND_MS / 1000} s: ${e.stderr?.slice(-2000) ?? ''}`
        : `truth.py against ${name} (${s3.endpoint}) exited ${String(e.code)}: ${e.stderr?.slice(-2000) ?? ''}`,
    );
  }
}

// A bound on a hang: the probes take 15 to 25 s here, alone or beside the other test files.
const TRUTH_BOUND_MS = 240_000;

function runTruth(s3: S3Target) {
  return run(
    'python3',
    [
      TRUTH,
      '--endpoint',
      s3.endpoint,
      '--region',
      s3.region,
      '--key',
      s3.accessKeyId,
      '--secret',
      s3.secretAccessKey,
      '--json',
    ],
    { timeout: TRUTH_BOUND_MS, maxBuffer: 64 * 1024 * 1024 },
  );
}

function parseProbes(name: string, stdout: string): Map<string, Probed> {
  const probed = stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Probed);
  mkdirSync(OUTPUT, { recursive: true });
  writeFileSync(
    path.join(OUTPUT, `truth-${name}.txt`),
    probed
      .map((p) =>
        [`${p.clause}: ${p.outcome}: ${p.reason}`, ...p.transcript.map((l) => `    ${l}`)].join('\n'),
      )
      .join('\n'),
  );
  return new Map(probed.map((p) => [p.clause, p]));
}

const shown = (p: Probed | undefined) =>
  p ? `${p.outcome}: ${p.reason}\n      ${p.transcript.slice(-12).join('\n      ')}` : 'no probe decides it';

/** Every disagreement between a baseline and the probes, each with the exchanges the probe saw. */
function disagreements(baseline: ForeignBaseline, probed: Map<string, Probed>): string[] {
  const out: string[] = [];
  for (const [id, entry] of Object.entries(baseline.clauses)) {
    const p = probed.get(id);
    if (p?.outcome !== 'departs')
      out.push(`${id} (${entry.verdict}: ${entry.reason}) is not shown: ${shown(p)}`);
  }
  for (const [id, reason] of Object.entries(baseline.blocked ?? {})) {
    const p = probed.get(id);
    if (p?.outcome === 'departs') out.push(`${id} is listed as blocked (${reason}) but departs: ${shown(p)}`);
  }
  for (const [id, p] of probed) {
    if (id in baseline.clauses || id in (baseline.blocked ?? {})) continue;
    if (p.outcome !== 'holds') out.push(`${id} passes in edgecheck but the probe says ${shown(p)}`);
  }
  return out;
}

describe.skipIf(!HAVE_PYTHON)('the independent judge (test/truth/truth.py)', () => {
  let reference: ReferenceHandle;
  const servers: ForeignServer[] = [];
  const probed: Record<string, Promise<Map<string, Probed>>> = {};

  beforeAll(async () => {
    reference = await startReference({ asOf: today() });
    servers.push(await startS3rver());
    if (HAVE_MOTO) servers.push(await startMoto());
    probed.reference = probeAll('reference', reference.target().s3!);
    for (const s of servers) probed[s.name] = probeAll(s.name, s.s3);
    // Each target's probes run at once; a rejection is seen by the test that awaits it.
    for (const p of Object.values(probed)) p.catch(() => undefined);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await reference?.close();
  });

  it('decides every clause on the reference as holding: the probes ask nothing the spec does not', async () => {
    const ref = await probed.reference;
    expect(ref.size).toBeGreaterThan(100);
    const wrong = [...ref.values()]
      .filter((p) => p.outcome !== 'holds')
      .map((p) => `${p.clause}: ${shown(p)}`);
    expect(wrong, wrong.join('\n\n')).toEqual([]);
    expect(leftovers(ref)).toEqual([]);
  }, 240_000);

  it('shows every departure of baselines/s3rver.yaml, and holds wherever s3rver passes', async () => {
    const baseline = readForeignBaseline(path.join(ROOT, 'baselines', 's3rver.yaml'));
    const found = disagreements(baseline, await probed.s3rver);
    expect(found, found.join('\n\n')).toEqual([]);
    expect(leftovers(await probed.s3rver)).toEqual([]);
  }, 240_000);

  it.skipIf(!HAVE_MOTO)(
    'shows every departure of baselines/moto.yaml, and holds wherever moto passes',
    async () => {
      const baseline = readForeignBaseline(path.join(ROOT, 'baselines', 'moto.yaml'));
      const found = disagreements(baseline, await probed.moto);
      expect(found, found.join('\n\n')).toEqual([]);
      expect(leftovers(await probed.moto)).toEqual([]);
    },
    240_000,
  );
});
