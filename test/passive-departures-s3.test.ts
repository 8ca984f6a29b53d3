import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { LoadedSuites } from '../runner/load/suite.ts';
import type { RunResults } from '../runner/model/results.ts';
import { ROOT } from '../runner/util/paths.ts';
import { haveBoto3 } from './helpers/not-run.ts';
import {
  clauseVerdicts,
  expectFailsInPassing,
  failingClauses,
  judgedInPassing,
} from './helpers/passive-recording.ts';
import { TrafficDriver } from './helpers/traffic-driver.ts';

// Departures everyday S3 traffic carries, judged in passing: what each object answer must say (its
// size, type, date, ETag, encryption), what a listing and a conditional read must say given what the
// traffic saw before. boto3 makes the traffic (test/passive/traffic_s3.py), the proxy judges it on
// its way to the reference: fault-free nothing fails; with each fault on, its clause fails in passing,
// and nothing outside the clauses the fault breaks.

const TRAFFIC = path.join(ROOT, 'test', 'passive', 'traffic_s3.py');
const HAVE_BOTO3 = haveBoto3('boto3 traffic judged in passing (test/passive-departures-s3.test.ts)');
const asOf = today();
let suites: LoadedSuites;
/** One boto3 process drives every server of the file, each a reference with a fault of its own. */
let driver: TrafficDriver;

/** The clauses this traffic judges in passing, fault-free. */
const JUDGED = [
  's3.object.content-headers',
  's3.object.user-metadata',
  's3.cond.get-dates',
  's3.cond.precedence',
  's3.sse.bucket-default',
  's3.object.last-modified',
  's3.object.etag-md5',
  's3.sse.aes256',
  's3.list.object-attributes',
  's3.error.no-such-key',
  's3.list.no-cursor-at-max-keys',
  's3.list.pagination',
  's3.cond.get-not-modified',
  's3.list.key-order',
  's3.list.max-keys-echo',
  's3.list.start-after-echo',
  's3.list.fetch-owner',
  's3.checksum.crc32-mismatch',
  's3.delete.empty-malformed-xml',
  's3.mpu.list-uploads-encoding',
  's3.object.multipart-headers',
  's3.checksum.multipart-composite',
  's3.put.aws-chunked-not-streaming',
  's3.region.auto',
  's3.presign.signed-payload',
];

/** The reference with `faults`, behind the proxy, sent the boto3 traffic. */
function observe(faults: string[] = []): Promise<RunResults> {
  return judgedInPassing({
    suites,
    asOf,
    faults,
    recorded: true,
    drive: async (proxy, ref) => {
      const c = ref.context.credentials;
      await driver.drive([proxy.urls.s3!, c.accessKeyId, c.secretAccessKey, 'auto', 'everyday']);
    },
  });
}

const verdicts = clauseVerdicts;
const failing = failingClauses;

describe.skipIf(!HAVE_BOTO3)('departures everyday S3 traffic carries are judged in passing', () => {
  beforeAll(async () => {
    const areas = listAreas();
    suites = await loadSuites(areas, areas);
    driver = new TrafficDriver(TRAFFIC);
  });
  afterAll(() => driver.close());

  it('fault-free: every clause the traffic judges passes, and none fails', async () => {
    const results = await observe();
    expect(failing(results)).toEqual([]);
    const v = verdicts(results);
    for (const id of JUDGED) expect(v[id], id).toBe('pass');
  }, 60_000);

  for (const [fault, clause] of [
    ['s3-head-content-length-zero', 's3.object.content-headers'],
    ['s3-metadata-dropped', 's3.object.user-metadata'],
    ['s3-cond-modified-since-ignored', 's3.cond.get-dates'],
    ['s3-cond-none-match-first', 's3.cond.precedence'],
    ['s3-sse-bucket-default-not-applied', 's3.sse.bucket-default'],
    ['s3-sse-bucket-default-not-kept', 's3.sse.bucket-default'],
    ['s3-sse-bucket-default-head-omitted', 's3.sse.bucket-default'],
    ['s3-cond-match-dropped-with-none-match', 's3.cond.precedence'],
    ['s3-cond-unmodified-since-ignored', 's3.cond.get-dates'],
    ['s3-cond-dates-to-the-millisecond', 's3.cond.get-dates'],
    ['s3-metadata-head-omitted', 's3.object.user-metadata'],
    ['s3-head-content-type-omitted', 's3.object.content-headers'],
    ['s3-last-modified-get-omitted', 's3.object.last-modified'],
    ['s3-put-etag-omitted', 's3.object.etag-md5'],
    ['s3-put-etag-unquoted', 's3.object.etag-md5'],
    ['s3-sse-header-not-echoed', 's3.sse.aes256'],
    ['s3-sse-not-kept', 's3.sse.aes256'],
    ['s3-list-last-modified-http-date', 's3.list.object-attributes'],
    ['s3-no-such-key-generic', 's3.error.no-such-key'],
    ['s3-list-cursor-at-max-keys', 's3.list.no-cursor-at-max-keys'],
    ['s3-list-v1-truncated-false-lies', 's3.list.pagination'],
    ['s3-cond-head-if-match-unchecked', 's3.cond.get-not-modified'],
    ['s3-cond-get-304-ignored', 's3.cond.get-not-modified'],
    ['s3-list-case-insensitive-order', 's3.list.key-order'],
    ['s3-list-v1-locale-order', 's3.list.key-order'],
    ['s3-list-max-keys-echo-1000', 's3.list.max-keys-echo'],
    ['s3-list-max-keys-echo-omitted', 's3.list.max-keys-echo'],
    ['s3-list-start-after-not-echoed', 's3.list.start-after-echo'],
    ['s3-list-start-after-echo-encoded', 's3.list.start-after-echo'],
    ['s3-list-fetch-owner-ignored', 's3.list.fetch-owner'],
    ['s3-list-fetch-owner-present-means-true', 's3.list.fetch-owner'],
    ['s3-checksum-crc32-unverified', 's3.checksum.crc32-mismatch'],
    ['s3-delete-objects-empty-accepted', 's3.delete.empty-malformed-xml'],
    ['s3-list-uploads-encoding-ignored', 's3.mpu.list-uploads-encoding'],
    ['s3-list-uploads-encoding-latin1', 's3.mpu.list-uploads-encoding'],
    ['s3-multipart-headers-dropped', 's3.object.multipart-headers'],
    ['s3-multipart-content-encoding-first-coding', 's3.object.multipart-headers'],
    ['s3-part-checksum-not-answered', 's3.checksum.multipart-composite'],
    ['s3-complete-checksum-of-body', 's3.checksum.multipart-composite'],
    ['s3-complete-checksum-missing', 's3.checksum.multipart-composite'],
    ['s3-checksum-mode-head-ignored', 's3.checksum.multipart-composite'],
    ['s3-aws-chunked-by-content-encoding', 's3.put.aws-chunked-not-streaming'],
    ['s3-aws-chunked-kept-when-not-streaming', 's3.put.aws-chunked-not-streaming'],
    ['s3-aws-chunked-only-trailing-stripped', 's3.put.aws-chunked-not-streaming'],
    ['s3-copy-self-allowed', 's3.copy.onto-itself'],
  ] as const) {
    it(`with the fault ${fault}, ${clause} fails, and nothing outside the fault's clauses`, async () => {
      expectFailsInPassing(await observe([fault]), fault, clause);
    }, 60_000);
  }
});
