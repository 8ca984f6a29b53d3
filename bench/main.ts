import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { listAreas } from '../runner/api.ts';
import { ROOT } from '../runner/util/paths.ts';
import { measureFailingTargets } from './failing-targets.ts';
import { measureGib } from './gib-memory.ts';
import { measureLatency } from './latency.ts';
import { measureOverhead } from './overhead.ts';
import { measurePacedRun } from './paced-run.ts';
import { profileFullRun } from './profile.ts';
import { measureProxyOverhead } from './proxy-overhead.ts';
import { measureProxySoak } from './proxy-soak.ts';
import { measureSeveralTargets } from './several-targets.ts';
import { build, measureStartup, ONE_CLAUSE } from './startup.ts';
import { measureEachSuite, measureSuites, type SuitesTime } from './suites-time.ts';
import { medianTwoProcesses } from './two-process.ts';

/**
 * `npm run bench`: prints the numbers behind the project's targets. It measures and prints;
 * it asserts nothing, so a busy machine never fails a build. `--skip-gib` leaves out the 1 GiB run,
 * `--skip-failing` the runs against failing targets (about two minutes);
 * `--npm-test` also times the project's own `npm test` (minutes); `--soak N` sends N exchanges
 * through the proxy in its soak (default 1,000,000: minutes); `--soak-only` runs the soak alone;
 * `--rounds N` sets how many runs
 * each CPU figure is the median of (default 3); `--profile` also writes a CPU profile of the full
 * run (out/bench-profile/) and prints its top modules and functions (`--profile-only`: that alone);
 * `--cpu-only` stops after the CPU figures (suites, start-up, profile).
 * CPU seconds are user + system of the whole process, the reference's worker thread apart (Linux).
 */
const soakIndex = process.argv.indexOf('--soak');
const soakExchanges = soakIndex > 0 ? Number(process.argv[soakIndex + 1]) : 1_000_000;
if (!Number.isSafeInteger(soakExchanges) || soakExchanges < 10_000) {
  console.error('npm run bench -- --soak N: N is a whole number of exchanges, 10000 or more');
  process.exit(2);
}
const skipGib = process.argv.includes('--skip-gib');
const skipFailing = process.argv.includes('--skip-failing');
const npmTest = process.argv.includes('--npm-test');
const profile = process.argv.includes('--profile');
const profileOnly = process.argv.includes('--profile-only');
const cpuOnly = process.argv.includes('--cpu-only');
const roundsAt = process.argv.indexOf('--rounds');
const rounds = roundsAt > 0 ? Number(process.argv[roundsAt + 1]) : 3;
const f = (n: number, d = 1) => n.toFixed(d);
const row = (...cells: string[]) =>
  console.log(cells.map((c, i) => (i ? c.padStart(14) : c.padEnd(34))).join(''));

/** A ratio against its target, e.g. `runner/server CPU per request 0.92x [<= 1x]`. */
const ratio = (label: string, value: number, target: number) =>
  console.log(`  ${label} ${f(value, 2)}x [<= ${target}x]${value > target ? '  (over)' : ''}`);

/** The full run's CPU profile, by thread: its top modules and functions by self time. */
async function printProfile(): Promise<void> {
  console.log('CPU profile of the full run (self time by module, then by function)');
  for (const t of await profileFullRun()) {
    console.log(
      `  ${t.thread}: busy ${f(t.summary.busyMs / 1000, 2)} s of ${f(t.summary.totalMs / 1000, 2)} s  (${path.relative(process.cwd(), t.file)})`,
    );
    for (const m of t.summary.modules.slice(0, 12))
      console.log(`    ${f(m.ms, 0).padStart(7)} ms  ${m.module}`);
    console.log('    top functions:');
    for (const fn of t.summary.functions.slice(0, 12))
      console.log(`    ${f(fn.ms, 0).padStart(7)} ms  ${fn.fn}`);
  }
  console.log('');
}

/**
 * The most exchanges per second that processes spending these CPU times (us per exchange) allow:
 * together they share the machine's cores, and each one's JavaScript runs on one core at a time.
 */
function mostPerSecond(usPerExchange: number[]): number {
  const shared = usPerExchange.reduce((a, b) => a + b, 0) / availableParallelism();
  return 1e6 / Math.max(shared, ...usPerExchange);
}

/** edgecheck proxy left running: flat memory, throughput and added latency at 64 clients. */
async function printSoak(): Promise<void> {
  const s = await measureProxySoak(soakExchanges);
  row(`edgecheck proxy soak, ${s.concurrency} clients`, 'direct', 'proxied', 'ratio');
  for (const [label, l] of [
    ['target at once, same 2 cores', s.loopback],
    [`target answering in ${s.remoteMs} ms`, s.remote],
  ] as const) {
    console.log(`  ${label}`);
    row(
      '    exchanges/s [>= 70%]',
      f(l.directPerSecond, 0),
      f(l.proxiedPerSecond, 0),
      `${f((100 * l.proxiedPerSecond) / l.directPerSecond, 0)}%`,
    );
    row(
      '    median exchange, ms [<= +1 ms]',
      f(l.directMedianMs, 2),
      f(l.proxiedMedianMs, 2),
      `+${f(l.proxiedMedianMs - l.directMedianMs, 2)}`,
    );
    const c = l.cpuUs;
    row('    CPU per exchange, us: clients', f(c.direct.clients, 0), f(c.proxied.clients, 0), '');
    row('                          target', f(c.direct.target, 0), f(c.proxied.target, 0), '');
    row('                          proxy', '', f(c.proxied.proxy, 0), '');
    const direct = mostPerSecond([c.direct.clients, c.direct.target]);
    const proxied = mostPerSecond([c.proxied.clients, c.proxied.target, c.proxied.proxy]);
    row(
      '    most exchanges/s the CPU allows',
      f(direct, 0),
      f(proxied, 0),
      `${f((100 * proxied) / direct, 0)}%`,
    );
    if (l.relayedPerSecond !== undefined) {
      // The floor of any forwarder: bytes piped, nothing parsed or judged (bench/tcp-relay.ts).
      row(
        '    a bare TCP relay instead: exchanges/s',
        '',
        f(l.relayedPerSecond, 0),
        `${f((100 * l.relayedPerSecond) / l.directPerSecond, 0)}%`,
      );
      row('                          its CPU, us', '', f(l.relayCpuUs ?? 0, 0), '');
      if (l.relayCpuUs) ratio('  proxy/bare relay CPU per exchange', c.proxied.proxy / l.relayCpuUs, 2);
    }
    if (l.proxyOwnMedianMs !== undefined)
      console.log(
        `    the proxy's own time at the median (its histogram): <= ${f(l.proxyOwnMedianMs, 2)} ms`,
      );
  }
  row('  resident memory [<= 300 MB]', 'exchanges', 'MiB');
  for (const r of s.rss) row('', String(r.exchanges), f(r.mib, 0));
  console.log(
    `  exchanges judged: ${s.exchangesJudged}; clauses judged: ${s.clausesJudged}; failing: ${s.clausesFailing.join(', ') || 'none'}\n`,
  );
}

console.log('edgecheck benchmark (targets in brackets)\n');
if (process.argv.includes('--soak-only')) {
  await printSoak();
  process.exit(0);
}
if (profileOnly) {
  await printProfile();
  process.exit(0);
}

/** A measured run's row (wall and CPU, runner and reference apart), and its CPU per request below when labelled. */
function runRows(run: SuitesTime, label: string, perRequest?: string): void {
  const cpu = [run.cpuS, run.runnerCpuS ?? Number.NaN, run.referenceCpuS ?? Number.NaN];
  row(label, f(run.wallMs / 1000, 2), ...cpu.map((s) => f(s, 2)));
  if (perRequest) row(perRequest, '', ...cpu.map((s) => f((s * 1000) / run.requests, 2)));
}

// The installed package runs the build; a checkout runs its sources (npm start), from their cached transform.
await build();
const suites = await measureSuites(rounds);
row('every suite, quick, embedded reference, the build', 'wall s', 'CPU s', 'runner CPU s', 'ref. CPU s');
runRows(suites, '  process start to exit [<= 5 s, <= 6 s CPU]', '  CPU per request, ms [<= 1.5 ms]');
console.log(
  `  exit ${suites.exitCode}, ${suites.cases} cases, peak memory ${f(suites.peakMiB ?? Number.NaN, 0)} MiB, median of ${rounds} runs`,
);
console.log(`  clauses: ${JSON.stringify(suites.summary.clauses)}`);
const fromSources = await measureSuites(rounds, false);
runRows(fromSources, '  the same from the sources (npm start)');
console.log(`    peak memory ${f(fromSources.peakMiB ?? Number.NaN, 0)} MiB`);
console.log(
  `  requests: ${suites.requests} (${Object.entries(suites.requestsBySuite)
    .map(([area, n]) => `${area} ${n}`)
    .join(', ')})`,
);
for (const { suite, run } of await measureEachSuite(rounds)) {
  runRows(run, `  --suite ${suite} (${run.requests} requests)`, '    CPU per request, ms');
  ratio(`  runner/reference CPU, embedded, --suite ${suite}`, run.runnerCpuS! / run.referenceCpuS!, 1);
}
ratio('runner/reference CPU, embedded, every suite', suites.runnerCpuS! / suites.referenceCpuS!, 1);
console.log('');

// What a request costs the runner against what it costs the server it tests, each its own process
// from start to exit: `edgecheck serve`, and `edgecheck run` against it.
row('runner and server, two processes, the build', 'requests', 'runner CPU s', 'server CPU s');
for (const suite of [undefined, ...listAreas()]) {
  const two = await medianTwoProcesses(suite ? [suite] : [], rounds);
  row(
    `  ${suite ? `--suite ${suite}` : 'every suite'}`,
    String(two.requests),
    f(two.runnerCpuS, 2),
    f(two.serverCpuS, 2),
  );
  ratio('  runner/server CPU per request', two.runnerCpuS / two.serverCpuS, 1);
}
console.log('');

for (const built of [true, false]) {
  const s = await measureStartup(built, rounds);
  row(
    `start-up, ${built ? 'the build' : 'the sources'}`,
    'wall ms',
    'CPU ms',
    'runner CPU ms',
    'ref. CPU ms',
  );
  row(`  edgecheck --help [<= 150 ms]`, f(s.help.wallMs, 0), f(s.help.cpuS * 1000, 0));
  for (const [label, r] of [
    [`  run --clause ${ONE_CLAUSE} [<= 800 ms]`, s.oneClause],
    ['    the same, suites not yet compiled', s.oneClauseFirst],
  ] as const) {
    row(
      label,
      f(r.wallMs, 0),
      f(r.cpuS * 1000, 0),
      f((r.runnerCpuS ?? Number.NaN) * 1000, 0),
      f((r.referenceCpuS ?? Number.NaN) * 1000, 0),
    );
  }
  ratio(
    `one-clause run/--help CPU, ${built ? 'the build' : 'the sources'}`,
    s.oneClause.cpuS / s.help.cpuS,
    4,
  );
}
console.log('');

if (profile) await printProfile();
if (cpuOnly) process.exit(0);

// A live target's budget, not the CPU, sets a live run's time.
const paced = await measurePacedRun();
row('management + deprecations, live pacing', 'wall s', 'mgmt req.', '429 received');
row(
  '  reference enforcing 1200/5m [<= 60 s, no 429]',
  f(paced.wallMs / 1000, 1),
  String(paced.management),
  String(paced.refused),
);
if (paced.exitCode !== 0)
  console.log(`  the paced run exited ${paced.exitCode} (${paced.failing} clauses failing or erroring)`);
console.log('');

// The build is what the installed package runs; a checkout runs the sources through tsx.
const built = (await import(
  path.join(ROOT, 'dist', 'runner', 'api.js')
)) as typeof import('../runner/api.ts');
const o = await measureOverhead(2000, 3, built.runEdgecheck);
const fromTsx = await measureOverhead();
row('runner overhead per request', 'raw undici us', 'runner us', 'ratio');
row('  sequential, loopback, build [<= 1.3x]', f(o.rawUs), f(o.runnerUs), `${f(o.ratio, 2)}x`);
row('  the same, sources through tsx', f(fromTsx.rawUs), f(fromTsx.runnerUs), `${f(fromTsx.ratio, 2)}x`);
// The engine sends through undici's dispatcher, cheaper than request(): its own work shows against that.
row(
  '  build, against bare undici dispatch',
  f(o.dispatchUs),
  f(o.runnerUs),
  `${f(o.runnerUs / o.dispatchUs, 2)}x`,
);
console.log(`  the engine's own work per step: ${f(o.runnerUs - o.dispatchUs)} us on the build`);
console.log('');

row('50 ms latency per request', 'wall ms', 'crit. path ms', 'wall/path');
for (const r of await measureLatency()) {
  row(
    `  concurrency ${r.concurrency}, ${r.requests} requests`,
    f(r.wallMs, 0),
    String(r.criticalPathMs),
    `${f(r.wallMs / r.criticalPathMs, 2)}x`,
  );
  if (r.boundMs > r.criticalPathMs) {
    console.log(
      `${''.padEnd(34)}(bound by concurrency: work/concurrency = ${r.boundMs} ms; wall/bound ${f(r.wallMs / r.boundMs, 2)}x)`,
    );
  }
}
console.log('  [target: wall <= 1.2x critical path where concurrency is not the bound]\n');

const several = await measureSeveralTargets();
row('several targets in one run, 50 ms', 'alone ms', 'together ms', 'ratio');
row(
  `  ${several.targets} targets [<= 1.2x the slowest alone]`,
  f(several.aloneMs, 0),
  f(several.togetherMs, 0),
  `${f(several.togetherMs / several.aloneMs, 2)}x`,
);
console.log('');

// A validating proxy: what judging traffic in passing adds to it.
const px = await measureProxyOverhead();
row('edgecheck proxy, loopback', 'direct', 'proxied', 'added');
row(
  '  median per exchange, us [<= 1 ms added]',
  f(px.directMedianUs, 0),
  f(px.proxiedMedianUs, 0),
  f(px.proxiedMedianUs - px.directMedianUs, 0),
);
row(
  '  1 GiB upload, ms [<= 1.1x]',
  f(px.gibDirectMs, 0),
  f(px.gibProxiedMs, 0),
  `${f(px.gibProxiedMs / px.gibDirectMs, 2)}x`,
);
console.log(`  exchanges judged in passing: ${px.exchangesJudged}\n`);
await printSoak();

// A target that is down, throttles or floods: the run ends on its own, reports written.
if (!skipFailing) {
  row('failing target, every suite, defaults', 'wall s', 'at target s', 'peak MiB', 'requests', 'exit');
  for (const r of await measureFailingTargets()) {
    row(
      `  ${r.label}${r.reports ? '' : ' (no reports)'}`,
      f(r.wallMs / 1000),
      r.atTargetMs === undefined ? '-' : f(r.atTargetMs / 1000),
      f(r.peakMiB, 0),
      String(r.requests),
      String(r.exitCode),
    );
  }
  console.log('  [target: ends within 30 s at the target, peak <= 300 MB]\n');
}

if (!skipGib) {
  const g = await measureGib();
  row('1 GiB object (PUT + multipart, GET)', 'runner MiB', 'reference MiB', 'wall s');
  row(
    '  peak resident memory [<= 300 MB]',
    f(g.runnerPeakMiB, 0),
    f(g.referencePeakMiB, 0),
    f(g.wallMs / 1000, 1),
  );
  if (g.exitCode !== 0) console.log(`  the 1 GiB run exited ${g.exitCode}: see its output above`);
  console.log('');
  // The reference alone, driven by the SDK's own lib-storage uploader: throughput per phase.
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/s3-gib.ts'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  await new Promise((resolve) => child.on('exit', resolve));
}

if (npmTest) {
  // The whole of `npm test` as a developer runs it: type-check, lint, every test file.
  const started = performance.now();
  const child = spawn('npm', ['test', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  row('npm test', 'wall s', 'exit');
  row('  type-check, lint, tests [<= 240 s]', f((performance.now() - started) / 1000, 0), String(code));
}
