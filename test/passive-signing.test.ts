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
import { signingTraffic } from './helpers/passive-traffic-signing.ts';

// How requests are signed, judged in passing: the region a request was signed for, requests sent
// with no signature, presigned URLs past their time. The traffic (helpers/passive-traffic-signing.ts)
// goes through the proxy to the reference, recorded, and edgecheck judge on the recording gives the
// proxy's verdicts. Under --resign the target checks the proxy's signature: what the client's own
// signature shows is then not judged, and the region the proxy signed for is.

const asOf = today();
let suites: LoadedSuites;

/** The reference with `faults`, behind the proxy (signing again with `resign`), sent the traffic. */
function observe(faults: string[] = [], resign = false): Promise<RunResults> {
  return judgedInPassing({
    suites,
    asOf,
    faults,
    recorded: true,
    resign,
    drive: async (proxy, ref) => {
      // Under --resign the client's keys need not be the target's.
      const keys = resign
        ? { accessKeyId: 'CLIENTSKEY', secretAccessKey: 'clients-own-secret' }
        : ref.context.credentials;
      await signingTraffic(proxy.urls.s3!, keys, 'signing');
    },
  });
}

describe('how requests are signed, judged in passing', () => {
  beforeAll(async () => {
    const areas = listAreas();
    suites = await loadSuites(areas, areas);
  });

  it('fault-free: the signing clauses the traffic reaches pass, and none fails', async () => {
    const results = await observe();
    expect(failingClauses(results), whyFailing(results)).toEqual([]);
    const v = clauseVerdicts(results);
    expect(v['s3.region.auto']).toBe('pass');
    expect(v['s3.region.aliases']).toBe('pass');
    expect(v['s3.auth.sigv4']).toBe('pass');
    expect(v['s3.presign.expired']).toBe('pass');
    expect(v['s3.presign.signed-payload']).toBe('pass');
    // Only the proxy that signs again holds the secret access key.
    expect(v['s3.auth.secret-not-echoed']).toBe('untested');
  }, 60_000);

  it('fault-free under --resign: the region the proxy signed for is judged, and none fails', async () => {
    const results = await observe([], true);
    expect(failingClauses(results), whyFailing(results)).toEqual([]);
    const v = clauseVerdicts(results);
    expect(v['s3.region.auto']).toBe('pass');
    expect(v['s3.region.aliases']).toBe('pass');
    // The proxy signs again over the payload hash the client declared.
    expect(v['s3.presign.signed-payload']).toBe('pass');
    expect(v['s3.auth.secret-not-echoed']).toBe('pass');
  }, 60_000);

  it('under --resign, the requests a client sent unsigned reach the target signed: s3.auth.sigv4 is not judged', async () => {
    const results = await observe(['s3-unsigned-accepted'], true);
    expect(failingClauses(results), whyFailing(results)).toEqual([]);
    expect(clauseVerdicts(results)['s3.auth.sigv4']).toBe('untested');
  }, 60_000);

  it('under --resign, a presigned URL is presigned again for a fresh time: s3.presign.expired is not judged', async () => {
    const results = await observe(['s3-presign-expiry-unchecked'], true);
    expect(failingClauses(results), whyFailing(results)).toEqual([]);
    expect(clauseVerdicts(results)['s3.presign.expired']).toBe('untested');
  }, 60_000);

  for (const [fault, clause, resign] of [
    ['s3-region-auto-create-refused', 's3.region.auto', false],
    ['s3-region-auto-create-refused', 's3.region.auto', true],
    ['s3-region-alias-rejected', 's3.region.aliases', false],
    ['s3-region-empty-rejected', 's3.region.aliases', false],
    // The client's us-east-1 is signed again for us-east-1, which the target refuses.
    ['s3-region-alias-rejected', 's3.region.aliases', true],
    // A presigned URL keeps its empty region when signed again (a header signature goes as auto).
    ['s3-region-empty-rejected', 's3.region.aliases', true],
    ['s3-unsigned-get-accepted', 's3.auth.sigv4', false],
    ['s3-unsigned-list-accepted', 's3.auth.sigv4', false],
    ['s3-unsigned-accepted', 's3.auth.sigv4', false],
    ['s3-presign-expiry-unchecked', 's3.presign.expired', false],
    ['s3-payload-hash-compared-as-base64', 's3.presign.signed-payload', false],
    ['s3-payload-hash-compared-as-base64', 's3.presign.signed-payload', true],
    // Its recording masks the key as what it is, and edgecheck judge fails the answer there too.
    ['s3-no-such-key-debug-credentials', 's3.auth.secret-not-echoed', true],
  ] as const) {
    it(`with the fault ${fault}${resign ? ' under --resign' : ''}, ${clause} fails in passing, and nothing outside the fault's clauses`, async () => {
      expectFailsInPassing(await observe([fault], resign), fault, clause);
    }, 60_000);
  }
});
