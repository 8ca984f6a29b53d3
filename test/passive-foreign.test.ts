import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { LoadedSuites } from '../runner/load/suite.ts';
import type { RunResults } from '../runner/model/results.ts';
import { PassiveJudge, passiveResults, startProxy } from '../runner/passive/index.ts';
import { ROOT } from '../runner/util/paths.ts';
import { type ForeignServer, haveMoto, startMoto, startS3rver } from './helpers/foreign-servers.ts';
import { haveBoto3, haveBotocore } from './helpers/not-run.ts';
import { s3Traffic, sdkClient, settle } from './helpers/passive-traffic.ts';
import { moreS3Traffic } from './helpers/passive-traffic-more.ts';

/*
 * What the passive judge says of servers nobody here wrote (moto, s3rver), checked by a judge that
 * is not edgecheck: test/truth/truth.py decides each clause with botocore's signer and plain HTTP.
 * A clause the traffic contradicted must be one the probe shows departing. What each probe saw is
 * written to test-output/passive-truth-<server>.txt.
 */

const TRUTH = path.join(ROOT, 'test', 'truth', 'truth.py');
const BOTO3_TRAFFIC = path.join(ROOT, 'test', 'passive', 'traffic_s3.py');
const run = promisify(execFile);
const HAVE_PYTHON = haveBotocore(
  "the independent check of the passive judge's verdicts on foreign servers (test/passive-foreign.test.ts)",
);

interface Probed {
  clause: string;
  outcome: 'holds' | 'departs' | 'unjudgeable' | 'broken';
  reason: string;
  transcript: string[];
}

let suites: LoadedSuites;

/** The server's S3 traffic through the proxy, judged; the S3 clauses it judged. */
async function judged(server: ForeignServer): Promise<RunResults> {
  const asOf = today();
  const judge = new PassiveJudge({ clauses: suites.clauses.values(), properties: suites.properties }, asOf);
  const proxy = await startProxy({
    upstream: { s3: server.s3.endpoint },
    onExchange: (ex) => judge.observe(ex),
  });
  const s3 = sdkClient(proxy.urls.s3!, server.s3, server.s3.region);
  const startedAt = new Date();
  try {
    await s3Traffic(s3, 'passive-foreign');
    await settle(moreS3Traffic(s3, 'passive-foreign-more', proxy.urls.s3!));
    // boto3's everyday calls too (test/passive-departures-s3.test.ts), where boto3 is installed.
    if (haveBoto3('boto3 traffic to foreign servers (test/passive-foreign.test.ts)')) {
      const c = server.s3;
      await run(
        'python3',
        [BOTO3_TRAFFIC, proxy.urls.s3!, c.accessKeyId, c.secretAccessKey, c.region, 'everyday'],
        {
          timeout: 60_000,
        },
      );
    }
  } finally {
    s3.destroy();
    await proxy.close();
  }
  return passiveResults({
    judge,
    clauses: [...suites.clauses.values()],
    mode: 'proxy',
    target: { name: server.name, embedded: false },
    asOf,
    startedAt,
  });
}

async function probe(server: ForeignServer, clauses: string[]): Promise<Map<string, Probed>> {
  const s = server.s3;
  const { stdout } = await run(
    'python3',
    [
      TRUTH,
      '--endpoint',
      s.endpoint,
      '--region',
      s.region,
      '--key',
      s.accessKeyId,
      '--secret',
      s.secretAccessKey,
      '--json',
      ...clauses,
    ],
    { timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
  );
  const probed = stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Probed);
  mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
  writeFileSync(
    path.join(ROOT, 'test-output', `passive-truth-${server.name}.txt`),
    probed
      .map((p) =>
        [`${p.clause}: ${p.outcome}: ${p.reason}`, ...p.transcript.map((l) => `    ${l}`)].join('\n'),
      )
      .join('\n'),
  );
  return new Map(probed.map((p) => [p.clause, p]));
}

describe.skipIf(!HAVE_PYTHON)(
  "the passive judge's verdicts on foreign servers, by the independent judge",
  () => {
    const servers: ForeignServer[] = [];
    beforeAll(async () => {
      const areas = listAreas();
      suites = await loadSuites(areas, areas);
      servers.push(await startS3rver());
      if (haveMoto()) servers.push(await startMoto());
    }, 60_000);
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.close()));
    });

    for (const name of ['s3rver', 'moto'] as const) {
      it(`${name}: every S3 clause the traffic contradicts is one the independent probe shows departing`, async (ctx) => {
        const server = servers.find((s) => s.name === name);
        if (!server) return ctx.skip();
        const results = await judged(server);
        const verdicts = new Map(
          results.clauses
            .filter((c) => c.area === 's3' && (c.verdict === 'pass' || c.verdict === 'fail'))
            .map((c) => [c.id, c.verdict]),
        );
        const s = server.s3;
        const { stdout: decidable } = await run('python3', [
          TRUTH,
          '--endpoint',
          s.endpoint,
          '--key',
          s.accessKeyId,
          '--secret',
          s.secretAccessKey,
          '--list',
        ]);
        const decided = new Set(decidable.split('\n').filter(Boolean));
        const asked = [...verdicts.keys()].filter((id) => decided.has(id));
        const probed = await probe(server, asked);
        const show = (id: string) => {
          const p = probed.get(id);
          const evidence = results.cases
            .flatMap((c) => c.checks)
            .find((k) => k.clauses.includes(id) && k.verdict === 'fail');
          return `${id}: passive ${verdicts.get(id)}${evidence ? ` (${evidence.message})` : ''}; probe ${p ? `${p.outcome}: ${p.reason}\n      ${p.transcript.slice(-8).join('\n      ')}` : 'none'}`;
        };
        // A failure claims the server departs: the probe must show it. A pass claims only that the
        // exchanges seen held; where the probe finds a departure the traffic never reached, it is
        // counted and shown, not asserted.
        const falseFails = asked.filter(
          (id) => verdicts.get(id) === 'fail' && probed.get(id)?.outcome !== 'departs',
        );
        const unseen = asked.filter(
          (id) => verdicts.get(id) === 'pass' && probed.get(id)?.outcome === 'departs',
        );
        const fails = asked.filter((id) => verdicts.get(id) === 'fail').length;
        console.log(
          `${name}: ${verdicts.size} S3 clauses judged from traffic, ${asked.length} decided by a probe; ` +
            `${fails} failed, each shown departing by the probe: ${fails - falseFails.length}; ` +
            `${unseen.length} passed where the probe finds a departure the traffic did not reach: ${unseen.join(', ') || 'none'}`,
        );
        expect(asked.length).toBeGreaterThan(10);
        expect(fails).toBeGreaterThan(0);
        expect(falseFails, falseFails.map(show).join('\n')).toEqual([]);
      }, 300_000);
    }
  },
);
