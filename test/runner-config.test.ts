import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfigFile, resolveTarget } from '../cli/config/load-config.ts';
import { InputError } from '../runner/util/errors.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-config-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function configFile(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('no InputError thrown');
}

describe('target from config, flags and environment', () => {
  it('no endpoint anywhere: undefined, so the run starts the embedded reference', () => {
    expect(resolveTarget(undefined, undefined, {}, {})).toBeUndefined();
  });

  it('a management URL with /client/v4 or a trailing slash gives the bare base URL; the token comes from the environment', () => {
    const t = resolveTarget(
      undefined,
      undefined,
      { managementUrl: 'https://api.example.com/client/v4/' },
      {
        EDGECHECK_API_TOKEN: ' tok-env \n',
        EDGECHECK_ACCOUNT_ID: 'acc-env',
      },
    );
    expect(t?.management).toMatchObject({
      baseUrl: 'https://api.example.com',
      token: 'tok-env',
      accountId: 'acc-env',
    });
    expect(t?.s3).toBeUndefined();
    expect(t?.name).toBe('target');
  });

  it('the config names where secrets live (an environment variable or a file beside it); flags win over the file', () => {
    writeFileSync(path.join(dir, 'key.txt'), 'key-from-file\n');
    const file = configFile(
      'full.yaml',
      [
        'name: staging',
        'management:',
        '  baseUrl: https://staging.example.com',
        '  tokenEnv: STAGING_TOKEN',
        '  emailEnv: STAGING_EMAIL',
        '  keyFile: key.txt',
        '  zoneId: zone-file',
        '  ids: { invite: inv-file }',
        's3:',
        '  endpoint: https://s3.example.com/',
        '  addressing: virtual',
        '  accessKeyIdEnv: STAGING_AKID',
        '  secretAccessKeyEnv: STAGING_SECRET',
        'features: [legacy-auth]',
        '',
      ].join('\n'),
    );
    const config = readConfigFile(file);
    const t = resolveTarget(
      config,
      file,
      { zoneId: 'zone-flag', ids: { certificatePack: 'cp-flag' }, region: 'eu' },
      { STAGING_TOKEN: 'tok', STAGING_EMAIL: 'ops@example.com', STAGING_AKID: 'AKID', STAGING_SECRET: 'sec' },
    );
    expect(t).toMatchObject({
      name: 'staging',
      features: ['legacy-auth'],
      management: {
        baseUrl: 'https://staging.example.com',
        token: 'tok',
        legacy: { email: 'ops@example.com', key: 'key-from-file' },
        zoneId: 'zone-flag',
        ids: { invite: 'inv-file', certificatePack: 'cp-flag' },
      },
      s3: {
        endpoint: 'https://s3.example.com',
        addressing: 'virtual',
        region: 'eu',
        accessKeyId: 'AKID',
        secretAccessKey: 'sec',
      },
    });
  });

  it('an endpoint without credentials is an input error saying which variables to set', () => {
    expect(
      inputError(() => resolveTarget(undefined, undefined, { managementUrl: 'http://x' }, {})).message,
    ).toMatch(/^management: no credentials: set EDGECHECK_API_TOKEN/);
    expect(
      inputError(() => resolveTarget(undefined, undefined, { s3Endpoint: 'http://x' }, {})).message,
    ).toMatch(/^s3: no credentials: set EDGECHECK_S3_ACCESS_KEY_ID and EDGECHECK_S3_SECRET_ACCESS_KEY/);
  });

  it('a bindings probe alone is a target: its URLs, its secret from EDGECHECK_BINDINGS_SECRET, and the worker-bindings feature', () => {
    const t = resolveTarget(
      undefined,
      undefined,
      { bindingsUrl: 'https://probe.example.com', bindingsLegacyUrl: 'https://legacy.example.com' },
      { EDGECHECK_BINDINGS_SECRET: ' probe-secret\n' },
    );
    expect(t?.bindings).toEqual({
      url: 'https://probe.example.com',
      legacyUrl: 'https://legacy.example.com',
      secret: 'probe-secret',
      bucket: undefined,
    });
    expect(t?.management).toBeUndefined();
    expect(t?.s3).toBeUndefined();
    expect(t?.features).toEqual(['worker-bindings']);
  });

  it('the config bindings section names its secret variable or file and the bucket the S3 endpoint shares; flags win', () => {
    writeFileSync(path.join(dir, 'probe.txt'), 'probe-from-file\n');
    const file = configFile(
      'bindings.yaml',
      [
        's3:',
        '  endpoint: https://s3.example.com',
        'bindings:',
        '  url: https://probe.example.com',
        '  legacyUrl: https://legacy.example.com',
        '  bucket: shared',
        '  secretFile: probe.txt',
        'features: [public-buckets]',
      ].join('\n'),
    );
    const env = { EDGECHECK_S3_ACCESS_KEY_ID: 'id', EDGECHECK_S3_SECRET_ACCESS_KEY: 'sk' };
    const t = resolveTarget(readConfigFile(file), file, { bindingsBucket: 'other' }, env);
    expect(t?.bindings).toEqual({
      url: 'https://probe.example.com',
      legacyUrl: 'https://legacy.example.com',
      secret: 'probe-from-file',
      bucket: 'other',
    });
    expect(t?.features).toEqual(['public-buckets', 'worker-bindings']);
    const byEnv = configFile(
      'bindings-env.yaml',
      'bindings:\n  url: https://probe.example.com\n  secretEnv: MY_PROBE\n',
    );
    expect(resolveTarget(readConfigFile(byEnv), byEnv, {}, { MY_PROBE: 'p' })?.bindings?.secret).toBe('p');
  });

  it('a command that makes no binding call reads no bindings section, and needs no probe secret', () => {
    const file = configFile(
      'sweep.yaml',
      'management:\n  baseUrl: https://api.example.com\nbindings:\n  url: https://probe.example.com\n',
    );
    const t = resolveTarget(
      readConfigFile(file),
      file,
      { withoutBindings: true },
      { EDGECHECK_API_TOKEN: 't' },
    );
    expect(t?.bindings).toBeUndefined();
    expect(t?.features).toEqual([]);
  });

  it('bindings input errors name the flag or field and what to do', () => {
    const url = 'https://probe.example.com';
    expect(inputError(() => resolveTarget(undefined, undefined, { bindingsUrl: url }, {})).message).toBe(
      "bindings: no probe secret: set EDGECHECK_BINDINGS_SECRET to the probe's PROBE_SECRET, or name another variable or a file in the config",
    );
    expect(
      inputError(() => resolveTarget(undefined, undefined, { bindingsLegacyUrl: url }, {})).message,
    ).toBe('--bindings-legacy-url: give it with --bindings-url URL (the probe deployed with the flag)');
    const env = { EDGECHECK_BINDINGS_SECRET: 's' };
    expect(
      inputError(() => resolveTarget(undefined, undefined, { bindingsUrl: url, bindingsBucket: 'b' }, env))
        .message,
    ).toMatch(
      /^--bindings-bucket: it names the probe's bucket on the target's S3 endpoint: give the endpoint/,
    );
    expect(
      inputError(() => resolveTarget(undefined, undefined, { bindingsUrl: 'ftp://x' }, env)).message,
    ).toBe('--bindings-url ftp://x: write an http(s) URL, e.g. https://api.example.com');
  });

  it('a secret file that cannot be read names the config field, not the file content', () => {
    const file = configFile('missing-file.yaml', 'management:\n  baseUrl: http://x\n  tokenFile: nope.txt\n');
    const e = inputError(() => resolveTarget(readConfigFile(file), file, {}, {}));
    expect(e.message).toBe(
      'management.tokenFile: cannot read the file it names (ENOENT); give the path of a file holding only the secret, relative to the config file',
    );
  });
});

describe('config files', () => {
  it('refuse a secret written in the file, at its line, without echoing it', () => {
    const file = configFile('secret.yaml', 's3:\n  endpoint: http://x\n  secretAccessKey: sekrit-value\n');
    const e = inputError(() => readConfigFile(file));
    expect(e.where).toBe(`${file}:3:3`);
    expect(e.what).toBe(
      'secrets never go in a config file: name an environment variable (secretAccessKeyEnv) or a file (secretAccessKeyFile)',
    );
    expect(e.message).not.toContain('sekrit-value');
  });

  it('refuse an unknown key or a wrong value with its position', () => {
    const unknown = inputError(() =>
      readConfigFile(configFile('unknown.yaml', 'name: x\nmanagment:\n  baseUrl: http://x\n')),
    );
    expect(unknown.message).toMatch(
      /unknown\.yaml:2:1: .*unknown key 'managment'; see schemas\/config\.schema\.json$/,
    );
    const feature = inputError(() => readConfigFile(configFile('feature.yaml', 'features: [teleport]\n')));
    expect(feature.message).toMatch(/feature\.yaml:1:12: unknown feature 'teleport'; known: legacy-auth, /);
  });

  it('a config file that is not YAML is one line with the position', () => {
    const e = inputError(() =>
      readConfigFile(configFile('broken.yaml', 'management: { baseUrl: http://x\n')),
    );
    expect(e.message).toMatch(/broken\.yaml:\d+:\d+: YAML syntax: /);
    expect(e.message).not.toContain('\n');
  });
});
