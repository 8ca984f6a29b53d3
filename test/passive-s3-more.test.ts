import { beforeAll, describe, expect, it } from 'vitest';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { LoadedSuites } from '../runner/load/suite.ts';
import type { RunResults } from '../runner/model/results.ts';
import {
  clauseVerdicts,
  expectFailsInPassing,
  failingClauses,
  judgedInPassing,
  whyFailing,
} from './helpers/passive-recording.ts';
import { sdkClient } from './helpers/passive-traffic.ts';
import { moreS3Traffic } from './helpers/passive-traffic-more.ts';

// The S3 clauses judged in passing beyond listings, ranges and conditionals: bucket configuration,
// encryption, checksums, copies, deletes and multipart uploads by their ids, and the refusals SPEC
// asks for, in the AWS SDK's traffic through the proxy in front of the reference. Fault-free, each
// clause the traffic reaches passes (a refusal clause stays untested: the right refusal, with no
// twin in the traffic, proves nothing); with a fault on, its clause fails, and nothing outside the
// clauses the fault breaks.

const asOf = today();
let suites: LoadedSuites;

/** The clauses this traffic judges and that hold, fault-free. */
const OBSERVED = [
  's3.region.get-bucket-location',
  's3.region.get-bucket-location-sdk',
  's3.region.create-location-header',
  's3.standin.get-bucket-acl',
  's3.standin.get-bucket-versioning',
  's3.standin.get-bucket-lifecycle',
  's3.standin.get-bucket-replication',
  's3.standin.get-bucket-tagging',
  's3.standin.get-object-lock',
  's3.encryption.get',
  's3.sse.aes256',
  's3.sse.copy',
  's3.sse.multipart',
  's3.put.checksum-sha256',
  's3.put.checksum-sha1',
  's3.checksum.put-algorithms',
  's3.checksum.mode-enabled',
  's3.copy.version-headers',
  's3.object.delete-missing',
  's3.delete.no-trim',
  's3.delete.quiet',
  's3.mpu.list-parts',
  's3.mpu.complete-repeatable',
  's3.mpu.abort-repeatable',
  's3.mpu.etag-quotes-ignored',
  's3.error.no-such-upload',
  's3.error.cors-no-match-not-403',
  's3.lifecycle.rule-id-assigned',
  's3.region.create-location-constraint',
  's3.list.buckets-cf-headers',
  's3.get.response-overrides',
  's3.get.range-invalid-ignored',
];

/** The reference with `faults`, behind the proxy, driven by the AWS SDK. */
function observe(faults: string[] = []): Promise<RunResults> {
  return judgedInPassing({
    suites,
    asOf,
    faults,
    drive: async (proxy, ref) => {
      const s3 = sdkClient(proxy.urls.s3!, ref.context.credentials);
      try {
        await moreS3Traffic(s3, 'observed-more', proxy.urls.s3!);
      } finally {
        s3.destroy();
      }
    },
  });
}

const verdicts = clauseVerdicts;
const failing = failingClauses;
const why = whyFailing;

describe('S3 configuration, checksums, deletes, uploads and refusals judged in passing', () => {
  beforeAll(async () => {
    const areas = listAreas();
    suites = await loadSuites(areas, areas);
  });

  it('fault-free: every clause the traffic reaches passes, the refusal clauses stay untested, none fails', async () => {
    const results = await observe();
    expect(failing(results), why(results)).toEqual([]);
    const v = verdicts(results);
    expect(OBSERVED.filter((id) => v[id] !== 'pass')).toEqual([]);
  }, 120_000);

  for (const [fault, clause] of [
    ['s3-location-empty', 's3.region.get-bucket-location'],
    ['s3-location-no-xmlns', 's3.region.get-bucket-location-sdk'],
    ['s3-create-bucket-no-location', 's3.region.create-location-header'],
    ['s3-standin-not-implemented', 's3.standin.get-bucket-tagging'],
    ['s3-encryption-not-implemented', 's3.encryption.get'],
    ['s3-encryption-delete-removes-configuration', 's3.encryption.delete-resets-default'],
    ['s3-sse-header-not-echoed', 's3.sse.aes256'],
    ['s3-sse-copy-header-missing', 's3.sse.copy'],
    ['s3-sse-upload-part-header-missing', 's3.sse.multipart'],
    ['s3-sse-complete-header-missing', 's3.sse.multipart'],
    ['s3-checksum-headers-rejected', 's3.put.checksum-sha256'],
    ['s3-checksum-sha1-not-implemented', 's3.put.checksum-sha1'],
    ['s3-checksum-not-answered', 's3.checksum.put-algorithms'],
    ['s3-checksum-mode-ignored', 's3.checksum.mode-enabled'],
    ['s3-checksum-mode-head-ignored', 's3.checksum.mode-enabled'],
    ['s3-put-checksum-unverified', 's3.put.checksum-mismatch'],
    ['s3-content-md5-ignored', 's3.put.content-md5'],
    ['s3-content-md5-invalid-digest', 's3.put.content-md5'],
    ['s3-copy-no-version-headers', 's3.copy.version-headers'],
    ['s3-delete-missing-404', 's3.object.delete-missing'],
    ['s3-create-bucket-if-missing-ignored', 's3.put.create-bucket-if-missing'],
    ['s3-delete-objects-trims-keys', 's3.delete.no-trim'],
    ['s3-delete-objects-quiet-ignored', 's3.delete.quiet'],
    ['s3-delete-objects-missing-not-listed', 's3.delete.quiet'],
    ['s3-list-parts-empty', 's3.mpu.list-parts'],
    ['s3-abort-repeat-error', 's3.mpu.abort-repeatable'],
    ['s3-abort-keeps-upload', 's3.error.no-such-upload'],
    ['s3-upload-part-unknown-upload-500', 's3.error.no-such-upload'],
    ['s3-complete-repeat-no-such-upload', 's3.mpu.complete-repeatable'],
    ['s3-complete-etag-quotes-strict', 's3.mpu.etag-quotes-ignored'],
    ['s3-cors-no-match-403', 's3.error.cors-no-match-not-403'],
    ['s3-object-lock-accepted', 's3.lock.create-enabled-not-implemented'],
    ['s3-bucket-name-upper-accepted', 's3.bucket.name-rules'],
    ['s3-sse-kms-ignored', 's3.sse.unsupported-not-implemented'],
    ['s3-sse-kms-key-alone-accepted', 's3.sse.request-headers-refused'],
    ['s3-encryption-any-algorithm', 's3.encryption.put-other-rejected'],
    ['s3-lifecycle-id-shared', 's3.lifecycle.rule-id-assigned'],
    ['s3-lifecycle-id-not-assigned', 's3.lifecycle.rule-id-assigned'],
    ['s3-lifecycle-status-any-case', 's3.lifecycle.status-malformed-xml'],
    ['s3-lifecycle-status-invalid-argument', 's3.lifecycle.status-malformed-xml'],
    ['s3-lifecycle-days-zero-accepted', 's3.lifecycle.rules-validated'],
    ['s3-location-constraint-any', 's3.region.create-location-constraint'],
    ['s3-location-constraint-auto-refused', 's3.region.create-location-constraint'],
    ['s3-encryption-other-500', 's3.encryption.put-other-rejected'],
    ['s3-list-buckets-cf-headers-ignored', 's3.list.buckets-cf-headers'],
    ['s3-list-buckets-cf-start-after-ignored', 's3.list.buckets-cf-headers'],
    ['s3-response-overrides-ignored', 's3.get.response-overrides'],
    ['s3-response-overrides-type-and-disposition-only', 's3.get.response-overrides'],
    ['s3-range-reversed-416', 's3.get.range-invalid-ignored'],
    ['s3-range-malformed-500', 's3.get.range-invalid-ignored'],
    ['s3-copy-source-slash-rejected', 's3.copy.source-leading-slash'],
  ] as const) {
    it(`with the fault ${fault}, ${clause} fails in passing, and nothing outside the fault's clauses`, async () => {
      expectFailsInPassing(await observe([fault]), fault, clause);
    }, 120_000);
  }
});
