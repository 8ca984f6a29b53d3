import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveTool } from './helpers/not-run.ts';
import { type S3Harness, startS3Harness } from './reference-s3-harness.ts';

const run = promisify(execFile);
const FILE = 'test/reference-s3-cli.test.ts';
const AWS = 'aws';
const RCLONE = 'rclone';
const SIZE = 20 * 1024 * 1024;

/** Deterministic, incompressible-looking bytes: SHA-256 of a counter, block after block. */
function generated(size: number, seed: string): Buffer {
  const out = Buffer.alloc(size);
  for (let i = 0, off = 0; off < size; i++, off += 32) {
    createHash('sha256').update(`${seed}:${i}`).digest().copy(out, off);
  }
  return out;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let h: S3Harness;
let dir: string;
let file: Buffer;

beforeAll(async () => {
  h = await startS3Harness();
  dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-s3-cli-'));
  mkdirSync(path.join(dir, 'up'));
  file = generated(SIZE, 'cli');
  writeFileSync(path.join(dir, 'up', 'twenty.bin'), file);
});
afterAll(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!haveTool(AWS, `awscli against the reference (${FILE})`, 'apt-get install awscli'))(
  'awscli against the reference',
  () => {
    const env = () => ({
      PATH: process.env.PATH ?? '',
      HOME: dir,
      AWS_ACCESS_KEY_ID: h.target.accessKeyId,
      AWS_SECRET_ACCESS_KEY: h.target.secretAccessKey,
      AWS_DEFAULT_REGION: 'auto',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: path.join(dir, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'no-aws-credentials'),
    });
    const aws = (...args: string[]) =>
      run(AWS, [...args, '--endpoint-url', h.target.endpoint], {
        env: env(),
        timeout: 120_000,
        maxBuffer: 1 << 20,
      });

    it('round-trips a 20 MiB file with aws s3 mb, cp, ls and rm', async () => {
      await aws('s3', 'mb', 's3://cli-aws');
      await aws('s3', 'cp', path.join(dir, 'up', 'twenty.bin'), 's3://cli-aws/dir/twenty.bin');
      const listed = await aws('s3', 'ls', 's3://cli-aws/dir/');
      expect(listed.stdout).toMatch(new RegExp(`\\s${SIZE}\\s+twenty\\.bin`));
      const back = path.join(dir, 'aws-back.bin');
      await aws('s3', 'cp', 's3://cli-aws/dir/twenty.bin', back);
      expect(sha256(readFileSync(back))).toBe(sha256(file));
      await aws('s3', 'rm', 's3://cli-aws/dir/twenty.bin');
      const after = await aws('s3', 'ls', 's3://cli-aws/dir/').catch((err: { stdout?: string }) => ({
        stdout: err.stdout ?? '',
      }));
      expect(after.stdout).not.toContain('twenty.bin');
    }, 180_000);
  },
);

describe.skipIf(!haveTool(RCLONE, `rclone against the reference (${FILE})`, 'apt-get install rclone'))(
  'rclone against the reference',
  () => {
    const env = () => {
      const e: Record<string, string> = {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        RCLONE_CONFIG: path.join(dir, 'no-rclone.conf'),
        RCLONE_CONFIG_REF_TYPE: 's3',
        RCLONE_CONFIG_REF_PROVIDER: 'Cloudflare',
        RCLONE_CONFIG_REF_ACCESS_KEY_ID: h.target.accessKeyId,
        RCLONE_CONFIG_REF_SECRET_ACCESS_KEY: h.target.secretAccessKey,
        RCLONE_CONFIG_REF_ENDPOINT: h.target.endpoint,
        RCLONE_CONFIG_REF_REGION: 'auto',
      };
      // A CA bundle meant for HTTPS makes rclone refuse a plain-HTTP endpoint: it is left out on purpose.
      return e;
    };
    const rclone = (...args: string[]) =>
      run(RCLONE, args, { env: env(), timeout: 120_000, maxBuffer: 1 << 20 });

    it('copies a 20 MiB file in one PUT and checks it with rclone copy and check', async () => {
      await rclone('mkdir', 'ref:cli-rclone');
      await rclone('copy', path.join(dir, 'up'), 'ref:cli-rclone/single');
      await rclone('check', path.join(dir, 'up'), 'ref:cli-rclone/single');
      const size = await rclone('size', '--json', 'ref:cli-rclone/single');
      expect(JSON.parse(size.stdout)).toMatchObject({ count: 1, bytes: SIZE });
    }, 180_000);

    it('copies the same file as a multipart upload and checks it', async () => {
      await rclone(
        'copy',
        '--s3-upload-cutoff',
        '5M',
        '--s3-chunk-size',
        '5M',
        path.join(dir, 'up'),
        'ref:cli-rclone/multi',
      );
      await rclone('check', '--download', path.join(dir, 'up'), 'ref:cli-rclone/multi');
    }, 180_000);
  },
);
