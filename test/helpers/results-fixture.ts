import { PassThrough } from 'node:stream';
import { departureCounts } from '../../runner/model/departures.ts';
import type {
  CaseResult,
  CheckResult,
  ClauseResult,
  Reporter,
  RunResults,
  Tally,
} from '../../runner/model/results.ts';
import { type ClauseVerdict, type Verdict, worst } from '../../runner/model/verdict.ts';
import { eventsOf } from '../../runner/results/events.ts';

/** Synthetic results for reporter tests: builders with defaults, and a run with every verdict. */

export function check(p: Partial<CheckResult> & Pick<CheckResult, 'caseId' | 'clauses'>): CheckResult {
  return { step: 'step 1', index: 0, verdict: 'pass', origin: `suites/x/${p.caseId}.case.yaml:10`, ...p };
}

export function caseResult(
  id: string,
  area: string,
  checks: Omit<CheckResult, 'caseId' | 'index'>[] | CheckResult[],
  p: Partial<CaseResult> = {},
): CaseResult {
  const full = checks.map((c, index) => ({ index, ...c, caseId: id }));
  return {
    id,
    title: `Case ${id}`,
    file: `suites/${area}/${id}.case.yaml`,
    area,
    verdict: worst(
      full.map((c) => c.verdict),
      'skipped' as Verdict,
    ),
    durationMs: 120,
    checks: full,
    ...p,
  };
}

export function clause(id: string, p: Partial<ClauseResult> = {}): ClauseResult {
  const area = id.startsWith('s3.') ? 's3' : id.startsWith('dep.') ? 'deprecations' : 'management';
  return {
    id,
    area,
    section: 'Errors / 1',
    title: `Title of ${id}`,
    source: 'spec',
    verdict: 'untested',
    checks: 0,
    ...p,
  };
}

function tally<V extends string>(keys: readonly V[], values: readonly V[]): Tally<V> {
  const out = Object.fromEntries(keys.map((k) => [k, 0])) as Tally<V>;
  for (const v of values) out[v] += 1;
  return out;
}

const VERDICTS = ['pass', 'fail', 'error', 'blocked', 'skipped'] as const;

/**
 * A RunResults whose clause verdicts (when a clause gives none other than the default) and
 * summary follow from the cases, as the runner computes them.
 */
export function runResults(
  clauses: ClauseResult[],
  cases: CaseResult[],
  p: Partial<RunResults> = {},
): RunResults {
  const checks = cases.flatMap((c) => c.checks);
  const judged = clauses.map((cl) => {
    const citing = checks.filter((k) => k.clauses.includes(cl.id));
    const verdict: ClauseVerdict =
      cl.verdict !== 'untested' || !citing.length
        ? cl.verdict
        : worst<ClauseVerdict>(
            citing.map((k) => k.verdict),
            'untested',
          );
    const failing = citing.find((k) => (k.verdict === 'fail' || k.verdict === 'error') && k.message);
    return {
      ...cl,
      verdict,
      checks: citing.length,
      ...(failing?.message ? { message: failing.message } : {}),
    };
  });
  const clauseTally = tally<ClauseVerdict>(
    [...VERDICTS, 'untested'],
    judged.map((c) => c.verdict),
  );
  const departing = judged.filter((c) => c.amazon !== undefined);
  return {
    edgecheck: '0.1.0',
    runId: 'r-test01',
    target: { name: 'reference', management: 'http://127.0.0.1:1', s3: 'http://127.0.0.1:2', embedded: true },
    asOf: '2025-02-01',
    profile: 'quick',
    seed: 42,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1234,
    summary: {
      clauses: clauseTally,
      cases: tally<Verdict>(
        VERDICTS,
        cases.map((c) => c.verdict),
      ),
      checks: tally<Verdict>(
        VERDICTS,
        checks.map((c) => c.verdict),
      ),
      ...(departing.length
        ? {
            departures: tally<ClauseVerdict>(
              [...VERDICTS, 'untested'],
              departing.map((c) => c.verdict),
            ),
            departureAnswers: departureCounts(judged),
          }
        : {}),
    },
    clauses: judged,
    cases,
    leftovers: cases.flatMap((c) => (c.leftovers ?? []).map((l) => ({ caseId: c.id, ...l }))),
    interrupted: false,
    exitCode: clauseTally.fail + clauseTally.error > 0 || cases.some((c) => c.leftovers?.length) ? 1 : 0,
    ...p,
  };
}

export const NASTY = 'a<b>&"c\' \u0001\u001b[31m]]> ✓';

/** Three areas and every verdict: pass, fail (with repro), error, blocked, skipped by date, untested. */
export function sampleResults(): RunResults {
  const cases = [
    caseResult('mgmt.zones.get', 'management', [
      {
        step: 'get-zone',
        clauses: ['mgmt.envelope.success'],
        verdict: 'pass',
        origin: 'suites/management/zones.case.yaml:12',
      },
      {
        step: 'get-zone',
        clauses: ['mgmt.envelope.errors', 'mgmt.envelope.success'],
        verdict: 'fail',
        title: 'errors is empty on success',
        message: 'json /errors: expected [] but got 1 element',
        expected: [],
        actual: [{ code: 1000, message: 'oops' }],
        repro:
          "curl -sS -X GET 'http://127.0.0.1:1/client/v4/zones/abc' -H 'Authorization: Bearer <redacted>'",
        origin: 'suites/management/zones.case.yaml:14:9',
        source: {
          file: 'suites/management/zones.case.yaml',
          line: 15,
          column: 26,
          lines: [
            { n: 12, text: '    api: { method: GET, path: /zones/abc }' },
            { n: 13, text: '    expect:' },
            { n: 14, text: '      - clauses: [mgmt.envelope.errors, mgmt.envelope.success]' },
            { n: 15, text: '        json: { /errors: [] }' },
          ],
        },
        exchange: {
          request: {
            method: 'GET',
            url: 'http://127.0.0.1:1/client/v4/zones/abc',
            headers: { accept: 'application/json', authorization: '[REDACTED]' },
          },
          response: {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: { size: 64, text: '{"success":true,"errors":[{"code":1000,"message":"oops"}]}' },
          },
        },
      },
    ]),
    caseResult('mgmt.dns.create', 'management', [
      {
        step: 'create',
        clauses: ['mgmt.dns.error-chain'],
        verdict: 'error',
        message: 'timeout after 30000 ms',
        origin: 'suites/management/dns.case.yaml:20',
      },
    ]),
    caseResult(
      's3.get.ranges',
      's3',
      [
        {
          step: 'first-byte',
          clauses: ['s3.get.range-inclusive'],
          verdict: 'blocked',
          message: 'given 2 failed: PutObject returned 500',
          origin: 'suites/s3/get.case.yaml:9',
        },
      ],
      {
        reason: 'given 2 failed: PutObject returned 500',
        leftovers: [
          {
            what: 'bucket b',
            error: 'DeleteBucket returned 409',
            undo: 'aws s3 rb s3://b --force --endpoint-url http://127.0.0.1:2 --region auto',
          },
        ],
      },
    ),
    caseResult('s3.list.basic', 's3', [
      { step: 'list', clauses: ['s3.list.key-count'], verdict: 'pass', origin: 'suites/s3/list.case.yaml:5' },
      {
        step: 'list',
        clauses: [`s3.list.nasty`],
        verdict: 'fail',
        title: `title ${NASTY}`,
        message: `message ${NASTY}`,
        expected: `expected ${NASTY}`,
        actual: `actual ${NASTY}`,
        repro: `curl 'http://127.0.0.1:2/b?x=${NASTY}'`,
        origin: 'suites/s3/list.case.yaml:8',
      },
    ]),
    caseResult('dep.locked.omitted', 'deprecations', [
      {
        step: 'get',
        clauses: ['dep.dns-locked.present'],
        verdict: 'skipped',
        message: 'outside the date window of every cited clause',
        origin: 'suites/deprecations/locked.case.yaml:7',
      },
    ]),
  ];
  const clauses = [
    clause('mgmt.envelope.success', { section: 'Resources and their fields / Response envelope' }),
    clause('mgmt.envelope.errors', { section: 'Resources and their fields / Response envelope' }),
    clause('mgmt.dns.error-chain', { section: 'Errors / 2' }),
    clause('mgmt.auth.secrets', {
      section: 'Authentication / 1',
      untestable: 'storage of tokens is not observable',
    }),
    clause('s3.get.range-inclusive', { section: 'Object storage S3-compatible interface: behaviours / 10' }),
    clause('s3.list.key-count', {
      section: 'Object storage S3-compatible interface: behaviours / 13',
      source: 's3',
    }),
    clause('s3.list.nasty', {
      section: 'Object storage S3-compatible interface: behaviours / 13',
      title: `t ${NASTY}`,
    }),
    clause('dep.dns-locked.present', { section: 'Versioning', until: '2024-07-14', verdict: 'skipped' }),
  ];
  return runResults(clauses, cases);
}

/** Feeds a run (all events, or those before run-end when `interrupted`) and closes the reporter. */
export async function feed(reporter: Reporter, results: RunResults, interrupted = false): Promise<void> {
  for (const e of eventsOf(results)) {
    if (interrupted && e.type === 'run-end') break;
    reporter.onEvent(e);
  }
  await reporter.close();
}

/** A writable stream that keeps what was written; `tty` makes it look like a terminal. */
export function memoryStream(tty = false): PassThrough & { text(): string; isTTY?: boolean } {
  const chunks: Buffer[] = [];
  const stream = new PassThrough() as PassThrough & { text(): string; isTTY?: boolean };
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.text = () => Buffer.concat(chunks).toString('utf8');
  if (tty) stream.isTTY = true;
  return stream;
}

export { eventsOf };

/**
 * An S3 run where some failures are where SPEC departs from Amazon S3 (clauses with `amazon`):
 * range-206 fails (shared semantics); the lifecycle stand-in fails as Amazon S3 answers, the
 * replication stand-in fails with an answer that is neither, region auto fails uncompared (a
 * property), object lock errors uncompared, the abort is blocked (no departure) and the tagging
 * stand-in passes, all six departing.
 */
export function departureResults(): RunResults {
  const amazon = {
    's3.standin.get-bucket-lifecycle': '404 NoSuchLifecycleConfiguration',
    's3.standin.get-bucket-replication': '404 ReplicationConfigurationNotFoundError',
    's3.region.auto': 'a signature for region auto is refused',
    's3.lock.create-enabled-not-implemented': 'creates the bucket with object lock enabled',
    's3.mpu.abort-repeatable': 'a repeated abort answers 404 NoSuchUpload',
    's3.standin.get-bucket-tagging': '404 NoSuchTagSet',
  };
  /** What the engine made of each failing answer against Amazon S3's. */
  const match: Record<string, boolean> = {
    's3.standin.get-bucket-lifecycle': true,
    's3.standin.get-bucket-replication': false,
  };
  const verdicts: [string, Verdict, string?][] = [
    ['s3.get.range-206', 'fail', 'status: expected 206, got 200'],
    ['s3.standin.get-bucket-lifecycle', 'fail', 'status: expected 200, got 404'],
    ['s3.standin.get-bucket-replication', 'fail', 'status: expected 200, got 501'],
    ['s3.region.auto', 'fail', 'status: expected 200, got 400'],
    ['s3.lock.create-enabled-not-implemented', 'error', 'the target did not answer'],
    ['s3.mpu.abort-repeatable', 'blocked', 'abort was refused (status 405 MethodNotAllowed)'],
    ['s3.standin.get-bucket-tagging', 'pass'],
    ['s3.get.range-inclusive', 'pass'],
  ];
  const cases = verdicts.map(([id, verdict, message], i) =>
    caseResult(`${id}.case`, 's3', [
      {
        step: 'step 1',
        clauses: [id],
        verdict,
        origin: `suites/s3/x.case.yaml:${i + 10}`,
        ...(message ? { message } : {}),
      },
    ]),
  );
  const clauses = verdicts.map(([id]) =>
    clause(id, {
      section: 'Object storage S3-compatible interface: behaviours / 4',
      ...(id in amazon ? { amazon: amazon[id as keyof typeof amazon] } : {}),
      ...(id in match ? { amazonMatch: match[id] } : {}),
    }),
  );
  return runResults(clauses, cases);
}
