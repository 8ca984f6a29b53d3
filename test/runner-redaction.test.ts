import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReporter } from '../reporters/registry.ts';
import { runEdgecheck } from '../runner/api.ts';
import type { RunResults } from '../runner/model/results.ts';
import type { Target } from '../runner/model/target.ts';
import { presign, signerFor, signHeaders } from '../runner/transports/sigv4.ts';
import { carriesSecret, redactDeep, redactText, redactUrl, registerSecret } from '../runner/util/redact.ts';
import { ok, sendJson, startServer, type TestServer } from './helpers/engine-server.ts';
import { CANARY_TOKEN, fixtureDir } from './helpers/engine-target.ts';

const CANARY_KEY = 'canary0legacy0key0c0ffee5eed';
const CANARY_S3_SECRET = 'canary/S3secret+AbCdEfGhIjKlMnOpQrStUvWx';
const ACCESS_KEY_ID = 'AKIDCANARYEXAMPLE001';

let server: TestServer;
let tmp: string;
let results: RunResults;
const outputs: Record<string, string> = {};

beforeAll(async () => {
  // A server that echoes what it received, and (as a broken target might) leaks the S3 secret.
  server = await startServer((req, res) => {
    const path = req.url.split('?')[0];
    if (path === '/client/v4/echo') return sendJson(res, 200, ok({ headers: req.headers, url: req.url }));
    if (path === '/client/v4/garbage') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.end(`oops ${req.headers.authorization}`);
    }
    sendJson(res, 200, { url: req.url, headers: req.headers, leak: CANARY_S3_SECRET });
  });
  const target: Target = {
    name: 'echo server',
    features: [],
    management: {
      baseUrl: server.url,
      token: CANARY_TOKEN,
      legacy: { email: 'ops@example.com', key: CANARY_KEY },
      ids: {},
    },
    s3: {
      endpoint: server.url,
      region: 'auto',
      addressing: 'path',
      accessKeyId: ACCESS_KEY_ID,
      secretAccessKey: CANARY_S3_SECRET,
    },
  };
  tmp = mkdtempSync(path.join(tmpdir(), 'edgecheck-redaction-'));
  const stream = new PassThrough();
  let consoleText = '';
  stream.on('data', (d) => {
    consoleText += d;
  });
  const reporters = [
    createReporter('console', { stream, color: false, verbose: true }),
    createReporter(`json=${path.join(tmp, 'results.json')}`),
    createReporter(`junit=${path.join(tmp, 'junit.xml')}`),
  ];
  results = await runEdgecheck({ suitesDir: fixtureDir('redaction'), target, reporters, asOf: '2024-06-01' });
  outputs.console = consoleText;
  outputs.json = readFileSync(path.join(tmp, 'results.json'), 'utf8');
  outputs.junit = readFileSync(path.join(tmp, 'junit.xml'), 'utf8');
}, 20_000);

afterAll(async () => {
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Every secret of the run: the configured ones and the signatures the server actually saw. */
function secretsSeen(): string[] {
  const signatures = server.seen.flatMap((r) => [
    ...(/Signature=([0-9a-f]{64})/.exec(String(r.headers.authorization ?? ''))?.slice(1) ?? []),
    ...(/X-Amz-Signature=([0-9a-f]{64})/.exec(r.url)?.slice(1) ?? []),
  ]);
  return [CANARY_TOKEN, CANARY_KEY, CANARY_S3_SECRET, ...signatures];
}

describe('no secret reaches any reporter', () => {
  it('the run produced what the reporters print: failures with expected, actual and repro, and an error', () => {
    expect(results.summary.checks).toMatchObject({ fail: 5, error: 1 });
    const failing = results.cases.flatMap((c) => c.checks).filter((k) => k.verdict === 'fail');
    expect(failing.every((k) => k.repro && k.actual !== undefined)).toBe(true);
    // The server did receive the secrets and signatures (so their absence below means something).
    expect(server.seen.some((r) => r.headers.authorization === `Bearer ${CANARY_TOKEN}`)).toBe(true);
    expect(server.seen.some((r) => r.headers['x-auth-key'] === CANARY_KEY)).toBe(true);
    expect(secretsSeen()).toHaveLength(5); // token, key, secret, one header signature, one presigned
  });

  for (const name of ['console', 'json', 'junit']) {
    it(`${name}: none of the token, legacy key, S3 secret or signatures appears`, () => {
      const text = outputs[name];
      expect(text.length).toBeGreaterThan(200);
      expect(text).toContain('[REDACTED]');
      for (const secret of secretsSeen()) expect(text).not.toContain(secret);
      // Nor does the secret appear percent-encoded or as a partial signature of a cut message.
      expect(text).not.toContain(encodeURIComponent(CANARY_S3_SECRET));
      for (const sig of secretsSeen().slice(3)) expect(text).not.toContain(sig.slice(0, 16));
    });
  }

  it('the error message quoting the token is redacted, and still says what went wrong', () => {
    const k = results.cases.find((c) => c.id === 'redaction.error')!.checks[0];
    expect(k.verdict).toBe('error');
    expect(k.message).toBe('body is not JSON (text/plain): "oops Bearer [REDACTED]"');
  });

  it('reproductions read credentials from the environment', () => {
    const repro = (id: string) => results.cases.find((c) => c.id === id)!.checks[0].repro!;
    expect(repro('redaction.bearer')).toContain('"Authorization: Bearer $EDGECHECK_API_TOKEN"');
    expect(repro('redaction.legacy')).toContain('"X-Auth-Key: $EDGECHECK_AUTH_KEY"');
    expect(repro('redaction.sigv4')).toContain('--user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY"');
    expect(repro('redaction.presign')).toMatch(/X-Amz-Signature=\[REDACTED\]/);
  });
});

describe('runner/redact.ts', () => {
  const sig = 'a'.repeat(40) + '0123456789abcdef0123456789abcdef'.slice(0, 24);

  it('masks the Authorization value of every scheme, keeping the scheme', () => {
    expect(redactText('Authorization: Bearer abc.def-123')).toBe('Authorization: Bearer [REDACTED]');
    expect(redactText('-H "authorization: Basic dXNlcjpwYXNz"')).toBe('-H "authorization: Basic [REDACTED]"');
    expect(
      redactText(
        `Authorization: AWS4-HMAC-SHA256 Credential=AKID/20240601/auto/s3/aws4_request, SignedHeaders=host, Signature=${sig}`,
      ),
    ).toBe('Authorization: AWS4-HMAC-SHA256 [REDACTED]');
  });

  it('masks SigV4 credential and signature wherever they stand', () => {
    const text = `SignedHeaders=host;x-amz-date, Credential=AKID/20240601/auto/s3/aws4_request, Signature=${sig}`;
    const out = redactText(text);
    expect(out).not.toContain(sig);
    expect(out).not.toContain('AKID/20240601');
    expect(out).toContain('SignedHeaders=host;x-amz-date');
  });

  it('masks X-Auth-Key and X-Amz-Security-Token headers', () => {
    expect(redactText('X-Auth-Key: 0123456789abcdef')).toBe('X-Auth-Key: [REDACTED]');
    expect(redactText('x-amz-security-token: FQoGZXIvYXdzEBYaDk')).toBe('x-amz-security-token: [REDACTED]');
  });

  it('masks X-Amz-Signature, X-Amz-Credential and X-Amz-Security-Token in query strings, keeping the rest', () => {
    const url =
      'http://h/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20240601%2Fauto%2Fs3%2Faws4_request' +
      `&X-Amz-Date=20240601T000000Z&X-Amz-Expires=60&X-Amz-Security-Token=tok123&X-Amz-Signature=${sig}`;
    expect(redactText(url)).toBe(
      'http://h/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=[REDACTED]' +
        '&X-Amz-Date=20240601T000000Z&X-Amz-Expires=60&X-Amz-Security-Token=[REDACTED]&X-Amz-Signature=[REDACTED]',
    );
  });

  it('leaves environment references readable', () => {
    for (const text of [
      '-H "Authorization: Bearer $EDGECHECK_API_TOKEN"',
      '-H "X-Auth-Key: $EDGECHECK_AUTH_KEY"',
      '--user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY"',
    ]) {
      expect(redactText(text)).toBe(text);
    }
  });

  it('replaces a registered secret wherever it occurs, and header maps by name', () => {
    registerSecret('s3cr3t-value-xyz');
    expect(redactText('error: saw s3cr3t-value-xyz in the body')).toBe('error: saw [REDACTED] in the body');
    expect(
      redactDeep({
        headers: {
          Authorization: 'anything',
          'X-Auth-Key': 'k1',
          'x-amz-security-token': 't',
          Cookie: 'c=1',
          etag: '"e"',
        },
        list: ['pre s3cr3t-value-xyz post'],
        n: 3,
      }),
    ).toEqual({
      headers: {
        Authorization: '[REDACTED]',
        'X-Auth-Key': '[REDACTED]',
        'x-amz-security-token': '[REDACTED]',
        Cookie: '[REDACTED]',
        etag: '"e"',
      },
      list: ['pre [REDACTED] post'],
      n: 3,
    });
  });
});

describe('a SigV4 credential keeps its scope where a recording needs it, and nothing secret', () => {
  const keyId = 'AKIDSCOPECANARY00042';
  const secret = 'scope/Canary+SecretAccessKey0000000000000';
  const s3 = { endpoint: 'http://h', region: 'auto', addressing: 'path' as const, accessKeyId: keyId };

  it('an Authorization header keeps the scope and signed header names; a presigned URL its scope', async () => {
    registerSecret(secret, 'secret access key');
    const signer = signerFor({ ...s3, secretAccessKey: secret });
    const url = new URL('http://h/b/k?x-id=GetObject');
    const signed = await signHeaders(signer, {
      method: 'GET',
      url,
      headers: {},
      payloadHash: 'UNSIGNED-PAYLOAD',
    });
    const presigned = await presign(
      signer,
      { method: 'GET', url, headers: {}, payloadHash: 'UNSIGNED-PAYLOAD' },
      60,
    );
    const signatures = [
      /Signature=([0-9a-f]{64})/.exec(signed.headers.authorization)![1],
      presigned.url.searchParams.get('X-Amz-Signature')!,
    ];
    const header = redactDeep(signed.headers).authorization;
    expect(header).toMatch(
      /^AWS4-HMAC-SHA256 Credential=\[REDACTED\]\/\d{8}\/auto\/s3\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=\[REDACTED\]$/,
    );
    const recorded = redactUrl(presigned.url.href);
    expect(new URL(recorded).searchParams.get('X-Amz-Credential')).toMatch(
      /^\[REDACTED\]\/\d{8}\/auto\/s3\/aws4_request$/,
    );
    expect(recorded).toContain('X-Amz-Signature=[REDACTED]');
    for (const text of [header, recorded, redactDeep(signed.headers).authorization]) {
      for (const s of [keyId, secret, encodeURIComponent(secret), ...signatures])
        expect(text).not.toContain(s);
      for (const s of signatures) expect(text).not.toContain(s.slice(0, 16));
    }
    // Masked twice (a recording judged again), the form stays.
    expect(redactDeep({ authorization: header }).authorization).toBe(header);
  });

  it('anything but that exact form is masked whole: a strange scope, a trailing word, another scheme', () => {
    const sig = 'ab'.repeat(32);
    const hidden = 'not0registered0but0secret';
    for (const value of [
      `AWS4-HMAC-SHA256 Credential=${keyId}/20261202/auto/s3/aws4_request, SignedHeaders=host, Signature=${sig} ${hidden}`,
      `AWS4-HMAC-SHA256 Credential=${keyId}/20261202/${hidden}/s3/aws4_request, SignedHeaders=host, Signature=${sig}`,
      `AWS4-HMAC-SHA256 Credential=${keyId}/20261202/auto/s3/aws4_request/${keyId}, SignedHeaders=host, Signature=${sig}`,
      `AWS ${keyId}:${sig}`,
      `Bearer ${sig}`,
    ]) {
      expect(redactDeep({ Authorization: value }).Authorization, value).toBe('[REDACTED]');
    }
    for (const credential of [
      `${keyId}`,
      `${keyId}%2F2026%2F${keyId}`,
      `${keyId}/20261202/auto/s3/aws4_request/x`,
    ]) {
      const out = redactUrl(`http://h/b?X-Amz-Credential=${credential}&X-Amz-Signature=${sig}`);
      expect(out).toBe('http://h/b?X-Amz-Credential=[REDACTED]&X-Amz-Signature=[REDACTED]');
    }
  });

  it('a secret registered with a label is masked as what it is, in text, URLs and header maps', () => {
    registerSecret(secret, 'secret access key');
    expect(redactText(`<Expected>${secret}</Expected>`)).toBe(
      '<Expected>[REDACTED secret access key]</Expected>',
    );
    expect(redactUrl(`http://h/b/${encodeURIComponent(secret)}?q=${secret}`)).toBe(
      'http://h/b/[REDACTED secret access key]?q=[REDACTED secret access key]',
    );
    expect(redactDeep({ 'set-cookie': `s=${secret}`, 'x-debug': secret })).toEqual({
      'set-cookie': '[REDACTED secret access key]',
      'x-debug': '[REDACTED secret access key]',
    });
    expect(carriesSecret(`a ${secret} b`, 'secret access key')).toBe(true);
    expect(carriesSecret('a [REDACTED secret access key] b', 'secret access key')).toBe(true);
    expect(carriesSecret('a [REDACTED] b', 'secret access key')).toBe(false);
  });
});
