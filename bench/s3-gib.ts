import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';

/**
 * The S3 reference moving a 1 GiB object: one streamed PUT, one lib-storage multipart upload, and a GET of
 * each. The server runs in a child process (on a data directory) so that its resident memory is measured
 * alone; it prints its RSS every 100 ms. Prints numbers; asserts nothing.
 *
 *   node --import tsx bench/s3-gib.ts [--size-mib N]
 */
const SELF = fileURLToPath(import.meta.url);
const MiB = 1024 * 1024;

if (process.argv[2] === '--serve') await serve(process.argv[3]);
else if (process.argv[1] === SELF) await main();

async function serve(dataDir: string): Promise<void> {
  const { startReference } = await import('../reference/server.ts');
  const ref = await startReference({ asOf: '2025-06-01', dataDir });
  const t = ref.target().s3!;
  process.stdout.write(
    `${JSON.stringify({ endpoint: t.endpoint, key: t.accessKeyId, secret: t.secretAccessKey })}\n`,
  );
  setInterval(() => process.stdout.write(`rss ${process.memoryUsage.rss()}\n`), 100).unref();
  process.stdin.on('end', () => ref.close().then(() => process.exit(0)));
  process.stdin.resume();
}

/** Deterministic bytes, generated chunk by chunk: never held whole. */
function generated(size: number): Readable {
  const block = Buffer.alloc(MiB);
  for (let i = 0; i < block.length; i++) block[i] = (i * 31 + 7) & 0xff;
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const n = Math.min(MiB, size - sent);
      const chunk = Buffer.from(block.subarray(0, n));
      chunk.writeUInt32BE(sent / MiB, 0);
      sent += n;
      this.push(chunk);
    },
  });
}

async function digestOf(stream: AsyncIterable<Uint8Array>): Promise<{ bytes: number; sha256: string }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const c of stream) {
    h.update(c);
    bytes += c.length;
  }
  return { bytes, sha256: h.digest('hex') };
}

async function main(): Promise<void> {
  const sizeArg = process.argv.indexOf('--size-mib');
  const size = (sizeArg > 0 ? Number(process.argv[sizeArg + 1]) : 1024) * MiB;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgecheck-s3-gib-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', SELF, '--serve', dataDir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let peak = 0;
  let phasePeak = 0;
  let idle = 0;
  const info = await new Promise<{ endpoint: string; key: string; secret: string }>((resolve, reject) => {
    let buf = '';
    let first = true;
    child.stdout!.on('data', (c: Buffer) => {
      buf += c.toString();
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        nl = buf.indexOf('\n');
        if (first) {
          first = false;
          resolve(JSON.parse(line));
        } else if (line.startsWith('rss ')) {
          const rss = Number(line.slice(4));
          if (idle === 0) idle = rss;
          peak = Math.max(peak, rss);
          phasePeak = Math.max(phasePeak, rss);
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`the reference exited early (${code})`)));
  });
  const s3 = new S3Client({
    endpoint: info.endpoint,
    region: 'auto',
    forcePathStyle: true,
    credentials: { accessKeyId: info.key, secretAccessKey: info.secret },
  });
  const expected = await digestOf(generated(size));
  const rows: string[][] = [];
  const phase = async (name: string, work: () => Promise<void>) => {
    phasePeak = 0;
    const t0 = performance.now();
    await work();
    const s = (performance.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 150));
    rows.push([name, (size / MiB / s).toFixed(0), s.toFixed(1), (phasePeak / MiB).toFixed(0)]);
  };
  const check = async (key: string) => {
    const got = await s3.send(new GetObjectCommand({ Bucket: 'gib', Key: key }));
    const d = await digestOf(got.Body as AsyncIterable<Uint8Array>);
    if (d.bytes !== expected.bytes || d.sha256 !== expected.sha256) {
      throw new Error(`${key}: downloaded ${d.bytes} bytes that differ from what was uploaded`);
    }
  };
  try {
    await s3.send(new CreateBucketCommand({ Bucket: 'gib' }));
    await phase('single streamed PUT', async () => {
      await s3.send(
        new PutObjectCommand({ Bucket: 'gib', Key: 'single', Body: generated(size), ContentLength: size }),
      );
    });
    await phase('GET of the PUT object', () => check('single'));
    await phase('lib-storage multipart (64 MiB parts)', async () => {
      await new Upload({
        client: s3,
        params: { Bucket: 'gib', Key: 'multi', Body: generated(size) },
        partSize: 64 * MiB,
        queueSize: 4,
      }).done();
    });
    await phase('GET of the multipart object', () => check('multi'));
  } finally {
    s3.destroy();
    child.stdin!.end();
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`S3 reference, ${size / MiB} MiB object, bodies on disk; server RSS sampled every 100 ms\n`);
  const cols = ['phase', 'MiB/s', 'seconds', 'server peak MiB'];
  const line = (cells: string[]) =>
    console.log(cells.map((c, i) => (i ? c.padStart(16) : c.padEnd(38))).join(''));
  line(cols);
  rows.forEach(line);
  console.log(
    `\nserver RSS: ${(idle / MiB).toFixed(0)} MiB idle, ${(peak / MiB).toFixed(0)} MiB peak over the run (object: ${size / MiB} MiB)`,
  );
}
