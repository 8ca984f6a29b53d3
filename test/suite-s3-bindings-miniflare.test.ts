import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type MiniflareProbe, startMiniflareProbe } from '../cli/bindings-miniflare.ts';
import { runEdgecheck } from '../runner/api.ts';
import type { RunResults } from '../runner/model/results.ts';
import type { Target } from '../runner/model/target.ts';
import { PROBE_SECRET_HEADER } from '../runner/transports/bindings.ts';
import { ROOT } from '../runner/util/paths.ts';

/*
 * The workers runtime itself: the bindings probe runs in Miniflare (workerd) on loopback, and the
 * cases and properties citing a worker-bindings clause run against it through a target that has
 * only the probe. Its clause verdicts are compared with baselines/miniflare-bindings.yaml; any
 * change, either way, fails.
 */

const SEED = 20261123;
const BASELINE = path.join(ROOT, 'baselines', 'miniflare-bindings.yaml');

interface Baseline {
  target: string;
  clauses: Record<string, { verdict: 'fail' | 'error'; reason: string }>;
}

let probe: MiniflareProbe | undefined;
let results: RunResults;

beforeAll(async () => {
  probe = await startMiniflareProbe();
  const target: Target = {
    name: 'miniflare',
    features: ['worker-bindings'],
    bindings: { url: probe.url, legacyUrl: probe.legacyUrl, secret: probe.secret },
  };
  results = await runEdgecheck({
    suites: ['s3'],
    // The cases and properties that cite a bindings clause.
    clauses: ['s3.bindings.*'],
    target,
    seed: SEED,
    baseline: BASELINE,
    reporters: [],
  });
}, 60_000);

afterAll(async () => {
  await probe?.close();
});

describe('the worker-bindings cases and properties against Miniflare', () => {
  const baseline = parse(readFileSync(BASELINE, 'utf8')) as Baseline;

  it('the probe listens on loopback only and refuses a call without its secret', async () => {
    for (const url of [probe!.url, probe!.legacyUrl]) {
      expect(new URL(url).hostname).toBe('127.0.0.1');
      const call = { method: 'POST', body: JSON.stringify({ call: 'head', key: 'k' }) };
      expect((await fetch(url, call)).status).toBe(401);
      const wrong = await fetch(url, { ...call, headers: { [PROBE_SECRET_HEADER]: 'not-the-secret' } });
      expect(wrong.status).toBe(401);
      const right = await fetch(url, { ...call, headers: { [PROBE_SECRET_HEADER]: probe!.secret } });
      expect(await right.json()).toEqual({ result: null });
    }
  });

  it('no clause fails or errors beyond baselines/miniflare-bindings.yaml, each the way it says', () => {
    const observed = Object.fromEntries(
      results.clauses
        .filter((c) => c.verdict === 'fail' || c.verdict === 'error')
        .map((c) => [c.id, c.verdict]),
    );
    const expected = Object.fromEntries(Object.entries(baseline.clauses).map(([id, e]) => [id, e.verdict]));
    expect(observed).toEqual(expected);
    expect(results.baseline).toMatchObject({ newFailures: [], fixed: [] });
    expect(results.cases.filter((c) => c.verdict === 'fail' || c.verdict === 'error')).toEqual([]);
  });

  it('judges every worker-bindings clause, and skips only the case that needs an S3 endpoint, saying so', () => {
    const bindings = results.clauses.filter((c) => c.feature === 'worker-bindings');
    expect(bindings.length).toBeGreaterThanOrEqual(9);
    const notPassed = bindings
      .filter((c) => c.verdict !== 'pass' && !(c.id in baseline.clauses))
      .map((c) => `${c.id}: ${c.verdict}`);
    expect(notPassed).toEqual([]);
    const skipped = results.cases.filter((c) => c.verdict === 'skipped').map((c) => [c.id, c.reason]);
    expect(skipped).toEqual([['s3.bindings.across-interfaces', 'the target has no S3 endpoint configured']]);
    expect(results.cases.find((c) => c.id === 's3.prop.bindings-etag-lists')?.verdict).toBe('pass');
  });

  it('leaves nothing behind and never writes the probe secret into the results', () => {
    expect(results.cases.flatMap((c) => c.leftovers ?? [])).toEqual([]);
    expect(JSON.stringify(results)).not.toContain(probe!.secret);
  });
});
