// Preloaded into a measured edgecheck process (node --import, which worker threads run too): at
// exit, writes the process's CPU seconds and peak memory to EDGECHECK_BENCH_CPU_FILE, the CPU split
// into the reference's worker thread and the rest (the runner, with V8's and libuv's helper
// threads). Linux only for the split (/proc); elsewhere the total alone. Node 20 has no per-thread
// CPU call and names every thread "node", so each worker says which thread it is, and the main
// thread samples them while they live: a worker's entry vanishes when it ends.
import { readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env.EDGECHECK_BENCH_CPU_FILE;
const CHANNEL = 'edgecheck-bench-thread-cpu';
const TICK = 100; // USER_HZ on Linux

function threadSeconds(tid) {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICK;
  } catch {
    return undefined; // ended, or no /proc
  }
}

if (file && !isMainThread) {
  try {
    const tid = readlinkSync('/proc/thread-self').split('/').pop();
    const channel = new BroadcastChannel(CHANNEL);
    channel.postMessage({ tid });
    channel.close();
  } catch {
    // No /proc: the main thread reports the total alone.
  }
} else if (file) {
  const workers = new Map();
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (e) => workers.set(e.data.tid, 0);
  channel.unref();
  const sample = () => {
    for (const tid of workers.keys()) {
      const s = threadSeconds(tid);
      if (s !== undefined) workers.set(tid, s);
    }
  };
  setInterval(sample, 50).unref();
  process.on('exit', () => {
    sample();
    const u = process.cpuUsage();
    const total = (u.user + u.system) / 1e6;
    let reference = 0;
    for (const s of workers.values()) reference += s;
    // Peak resident memory of the process, both threads (KiB).
    const peakKiB = process.resourceUsage().maxRSS;
    writeFileSync(
      file,
      JSON.stringify({ total, reference, runner: total - reference, workers: workers.size, peakKiB }),
    );
  });
}
