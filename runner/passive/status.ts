import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Counter, Gauge, Registry } from 'prom-client';
import type { RunResults } from '../model/results.ts';
import type { PassiveJudge } from './judge.ts';
import type { ProxyStats } from './stats.ts';

/** The added latency's buckets, in seconds: 50 us to half a second. */
const LATENCY_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5];

export interface StatusOptions {
  host: string;
  port: number;
  version: string;
  judge: PassiveJudge;
  stats: ProxyStats;
  /** The results document as it stands now (what the reporters would write at exit). */
  results(): RunResults;
  /** A results document rendered by a reporter: `json` or `html`. */
  render(results: RunResults, format: 'json' | 'html'): Promise<string>;
  /** Whether each door's server is listening. */
  listening(): boolean;
  /** With --record: whether the recording stopped (a full disk), and how many files it rotated. */
  recording?: () => { stopped: boolean; rotations: number };
}

export interface StatusHandle {
  url: string;
  close(): Promise<void>;
}

/**
 * The proxy's status port: `/metrics` (Prometheus text format, by prom-client, loaded only here
 * so that a proxy without a status port does not pay for it), `/report.json` and `/report.html`
 * (the documents of the reporters, as they stand now) and `/healthz` (200 while forwarding works:
 * the doors listen and the latest attempt of each reached its target). Read-only: it answers GET.
 */
export async function startStatus(o: StatusOptions): Promise<StatusHandle> {
  const prom = await import('prom-client');
  const registry = new prom.Registry();
  // process_resident_memory_bytes, nodejs_heap_size_used_bytes and the rest, under their usual names.
  prom.collectDefaultMetrics({ register: registry });
  registerMetrics(prom, registry, o);
  const server = http.createServer((req, res) => {
    answer(req, registry, o)
      .then(({ status, type, body }) => {
        res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
        res.end(body);
      })
      .catch((err: Error) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`edgecheck proxy status: ${err.message}\n`);
      });
  });
  server.keepAliveTimeout = 5000;
  server.headersTimeout = 10_000;
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(
  req: http.IncomingMessage,
  registry: Registry,
  o: StatusOptions,
): Promise<{ status: number; type: string; body: string }> {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return { status: 405, type: 'text/plain', body: 'the status port answers GET only\n' };
  switch (path) {
    case '/metrics':
      return { status: 200, type: registry.contentType, body: await registry.metrics() };
    case '/report.json':
      return { status: 200, type: 'application/json', body: await o.render(o.results(), 'json') };
    case '/report.html':
      return { status: 200, type: 'text/html; charset=utf-8', body: await o.render(o.results(), 'html') };
    case '/healthz':
      return health(o);
    default:
      return {
        status: 404,
        type: 'text/plain',
        body: 'edgecheck proxy status: /metrics, /report.json, /report.html, /healthz\n',
      };
  }
}

/** 200 while the doors listen and each door's latest attempt reached its target; else 503, saying why. */
function health(o: StatusOptions): { status: number; type: string; body: string } {
  if (!o.listening()) return { status: 503, type: 'text/plain', body: 'not listening\n' };
  const down = Object.entries(o.stats.latest).flatMap(([door, latest]) =>
    latest && !latest.ok ? [`${door}: the target did not answer (${latest.kind}, at ${latest.at})`] : [],
  );
  if (down.length) return { status: 503, type: 'text/plain', body: `${down.join('\n')}\n` };
  return { status: 200, type: 'text/plain', body: 'forwarding\n' };
}

type Prom = typeof import('prom-client');

/** Counters read from the judge and the proxy's counts when scraped: set to their totals. */
function totals<L extends string>(
  prom: Prom,
  registry: Registry,
  def: { name: string; help: string; labelNames: L[] },
  read: () => Iterable<[Record<L, string>, number]>,
): void {
  new prom.Counter({
    ...def,
    registers: [registry],
    collect(this: Counter<L>) {
      this.reset();
      for (const [labels, n] of read()) this.inc(labels, n);
    },
  });
}

function registerMetrics(prom: Prom, registry: Registry, o: StatusOptions): void {
  const doors = ['management', 's3'] as const;
  totals(
    prom,
    registry,
    {
      name: 'edgecheck_clause_exchanges_judged_total',
      help: 'Exchanges that a passive check of the clause judged, by door',
      labelNames: ['clause', 'door'],
    },
    function* () {
      for (const [clause, c] of o.judge.counts)
        for (const door of doors) yield [{ clause, door }, c.judged[door]];
    },
  );
  totals(
    prom,
    registry,
    {
      name: 'edgecheck_clause_exchanges_contradicting_total',
      help: 'Exchanges that contradicted a passive check of the clause, by door',
      labelNames: ['clause', 'door'],
    },
    function* () {
      for (const [clause, c] of o.judge.counts)
        for (const door of doors) yield [{ clause, door }, c.contradicting[door]];
    },
  );
  new prom.Gauge({
    name: 'edgecheck_clause_verdict',
    help: "The clause's verdict so far: 1 for the verdict it has (pass, fail, error, untested, ...)",
    labelNames: ['clause', 'verdict'],
    registers: [registry],
    collect(this: Gauge<'clause' | 'verdict'>) {
      this.reset();
      for (const c of o.results().clauses) this.set({ clause: c.id, verdict: c.verdict }, 1);
    },
  });
  registerTraffic(prom, registry, o);
}

function registerTraffic(prom: Prom, registry: Registry, o: StatusOptions): void {
  totals(
    prom,
    registry,
    {
      name: 'edgecheck_proxy_exchanges_total',
      help: 'Exchanges forwarded whole, by door and status class of the answer',
      labelNames: ['door', 'status_class'],
    },
    function* () {
      for (const [door, byClass] of Object.entries(o.stats.forwarded))
        for (const [status_class, n] of Object.entries(byClass)) yield [{ door, status_class }, n];
    },
  );
  totals(
    prom,
    registry,
    {
      name: 'edgecheck_proxy_busy_answers_total',
      help: 'Answers saying the service was busy or down (429, 502, 503, 504), judged on nothing',
      labelNames: ['door', 'status'],
    },
    function* () {
      for (const [door, byStatus] of Object.entries(o.judge.busy))
        for (const [status, n] of Object.entries(byStatus)) yield [{ door, status }, n];
    },
  );
  totals(
    prom,
    registry,
    {
      name: 'edgecheck_proxy_upstream_errors_total',
      help: 'Requests the target never answered, or stopped answering, by door and kind',
      labelNames: ['door', 'kind'],
    },
    function* () {
      for (const [door, byKind] of Object.entries(o.stats.upstreamErrors))
        for (const [kind, n] of Object.entries(byKind)) yield [{ door, kind }, n ?? 0];
    },
  );
  totals(
    prom,
    registry,
    {
      name: 'edgecheck_proxy_clients_left_total',
      help: 'Clients that left before their answer',
      labelNames: [],
    },
    function* () {
      yield [{}, o.stats.clientsLeft];
    },
  );
  const added = new prom.Histogram({
    name: 'edgecheck_proxy_added_latency_seconds',
    help: "The proxy's own time in an exchange: before the request goes on, and passing the answer's head back",
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  o.stats.onAddedLatency = (seconds) => added.observe(seconds);
  const recording = o.recording;
  if (recording) {
    // A recording that stopped is traffic no longer kept: worth an alert of its own.
    new prom.Gauge({
      name: 'edgecheck_proxy_recording',
      help: '1 while --record writes the traffic, 0 once it stopped (a write failed: a full disk)',
      registers: [registry],
      collect() {
        this.set(recording().stopped ? 0 : 1);
      },
    });
    totals(
      prom,
      registry,
      {
        name: 'edgecheck_proxy_recording_rotations_total',
        help: 'Recording files rotated out by --record-max-bytes or --record-max-age',
        labelNames: [],
      },
      function* () {
        yield [{}, recording().rotations];
      },
    );
  }
  new prom.Gauge({
    name: 'edgecheck_build_info',
    help: 'The version of edgecheck running',
    labelNames: ['version'],
    registers: [registry],
  }).set({ version: o.version }, 1);
}
