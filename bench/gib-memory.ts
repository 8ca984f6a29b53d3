import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REFERENCE_CREDENTIALS } from '../reference/context.ts';
import { ROOT } from '../runner/util/paths.ts';
import { benchSuitesDir } from './synthetic.ts';

const GIB = 1024 ** 3;
const PART = 64 * 1024 ** 2;

/** A suite that moves one 1 GiB object in a single streamed PUT and one in 64 MiB parts, reading both back. */
function gibSuite(): string {
  const dir = benchSuitesDir('edgecheck-gib-', 'bench.gib.roundtrip', 'a 1 GiB object round-trips');
  const check = (extra: object = {}) => [{ clauses: ['bench.gib.roundtrip'], status: 200, ...extra }];
  const parts = GIB / PART;
  const cases = [
    {
      id: 'bench.gib.single-put',
      title: '1 GiB in one PUT',
      given: [{ bucket: 'b' }],
      steps: [
        {
          s3: 'PutObject',
          input: { Bucket: '${b}', Key: 'big', Body: { $generate: { size: GIB, seed: 9 } } },
          expect: check(),
        },
        {
          http: { method: 'GET', bucket: '${b}', key: 'big' },
          expect: check({ body: { generated: { size: GIB, seed: 9 } } }),
        },
      ],
    },
    {
      id: 'bench.gib.multipart',
      title: `1 GiB in ${parts} parts`,
      given: [{ bucket: 'b' }],
      steps: [
        {
          s3: 'CreateMultipartUpload',
          input: { Bucket: '${b}', Key: 'big' },
          capture: { upload: '/UploadId' },
          expect: check(),
        },
        ...Array.from({ length: parts }, (_, i) => ({
          s3: 'UploadPart',
          input: {
            Bucket: '${b}',
            Key: 'big',
            UploadId: '${upload}',
            PartNumber: i + 1,
            Body: { $generate: { size: PART, seed: 100 + i } },
          },
          capture: { [`etag${i}`]: '/ETag' },
          expect: check(),
        })),
        {
          s3: 'CompleteMultipartUpload',
          input: {
            Bucket: '${b}',
            Key: 'big',
            UploadId: '${upload}',
            MultipartUpload: {
              Parts: Array.from({ length: parts }, (_, i) => ({ PartNumber: i + 1, ETag: `\${etag${i}}` })),
            },
          },
          expect: check({ output: { '/ETag': { $matches: `-${parts}"?$` } } }),
        },
        { http: { method: 'GET', bucket: '${b}', key: 'big' }, expect: check({ body: { size: GIB } }) },
      ],
    },
  ];
  writeFileSync(path.join(dir, 'bench', 'gib.case.yaml'), JSON.stringify({ cases }));
  return dir;
}

/** Peak resident set (VmHWM) of a live process, in MiB. */
function peakMiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

function watchPeak(child: ChildProcess): () => number {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, peakMiB(child.pid!));
  }, 100);
  child.on('exit', () => clearInterval(timer));
  return () => {
    clearInterval(timer);
    return Math.max(peak, peakMiB(child.pid!));
  };
}

export interface GibResult {
  runnerPeakMiB: number;
  referencePeakMiB: number;
  wallMs: number;
  exitCode: number | null;
}

/** Runner and reference in separate processes, so each one's peak memory is its own. */
export async function measureGib(): Promise<GibResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgecheck-gib-data-'));
  const suites = gibSuite();
  const bin = path.join(ROOT, 'bin/edgecheck.mjs');
  const server = spawn(process.execPath, [bin, 'serve', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const s3 = await new Promise<string>((resolve, reject) => {
      let text = '';
      server.stdout!.on('data', (c) => {
        text += c;
        const m = /S3 endpoint\s+(\S+)/.exec(text);
        if (m) resolve(m[1]);
      });
      server.on('exit', () => reject(new Error(`edgecheck serve exited: ${text}`)));
    });
    const serverPeak = watchPeak(server);
    const t = performance.now();
    const runner = spawn(
      process.execPath,
      [bin, 'run', '--suites-dir', suites, '--s3-endpoint', s3, '--timeout', '600000'],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          EDGECHECK_S3_ACCESS_KEY_ID: REFERENCE_CREDENTIALS.accessKeyId,
          EDGECHECK_S3_SECRET_ACCESS_KEY: REFERENCE_CREDENTIALS.secretAccessKey,
        },
      },
    );
    const runnerPeak = watchPeak(runner);
    const exitCode = await new Promise<number | null>((resolve) => runner.on('exit', resolve));
    return {
      runnerPeakMiB: runnerPeak(),
      referencePeakMiB: serverPeak(),
      wallMs: performance.now() - t,
      exitCode,
    };
  } finally {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(suites, { recursive: true, force: true });
  }
}
