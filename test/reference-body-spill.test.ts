import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BlobStore } from '../reference/s3/blobs.ts';
import { startReferenceWorker } from '../reference/worker.ts';
import { generateBuffer, generateChunks } from '../runner/data/generate.ts';
import { buildS3Request } from '../runner/transports/s3-raw.ts';

const MiB = 1024 * 1024;
const dataDir = mkdtempSync(path.join(tmpdir(), 'edgecheck-spill-test-'));
const files = () => readdirSync(path.join(dataDir, 's3-blobs')).length;
const read = async (s: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('bodies kept in memory up to a size, in files above it', () => {
  const blobs = new BlobStore(dataDir, MiB);

  it('keeps a body of the size or less in memory and one over it in a file, each read back whole', async () => {
    const small = await blobs.write(Readable.from([...generateChunks(1, 0, MiB)]));
    expect(files()).toBe(0);
    const large = await blobs.write(Readable.from([...generateChunks(2, 0, 3 * MiB + 5)]));
    expect(files()).toBe(1);
    expect(large.size).toBe(3 * MiB + 5);
    expect((await read(blobs.read(small))).equals(generateBuffer(1, 0, MiB))).toBe(true);
    expect((await read(blobs.read(large))).equals(generateBuffer(2, 0, 3 * MiB + 5))).toBe(true);
    const across = await read(blobs.read(large, MiB - 3, MiB + 2));
    expect(across.equals(generateBuffer(2, MiB - 3, MiB + 3))).toBe(true);
    blobs.release(large);
    blobs.release(small);
    expect(files()).toBe(0);
  });

  it('keeps nothing of a body that fails after it went to a file', async () => {
    async function* failing() {
      yield* generateChunks(3, 0, 2 * MiB);
      throw new Error('client went away');
    }
    await expect(blobs.write(Readable.from(failing()))).rejects.toThrow('client went away');
    expect(files()).toBe(0);
  });
});

describe('the reference on its worker thread', () => {
  it('puts large bodies in a folder of the temporary one, which closing removes', async () => {
    // A temporary folder of this test's own: other runs on the machine start references too.
    const root = mkdtempSync(path.join(tmpdir(), 'edgecheck-spill-test-'));
    vi.stubEnv('TMPDIR', root);
    // Removed whatever the assertions find, so that a failing run leaves nothing in the temporary folder.
    try {
      const ref = await startReferenceWorker({ asOf: '2025-06-01' });
      const spill = readdirSync(root).filter((n) => n.startsWith('edgecheck-reference-'));
      expect(spill).toHaveLength(1);
      const blobs = path.join(root, spill[0], 's3-blobs');
      try {
        const s3 = ref.target().s3!;
        const send = async (req: Parameters<typeof buildS3Request>[1]) => {
          const out = await buildS3Request(s3, req);
          const res = await fetch(out.url, {
            method: out.method,
            headers: out.headers,
            body: out.body as Buffer | undefined,
          });
          return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
        };
        expect((await send({ method: 'PUT', bucket: 'spill' })).status).toBe(200);
        const body = generateBuffer(4, 0, 2 * MiB);
        expect(
          (await send({ method: 'PUT', bucket: 'spill', key: 'large', body: body as never })).status,
        ).toBe(200);
        expect((await send({ method: 'PUT', bucket: 'spill', key: 'small', body: 'small' })).status).toBe(
          200,
        );
        expect(readdirSync(blobs)).toHaveLength(1);
        const got = await send({ method: 'GET', bucket: 'spill', key: 'large' });
        expect(got.status).toBe(200);
        expect(got.body.equals(body)).toBe(true);
      } finally {
        await ref.close();
      }
      expect(existsSync(path.join(root, spill[0]))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
