import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { ROOT } from '../runner/util/paths.ts';

/** `edgecheck proxy` left running: its memory over many exchanges, and what it costs under load. */
export interface LoadFigures {
  directPerSecond: number;
  proxiedPerSecond: number;
  directMedianMs: number;
  proxiedMedianMs: number;
  /** The proxy's own time per exchange at that load, the median of its added-latency histogram. */
  proxyOwnMedianMs?: number;
  /** Through a bare TCP relay instead (bench/tcp-relay.ts): the floor of any forwarder. */
  relayedPerSecond?: number;
  relayCpuUs?: number;
  /** CPU time (user + system) per exchange, us, of each process: the figure a shared machine keeps. */
  cpuUs: {
    direct: { clients: number; target: number };
    proxied: { clients: number; target: number; proxy: number };
  };
}

export interface ProxySoak {
  /** Resident memory of the proxy's process after so many exchanges through it. */
  rss: { exchanges: number; mib: number }[];
  concurrency: number;
  /** The target answering at once, on the same cores as the clients and the proxy. */
  loopback: LoadFigures;
  /** The target answering after remoteMs, as across a network. */
  remote: LoadFigures;
  remoteMs: number;
  exchangesJudged: number;
  clausesJudged: number;
  clausesFailing: string[];
}

const median = (xs: Float64Array) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Exchange `i` of everyday traffic: zones and pages of them, keys, ranges, listings, a bucket HEAD. */
function exchange(i: number): {
  door: 'management' | 's3';
  method: string;
  path: string;
  headers?: Record<string, string>;
} {
  const n = i % 1000;
  switch (i % 7) {
    case 0:
      return {
        door: 'management',
        method: 'GET',
        path: `/client/v4/zones/${n.toString(16).padStart(32, '0')}`,
      };
    case 1:
      return { door: 'management', method: 'GET', path: `/client/v4/zones?page=${(i % 10) + 1}&per_page=5` };
    case 2:
      return { door: 's3', method: 'GET', path: '/b/missing' };
    case 3:
      return { door: 's3', method: 'GET', path: `/b/k-${n}`, headers: { range: 'bytes=0-0' } };
    case 4:
      return { door: 's3', method: 'GET', path: `/b?list-type=2&prefix=p${i % 100}%2F` };
    case 5:
      return { door: 's3', method: 'HEAD', path: '/b' };
    default:
      return { door: 's3', method: 'GET', path: `/b/k-${n}` };
  }
}

/** A child process that prints what `pattern` finds once it is ready. */
async function started(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  let text = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      text += d.toString();
      const m = pattern.exec(text);
      if (m) resolve(m);
    });
    child.once('exit', () => reject(new Error(`exited before it was ready: ${text}`)));
  });
}

/** The resident memory of a live process, MiB, from /proc. */
function rssMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** The kernel's clock ticks per second, which /proc/PID/stat counts in (100 on Linux). */
const CLOCK_TICKS = 100;

/** CPU time (user + system) a live process has used, us, from /proc. */
function cpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}

/** The CPU time, us, of the clients (this process), the target, the proxy and the relay, now. */
function cpuNow(pair: Running): { clients: number; target: number; proxy: number; relay: number } {
  const own = process.cpuUsage();
  return {
    clients: own.user + own.system,
    target: cpuUs(pair.target.pid as number),
    proxy: cpuUs(pair.proxy.pid as number),
    relay: pair.relay ? cpuUs(pair.relay.pid as number) : 0,
  };
}

/** Sends `count` exchanges from `concurrency` clients at once; the time of each (ms) when `times` is given. */
async function drive(
  base: { management: string; s3: string },
  agent: Agent,
  from: number,
  count: number,
  concurrency: number,
  times?: Float64Array,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const k = next++;
      const x = exchange(from + k);
      const t = performance.now();
      const res = await request(`${base[x.door]}${x.path}`, {
        method: x.method,
        headers: x.headers,
        dispatcher: agent,
      });
      await res.body.dump();
      if (times) times[k] = performance.now() - t;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return performance.now() - started;
}

type CpuNow = ReturnType<typeof cpuNow>;

interface Running {
  direct: { management: string; s3: string };
  proxied: { management: string; s3: string };
  status: string;
  proxy: ChildProcess;
  target: ChildProcess;
  relayed?: { management: string; s3: string };
  relay?: ChildProcess;
}

/**
 * A target answering after `latencyMs`, and `edgecheck proxy` in front of it with its status port;
 * with `relay`, a bare TCP relay in front of it too.
 */
async function startPair(latencyMs: number, results: string, relay = false): Promise<Running> {
  const target = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/soak-target.ts'), String(latencyMs)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = (await started(target, /(http:\/\/\S+)\n/))[1];
  const proxy = spawn(
    process.execPath,
    [
      path.join(ROOT, 'bin/edgecheck.mjs'),
      'proxy',
      '--management-url',
      url,
      '--s3-endpoint',
      url,
      '--status-port',
      '0',
      '--reporter',
      `json=${results}`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const banner = await started(
    proxy,
    /management API\s+(\S+)[\s\S]*S3 endpoint\s+(\S+)[\s\S]*status\s+(http:\/\/[^/\s]+)/,
  );
  const running: Running = {
    direct: { management: url, s3: url },
    proxied: { management: banner[1], s3: banner[2] },
    status: banner[3],
    proxy,
    target,
  };
  if (relay) {
    running.relay = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/tcp-relay.ts'), url], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const at = (await started(running.relay, /(http:\/\/\S+)\n/))[1];
    running.relayed = { management: at, s3: at };
  }
  return running;
}

/** Exchanges per second and median times, direct and proxied, in alternating rounds after a warm-up. */
async function underLoad(
  pair: Running,
  agent: Agent,
  round: number,
  rounds: number,
  concurrency: number,
): Promise<LoadFigures> {
  const sides = pair.relayed ? (['direct', 'proxied', 'relayed'] as const) : (['direct', 'proxied'] as const);
  for (const side of sides) await drive(pair[side]!, agent, 0, 2000, concurrency);
  const times = {
    direct: new Float64Array(round * rounds),
    proxied: new Float64Array(round * rounds),
    relayed: new Float64Array(round * rounds),
  };
  const ms = { direct: 0, proxied: 0, relayed: 0 };
  const spent = {
    direct: { clients: 0, target: 0 },
    proxied: { clients: 0, target: 0, proxy: 0 },
    relayed: { relay: 0 },
  };
  const add = (into: Partial<Record<keyof CpuNow, number>>, before: CpuNow) => {
    const after = cpuNow(pair);
    for (const k of Object.keys(into) as (keyof CpuNow)[]) into[k] = (into[k] ?? 0) + after[k] - before[k];
  };
  // Alternating rounds: a change of load on the machine falls on both sides alike.
  for (let r = 0; r < rounds; r++) {
    for (const side of sides) {
      const before = cpuNow(pair);
      ms[side] += await drive(
        pair[side]!,
        agent,
        r * round,
        round,
        concurrency,
        times[side].subarray(r * round),
      );
      add(spent[side], before);
    }
  }
  const per = (us: number) => us / (round * rounds);
  return {
    directPerSecond: (round * rounds * 1000) / ms.direct,
    proxiedPerSecond: (round * rounds * 1000) / ms.proxied,
    directMedianMs: median(times.direct),
    proxiedMedianMs: median(times.proxied),
    proxyOwnMedianMs: await histogramMedianMs(`${pair.status}/metrics`),
    relayedPerSecond: pair.relayed ? (round * rounds * 1000) / ms.relayed : undefined,
    relayCpuUs: pair.relayed ? per(spent.relayed.relay) : undefined,
    cpuUs: {
      direct: { clients: per(spent.direct.clients), target: per(spent.direct.target) },
      proxied: {
        clients: per(spent.proxied.clients),
        target: per(spent.proxied.target),
        proxy: per(spent.proxied.proxy),
      },
    },
  };
}

async function stopPair(pair: Running | undefined): Promise<void> {
  if (!pair) return;
  if (pair.proxy.exitCode === null) {
    pair.proxy.kill('SIGINT');
    await once(pair.proxy, 'exit');
  }
  pair.target.kill('SIGTERM');
  pair.relay?.kill('SIGTERM');
}

/**
 * The soak: a target and `edgecheck proxy` (with its status port, every clause judged) each in its
 * own process; 64 clients at once send everyday traffic direct and through the proxy, in
 * alternating rounds, for exchanges per second and the median time of an exchange: against a
 * loopback target answering at once (every process on the same 2 cores: the proxy's CPU is the
 * clients' and the target's) and against one answering after `remoteMs`, as across a network.
 * Then the first proxy takes `soak` exchanges in all, its resident memory read after 10k, 100k and
 * 1M of them (those up to `soak`), and after `soak`.
 */
export async function measureProxySoak(
  soak = 1_000_000,
  remoteMs = 5,
  round = 10_000,
  rounds = 3,
  concurrency = 64,
): Promise<ProxySoak> {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgecheck-soak-'));
  const results = path.join(dir, 'proxy.json');
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });
  let pair: Running | undefined;
  let remote: Running | undefined;
  try {
    remote = await startPair(remoteMs, path.join(dir, 'remote.json'));
    const across = await underLoad(remote, agent, round, rounds, concurrency);
    await stopPair(remote);
    pair = await startPair(0, results, true);
    const loopback = await underLoad(pair, agent, round, rounds, concurrency);
    let done = 2000 + round * rounds;
    const rss: ProxySoak['rss'] = [];
    const marks = [...new Set([10_000, 100_000, 1_000_000].filter((m) => m <= soak).concat(soak))];
    for (const mark of marks.sort((a, b) => a - b)) {
      if (mark > done) await drive(pair.proxied, agent, done, mark - done, concurrency);
      done = Math.max(done, mark);
      rss.push({ exchanges: mark, mib: rssMiB(pair.proxy.pid as number) });
    }
    await stopPair(pair);
    const doc = JSON.parse(readFileSync(results, 'utf8')) as {
      observed?: number;
      clauses: { id: string; verdict: string }[];
    };
    return {
      rss,
      concurrency,
      remoteMs,
      loopback,
      remote: across,
      exchangesJudged: doc.observed ?? 0,
      clausesJudged: doc.clauses.filter((c) => c.verdict !== 'untested').length,
      clausesFailing: doc.clauses
        .filter((c) => c.verdict === 'fail' || c.verdict === 'error')
        .map((c) => c.id),
    };
  } finally {
    for (const p of [pair, remote]) if (p?.proxy.exitCode === null) p.proxy.kill('SIGKILL');
    for (const p of [pair, remote]) p?.target.kill('SIGTERM');
    pair?.relay?.kill('SIGTERM');
    await agent.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The median of the proxy's added-latency histogram, ms: the upper bound of the bucket it falls in. */
async function histogramMedianMs(metricsUrl: string): Promise<number | undefined> {
  const text = await (await fetch(metricsUrl)).text();
  const buckets = [
    ...text.matchAll(/^edgecheck_proxy_added_latency_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm),
  ].map((m) => [Number(m[1]), Number(m[2])] as const);
  const total = buckets.at(-1)?.[1] ?? 0;
  const bound = buckets.find(([, n]) => n >= total / 2)?.[0];
  return bound === undefined ? undefined : bound * 1000;
}
