import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { LoadedSuites } from '../runner/load/suite.ts';
import { HarRecorder, type ObservedExchange, PassiveJudge, readHar } from '../runner/passive/index.ts';
import { bufferBody, partBody } from '../runner/transports/response.ts';
import { redactDeep, registerSecret, SECRET_ACCESS_KEY } from '../runner/util/redact.ts';

// What a conformant target may answer about signing that the observers of the signing clauses must
// leave alone, each beside the departure the same observer fails, so that "not failed" is not
// "never judges". Exchanges are made here, as the proxy would hand them over.

let suites: LoadedSuites;

beforeAll(async () => {
  const areas = listAreas();
  suites = await loadSuites(areas, areas);
});

const SIG = 'ab'.repeat(32);
const DAY = '20261202';

/** The headers of a request signed in the Authorization header for `region` on DAY. */
function signedFor(region: string, amzDate = `${DAY}T101010Z`): Record<string, string> {
  return {
    authorization: `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/${DAY}/${region}/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=${SIG}`,
    'x-amz-date': amzDate,
    'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
  };
}

const errorDoc = (code: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code></Error>`;

function exchange(
  method: string,
  target: string,
  requestHeaders: Record<string, string>,
  status: number,
  body = '',
  more: Partial<ObservedExchange> & { sent?: string } = {},
): ObservedExchange {
  const { sent, ...rest } = more;
  return {
    door: 's3',
    request: {
      method,
      target,
      headers: requestHeaders,
      ...(sent === undefined ? {} : { body: bufferBody(Buffer.from(sent)) }),
    },
    response: {
      status,
      headers: body ? { 'content-type': 'application/xml' } : {},
      body: bufferBody(Buffer.from(body)),
    },
    startedAt: new Date().toISOString(),
    ...rest,
  };
}

/** The verdict of `clause` from these exchanges alone (undefined: not judged). */
function verdict(clause: string, ...exchanges: ObservedExchange[]): string | undefined {
  const judge = new PassiveJudge(
    { clauses: suites.clauses.values(), properties: suites.properties },
    today(),
  );
  for (const ex of exchanges) judge.observe(ex);
  const checks = judge.cases().flatMap((c) => c.checks.filter((k) => k.clauses.includes(clause)));
  if (!checks.length) return undefined;
  return checks.some((k) => k.verdict === 'fail') ? 'fail' : 'pass';
}

describe('region auto', () => {
  const refused = (headers: Record<string, string>) =>
    exchange('GET', '/b/k', headers, 400, errorDoc('AuthorizationHeaderMalformed'));

  it('a request signed for auto answered 2xx passes; refused as AuthorizationHeaderMalformed fails', () => {
    expect(verdict('s3.region.auto', exchange('GET', '/b/k', signedFor('auto'), 200, 'x'))).toBe('pass');
    expect(verdict('s3.region.auto', refused(signedFor('auto')))).toBe('fail');
  });

  it('read alike from the Authorization header as a recording keeps it', () => {
    const recorded = redactDeep(signedFor('auto'));
    expect(recorded.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=\[REDACTED\]\/\d{8}\/auto\//);
    expect(verdict('s3.region.auto', refused(recorded))).toBe('fail');
  });

  it('other refusals, and a malformed refusal of a scope dated another day than X-Amz-Date, say nothing', () => {
    for (const code of [
      'SignatureDoesNotMatch',
      'InvalidAccessKeyId',
      'AccessDenied',
      'RequestTimeTooSkewed',
    ])
      expect(verdict('s3.region.auto', exchange('GET', '/b/k', signedFor('auto'), 403, errorDoc(code)))).toBe(
        undefined,
      );
    expect(verdict('s3.region.auto', refused(signedFor('auto', '20261203T000001Z')))).toBe(undefined);
    // A HEAD's refusal has no document to name its code.
    expect(verdict('s3.region.auto', exchange('HEAD', '/b/k', signedFor('auto'), 400))).toBe(undefined);
    // Another region than SPEC's may be refused.
    expect(verdict('s3.region.auto', refused(signedFor('eu-west-1')))).toBe(undefined);
  });

  it('CreateBucket refused as IllegalLocationConstraintException fails only without a LocationConstraint', () => {
    const illegal = errorDoc('IllegalLocationConstraintException');
    const other =
      '<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>';
    const withBody = { ...signedFor('auto'), 'content-length': String(other.length) };
    expect(verdict('s3.region.auto', exchange('PUT', '/b', withBody, 400, illegal, { sent: other }))).toBe(
      undefined,
    );
    expect(verdict('s3.region.auto', exchange('PUT', '/b', signedFor('auto'), 400, illegal))).toBe('fail');
  });

  it('us-east-1 and the empty region are the aliases; auto is not one of them', () => {
    const refusal = errorDoc('AuthorizationHeaderMalformed');
    for (const region of ['us-east-1', '']) {
      expect(verdict('s3.region.aliases', exchange('GET', '/', signedFor(region), 200, 'x'))).toBe('pass');
      expect(verdict('s3.region.aliases', exchange('GET', '/', signedFor(region), 400, refusal))).toBe(
        'fail',
      );
      expect(verdict('s3.region.auto', exchange('GET', '/', signedFor(region), 400, refusal))).toBe(
        undefined,
      );
    }
    expect(verdict('s3.region.aliases', exchange('GET', '/', signedFor('auto'), 400, refusal))).toBe(
      undefined,
    );
    const presigned =
      '/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20261202%2F%2Fs3%2Faws4_request' +
      `&X-Amz-Date=20261202T101010Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host&X-Amz-Signature=${SIG}`;
    expect(verdict('s3.region.aliases', exchange('GET', presigned, {}, 400, refusal))).toBe('fail');
    const recorded = presigned.replace('AKID', '[REDACTED]').replace(SIG, '[REDACTED]');
    expect(verdict('s3.region.aliases', exchange('GET', recorded, {}, 400, refusal))).toBe('fail');
  });

  it("under --resign, the region the proxy signed for is judged, not the client's", () => {
    const unsigned = { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
    const resigned = { resigned: { region: 'auto' } };
    expect(verdict('s3.region.auto', exchange('GET', '/b/k', unsigned, 200, 'x', resigned))).toBe('pass');
    const asUsEast = { resigned: { region: 'us-east-1' } };
    const refusal = errorDoc('AuthorizationHeaderMalformed');
    expect(
      verdict('s3.region.auto', exchange('GET', '/b/k', signedFor('auto'), 400, refusal, asUsEast)),
    ).toBe(undefined);
  });
});

describe('requests without a signature', () => {
  const none = { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };

  it('refused they pass, served they fail', () => {
    expect(verdict('s3.auth.sigv4', exchange('GET', '/b/k', none, 403, errorDoc('AccessDenied')))).toBe(
      'pass',
    );
    expect(verdict('s3.auth.sigv4', exchange('GET', '/b/k', none, 200, 'x'))).toBe('fail');
    expect(verdict('s3.auth.sigv4', exchange('HEAD', '/b/k', { authorization: ' ' }, 200))).toBe('fail');
  });

  it('a CORS preflight, a busy answer, a signed or presigned request, and one the proxy signed are not judged', () => {
    const preflight = { origin: 'https://app.example', 'access-control-request-method': 'GET' };
    expect(verdict('s3.auth.sigv4', exchange('OPTIONS', '/b/k', preflight, 200))).toBe(undefined);
    for (const status of [429, 503])
      expect(verdict('s3.auth.sigv4', exchange('GET', '/b/k', none, status, 'busy'))).toBe(undefined);
    expect(verdict('s3.auth.sigv4', exchange('GET', '/b/k', signedFor('auto'), 200, 'x'))).toBe(undefined);
    // Recorded, the signature is masked but present.
    expect(verdict('s3.auth.sigv4', exchange('GET', '/b/k', redactDeep(signedFor('auto')), 200, 'x'))).toBe(
      undefined,
    );
    expect(verdict('s3.auth.sigv4', exchange('GET', '/b/k?X-Amz-Signature=[REDACTED]', {}, 200, 'x'))).toBe(
      undefined,
    );
    const resigned = { resigned: { region: 'auto' } };
    expect(verdict('s3.auth.sigv4', exchange('GET', '/b/k', none, 200, 'x', resigned))).toBe(undefined);
    // A browser's sanitized HAR leaves out Authorization and keeps the rest of a signed request.
    const { authorization: _, ...sanitized } = signedFor('auto');
    expect(verdict('s3.auth.sigv4', exchange('GET', '/b/k', sanitized, 200, 'x'))).toBe(undefined);
  });
});

describe('presigned URLs past their time', () => {
  /** A presigned GET signed `agoMs` before now for `expires` seconds, as sent (or as recorded). */
  function presigned(agoMs: number, expires: number, recorded = false): string {
    const at = new Date(Date.now() - agoMs)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const key = recorded ? '[REDACTED]' : 'AKID';
    return (
      `/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${key}%2F${at.slice(0, 8)}%2Fauto%2Fs3%2Faws4_request` +
      `&X-Amz-Date=${at}&X-Amz-Expires=${expires}&X-Amz-SignedHeaders=host&X-Amz-Signature=${recorded ? '[REDACTED]' : SIG}`
    );
  }
  const hours = (n: number) => n * 3600_000;

  it('expired hours ago: refused 403 passes, served fails, as sent and as recorded', () => {
    const denied = errorDoc('AccessDenied');
    expect(verdict('s3.presign.expired', exchange('GET', presigned(hours(2), 60), {}, 403, denied))).toBe(
      'pass',
    );
    expect(verdict('s3.presign.expired', exchange('GET', presigned(hours(2), 60), {}, 200, 'x'))).toBe(
      'fail',
    );
    expect(verdict('s3.presign.expired', exchange('GET', presigned(hours(2), 60, true), {}, 200, 'x'))).toBe(
      'fail',
    );
  });

  it('within the clock skew, still valid, refused otherwise, sent under --resign, or of unknown time: not judged', () => {
    // Expired two minutes ago by this clock: the target's may lag.
    expect(verdict('s3.presign.expired', exchange('GET', presigned(180_000, 60), {}, 200, 'x'))).toBe(
      undefined,
    );
    expect(verdict('s3.presign.expired', exchange('GET', presigned(hours(2), 86_400), {}, 200, 'x'))).toBe(
      undefined,
    );
    const malformed = errorDoc('AuthorizationQueryParametersError');
    expect(verdict('s3.presign.expired', exchange('GET', presigned(hours(2), 60), {}, 400, malformed))).toBe(
      undefined,
    );
    const resigned = { resigned: { region: 'auto' } };
    expect(
      verdict('s3.presign.expired', exchange('GET', presigned(hours(2), 60), {}, 200, 'x', resigned)),
    ).toBe(undefined);
    const undated = { startedAt: undefined };
    expect(
      verdict('s3.presign.expired', exchange('GET', presigned(hours(2), 60), {}, 200, 'x', undated)),
    ).toBe(undefined);
  });
});

describe('signed payloads', () => {
  const body = 'a signed payload';
  const hash = createHash('sha256').update(body).digest('hex');
  const put = (declared: string, status: number, answer = '', sent = body) =>
    exchange(
      'PUT',
      '/b/k',
      { ...signedFor('auto'), 'x-amz-content-sha256': declared, 'content-length': String(sent.length) },
      status,
      answer,
      { sent },
    );
  const mismatch = errorDoc('XAmzContentSHA256Mismatch');

  it("the body's own SHA-256 accepted passes, refused as XAmzContentSHA256Mismatch fails", () => {
    expect(verdict('s3.presign.signed-payload', put(hash, 200))).toBe('pass');
    expect(verdict('s3.presign.signed-payload', put(hash.toUpperCase(), 400, mismatch))).toBe('fail');
    // No body at all, its hash that of nothing.
    const empty = createHash('sha256').digest('hex');
    const get = exchange(
      'GET',
      '/b/k',
      { ...signedFor('auto'), 'x-amz-content-sha256': empty },
      400,
      mismatch,
    );
    expect(verdict('s3.presign.signed-payload', get)).toBe('fail');
  });

  it('a hash of other bytes, a body not kept whole, other refusals, other payload forms: not judged', () => {
    expect(verdict('s3.presign.signed-payload', put(hash, 400, mismatch, 'other bytes'))).toBe(undefined);
    for (const code of ['SignatureDoesNotMatch', 'BadDigest', 'AccessDenied'])
      expect(verdict('s3.presign.signed-payload', put(hash, 400, errorDoc(code)))).toBe(undefined);
    for (const declared of ['UNSIGNED-PAYLOAD', 'STREAMING-UNSIGNED-PAYLOAD-TRAILER'])
      expect(verdict('s3.presign.signed-payload', put(declared, 400, mismatch))).toBe(undefined);
    const cut = exchange(
      'PUT',
      '/b/k',
      { ...signedFor('auto'), 'x-amz-content-sha256': hash, 'content-length': '99999' },
      400,
      mismatch,
      {
        request: {
          method: 'PUT',
          target: '/b/k',
          headers: { 'x-amz-content-sha256': hash, 'content-length': '99999' },
          body: partBody(Buffer.from(body), 99_999),
        },
      },
    );
    expect(verdict('s3.presign.signed-payload', cut)).toBe(undefined);
  });
});

describe('the secret access key in answers, under --resign', () => {
  const secret = 'variants/Secret+AccessKey0000000000000000';
  const resigned = { resigned: { region: 'auto' } };
  const missing = (body: string, headers: Record<string, string> = {}, target = '/b/missing') => {
    const ex = exchange('GET', target, signedFor('auto'), 404, body, resigned);
    ex.response.headers = { ...ex.response.headers, ...headers };
    return ex;
  };
  const noSuchKey = (extra = '') => `<Error><Code>NoSuchKey</Code>${extra}</Error>`;

  beforeAll(() => registerSecret(secret, SECRET_ACCESS_KEY));

  it('an error without it passes; one carrying it in its body or headers fails, as sent and as recorded', () => {
    expect(verdict('s3.auth.secret-not-echoed', missing(noSuchKey()))).toBe('pass');
    expect(verdict('s3.auth.secret-not-echoed', missing(noSuchKey(`<Debug>${secret}</Debug>`)))).toBe('fail');
    expect(verdict('s3.auth.secret-not-echoed', missing(noSuchKey(), { 'x-debug': `AKID:${secret}` }))).toBe(
      'fail',
    );
    const recorded = noSuchKey('<Debug>[REDACTED secret access key]</Debug>');
    expect(verdict('s3.auth.secret-not-echoed', missing(recorded))).toBe('fail');
    // A recording reads a body it masked as cut: what it kept still shows the mask.
    const cut = missing('');
    cut.response.body = partBody(Buffer.from(recorded), recorded.length + 12);
    expect(verdict('s3.auth.secret-not-echoed', cut)).toBe('fail');
    expect(verdict('s3.auth.secret-not-echoed', missing(noSuchKey('[REDACTED]')))).toBe('pass');
  });

  it('a successful read, a request carrying the key itself, a proxy not signing again, a body not text: not judged', () => {
    const stored = exchange('GET', '/b/creds.txt', signedFor('auto'), 200, `key=${secret}`, resigned);
    expect(verdict('s3.auth.secret-not-echoed', stored)).toBe(undefined);
    const named = `/b/${encodeURIComponent(secret)}`;
    expect(verdict('s3.auth.secret-not-echoed', missing(noSuchKey(`<Key>${secret}</Key>`), {}, named))).toBe(
      undefined,
    );
    const notResigned = exchange('GET', '/b/missing', signedFor('auto'), 404, noSuchKey(`<D>${secret}</D>`));
    expect(verdict('s3.auth.secret-not-echoed', notResigned)).toBe(undefined);
    const binary = missing('');
    binary.response.body = bufferBody(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(secret)]));
    expect(verdict('s3.auth.secret-not-echoed', binary)).toBe(undefined);
  });

  it('a recording of an answer that carried it is judged as the proxy judged it', async () => {
    const ex = missing(noSuchKey(`<Debug>${secret}</Debug>`), { 'x-debug': secret });
    const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-secret-'));
    try {
      const file = path.join(dir, 'traffic.har');
      const recorder = new HarRecorder(file, 'test');
      recorder.add(ex, { s3: 'http://target' });
      recorder.close();
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain(secret);
      expect(text).toContain('[REDACTED secret access key]');
      const recorded: ObservedExchange[] = [];
      for await (const r of readHar(file)) recorded.push(r);
      expect(recorded[0].resigned).toEqual({ region: 'auto' });
      expect(verdict('s3.auth.secret-not-echoed', ...recorded)).toBe('fail');
      expect(verdict('s3.auth.secret-not-echoed', ex)).toBe('fail');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
