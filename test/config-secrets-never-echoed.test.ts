import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfigFile } from '../cli/config/load-config.ts';
import { type CliOutcome, runMain, STACK_LINE } from './helpers/cli.ts';

const schema = JSON.parse(readFileSync('schemas/config.schema.json', 'utf8'));

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-secrets-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function config(text: string): string {
  const file = path.join(dir, 'target.yaml');
  writeFileSync(file, text);
  return file;
}

/** One exit-2 line that never holds `secret`; returns the line. */
function oneLineWithout(r: CliOutcome, secret: string): string {
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(r.stderr + r.stdout).not.toMatch(STACK_LINE);
  expect(r.stderr + r.stdout).not.toContain(secret);
  return lines[0];
}

const SECTION_HEAD = {
  management: 'management:\n  baseUrl: http://127.0.0.1:9\n',
  s3: 's3:\n  endpoint: http://127.0.0.1:9\n',
  bindings: 'bindings:\n  url: http://127.0.0.1:9\n',
};

/** Secrets as people paste them: a token, an AWS key id and secret, a hex key, a token with an underscore. */
const SECRETS = [
  'canary-token-7f3a9c1e5b2d4086',
  'AKIAIOSFODNN7EXAMPLE',
  'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  '0123456789abcdef0123456789abcdef01234',
  'Zq3kP9xW2mL7vR4tY8nB1cF6hJ0dS5gA_eU3iO7p',
];

describe('a secret written as a config key: the advice names fields the schema has', () => {
  const expectations: [section: keyof typeof SECTION_HEAD | undefined, key: string, fields: string[]][] = [
    ['management', 'apiToken', ['tokenEnv', 'tokenFile']],
    ['management', 'token', ['tokenEnv', 'tokenFile']],
    ['management', 'api_token', ['tokenEnv', 'tokenFile']],
    ['management', 'apiKey', ['keyEnv', 'keyFile']],
    ['management', 'authKey', ['keyEnv', 'keyFile']],
    ['management', 'email', ['emailEnv']],
    ['management', 'password', ['tokenEnv', 'tokenFile']],
    ['s3', 'secretAccessKey', ['secretAccessKeyEnv', 'secretAccessKeyFile']],
    ['s3', 'secret', ['secretAccessKeyEnv', 'secretAccessKeyFile']],
    ['s3', 'key', ['secretAccessKeyEnv', 'secretAccessKeyFile']],
    ['s3', 'accessKeyId', ['accessKeyIdEnv']],
    ['s3', 'access_key_id', ['accessKeyIdEnv']],
    ['bindings', 'secret', ['secretEnv', 'secretFile']],
    ['bindings', 'probeSecret', ['secretEnv', 'secretFile']],
    ['bindings', 'token', ['secretEnv', 'secretFile']],
    [undefined, 'probeSecret', ['bindings.secretEnv', 'bindings.secretFile']],
    [undefined, 'apiToken', ['management.tokenEnv', 'management.tokenFile']],
    [undefined, 'secretAccessKey', ['s3.secretAccessKeyEnv', 's3.secretAccessKeyFile']],
  ];
  for (const [section, key, fields] of expectations) {
    it(`${section ?? '(top level)'}.${key} → ${fields.join(', ')}`, async () => {
      const value = SECRETS[0];
      const text = section
        ? `${SECTION_HEAD[section]}  ${key}: ${value}\n`
        : `${SECTION_HEAD.management}${key}: ${value}\n`;
      const line = oneLineWithout(await runMain(['run', '--config', config(text)]), value);
      expect(line).toMatch(/secrets never go in a config file: name an environment variable \(/);
      const named = [...line.matchAll(/\(([\w.]+)\)/g)].map((m) => m[1]);
      expect(named).toEqual(fields);
      for (const f of named) {
        const [sec, field] = f.includes('.') ? f.split('.') : [section!, f];
        expect(schema.properties[sec].properties, f).toHaveProperty(field);
      }
    });
  }
});

describe('a secret pasted where a variable name belongs is refused, never shown', () => {
  const fields = [
    ['management', 'tokenEnv'],
    ['management', 'emailEnv'],
    ['management', 'keyEnv'],
    ['s3', 'accessKeyIdEnv'],
    ['s3', 'secretAccessKeyEnv'],
    ['bindings', 'secretEnv'],
  ] as const;
  for (const [section, field] of fields) {
    it(`${section}.${field}`, async () => {
      for (const secret of SECRETS) {
        const file = config(`${SECTION_HEAD[section]}  ${field}: ${secret}\n`);
        const line = oneLineWithout(await runMain(['run', '--config', file]), secret);
        expect(line).toBe(
          `edgecheck: ${file}:3:${field.length + 5}: ${section}.${field} looks like a secret, not the name of an environment variable; name the variable that holds it (the value is not shown)`,
        );
      }
    });
  }

  it('variable names, conventional or not, are accepted', () => {
    for (const name of ['EDGECHECK_API_TOKEN', 'staging_token', 'CF_API_TOKEN_2024', 'R2_SECRET', '_TOKEN']) {
      const file = config(
        `${SECTION_HEAD.management}  tokenEnv: ${name}\n${SECTION_HEAD.s3}  secretAccessKeyEnv: ${name}\n`,
      );
      expect(readConfigFile(file).management?.tokenEnv).toBe(name);
    }
  });
});

describe('secret files: errors name the field, never the path written there', () => {
  it('a secret pasted in place of a file path', async () => {
    for (const [section, field] of [
      ['management', 'tokenFile'],
      ['management', 'keyFile'],
      ['s3', 'secretAccessKeyFile'],
      ['bindings', 'secretFile'],
    ] as const) {
      const secret = SECRETS[2];
      const line = oneLineWithout(
        await runMain(['run', '--config', config(`${SECTION_HEAD[section]}  ${field}: ${secret}\n`)]),
        secret,
      );
      expect(line).toBe(
        `edgecheck: ${section}.${field}: cannot read the file it names (ENOENT); give the path of a file holding only the secret, relative to the config file`,
      );
    }
  });

  it('a secret file over 64 KiB is refused without its path or content', async () => {
    const secret = path.join(dir, 'token.txt');
    writeFileSync(secret, 'x'.repeat(100 * 1024));
    const r = await runMain([
      'run',
      '--config',
      config(`${SECTION_HEAD.management}  tokenFile: ${secret}\n`),
    ]);
    expect(oneLineWithout(r, secret)).toBe(
      'edgecheck: management.tokenFile: 100 KiB, over the 64 KiB allowed for a secret file; name a file that holds only the token or key',
    );
    expect(r.stderr).not.toContain('xxxx');
  });
});

it('a secret pasted as a key of its own is not repeated in the unknown-key message', async () => {
  for (const secret of SECRETS) {
    const file = config(`${SECTION_HEAD.management}  ${secret.replace('/', '')}: x\n`);
    const line = oneLineWithout(await runMain(['run', '--config', file]), secret.replace('/', ''));
    expect(line).toMatch(/unknown key \(not shown: it looks like a secret\)/);
  }
});
