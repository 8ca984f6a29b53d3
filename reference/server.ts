import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { REFERENCE_CREDENTIALS, REFERENCE_IDS, type ReferenceContext } from './context.ts';
import { FaultTrace, TracedFaults } from './fault-trace.ts';
import { FaultSet } from './faults.ts';
import type { Handler } from './handler.ts';
import { createManagementHandler } from './management/index.ts';
import { limitRequests, type RateLimited } from './management/rate-limit.ts';
import { createState, type State } from './management/store.ts';
import { BINDINGS_BUCKET, BINDINGS_PATH } from './s3/bindings.ts';
import { createS3Handlers } from './s3/index.ts';
import { S3Store } from './s3/store.ts';
import type { ReferenceTarget } from './target.ts';

export interface ReferenceOptions {
  asOf: string;
  faults?: string[];
  dataDir?: string;
  /** With dataDir: bodies of this many bytes or fewer stay in memory (default 0: all on disk). */
  inMemoryUpTo?: number;
  host?: string;
  /** 0 (default) picks free ports. */
  managementPort?: number;
  s3Port?: number;
  publicPort?: number;
  /**
   * Note which fault decision points each request reaches (fault-trace.ts), read from the handle's
   * faultTrace: for tests that run the server in their own thread (not reference/worker.ts).
   */
  traceFaults?: boolean;
  /** Refuse management requests past this limit with 429, as the service does (rate-limit.ts). */
  managementRateLimit?: { requests: number; windowMs: number };
}

export interface ReferenceHandle {
  context: ReferenceContext;
  urls: ReferenceContext['urls'];
  /** What the server holds, for tests that compare it before and after a run (reference/snapshot.ts). */
  state: { management: State; s3: S3Store };
  /** The fault consults so far, when started with traceFaults. */
  faultTrace?: FaultTrace;
  /** Management requests refused with 429 under managementRateLimit (0 without one). */
  throttled(): number;
  /** The target config a run uses against this server. */
  target(): ReferenceTarget;
  close(): Promise<void>;
}

export type { Handler };

async function listen(
  handler: Handler,
  host: string,
  port: number,
  extra: http.ServerOptions = {},
): Promise<http.Server> {
  // Idle connections are left to the client to close (keepAliveTimeout 0: no timeout, no hint): a
  // server closing its end while a request is on its way resets it, an error no answer caused. A
  // run in one thread with its reference met that beside a CPU hog, its timers late by over the
  // second the clients keep between their idle timeout and the server's. close() ends idle ones.
  const server = http.createServer({ keepAliveTimeout: 0, requestTimeout: 0, ...extra }, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

function urlOf(server: http.Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  return `http://${host}:${port}`;
}

/** Starts the management API, the S3 interface and the public bucket entry point on loopback. */
export async function startReference(options: ReferenceOptions): Promise<ReferenceHandle> {
  const host = options.host ?? '127.0.0.1';
  const faults = new FaultSet(options.faults ?? []);
  const faultTrace = options.traceFaults ? new FaultTrace() : undefined;
  const context: ReferenceContext = {
    asOf: options.asOf,
    // Consults through the server's own context happen outside any request the trace can name.
    faults: faultTrace ? new TracedFaults(faults, faultTrace.outside) : faults,
    faultTrace,
    dataDir: options.dataDir,
    credentials: REFERENCE_CREDENTIALS,
    ids: REFERENCE_IDS,
    urls: { management: '', s3: '', public: '' },
  };
  const state = { management: createState(context), s3: new S3Store(context.dataDir, options.inMemoryUpTo) };
  const api = createManagementHandler(context, state.management);
  const management = options.managementRateLimit ? limitRequests(api, options.managementRateLimit) : api;
  const s3 = createS3Handlers(context, state.s3);
  const servers: http.Server[] = [];
  try {
    // Node's strict parser rejects Transfer-Encoding with Content-Length with a bare 400 before any handler
    // runs; the management API answers such requests itself, by the date (SPEC Versioning, 2023-07-01).
    servers.push(await listen(management, host, options.managementPort ?? 0, { insecureHTTPParser: true }));
    // Requests even that parser refuses still get the API's envelope, not a bare status line.
    servers[0].on('clientError', answerMalformed);
    // The S3 endpoint, too, declines Transfer-Encoding with Content-Length itself (SPEC Authentication rule 3),
    // so that the request reaches its handler.
    servers.push(await listen(s3.s3, host, options.s3Port ?? 0, { insecureHTTPParser: true }));
    // Expect: 100-continue: the S3 handler invites the body itself once the credentials hold; Node
    // would otherwise answer 100 Continue for every request.
    servers[1].on('checkContinue', s3.s3);
    servers.push(await listen(s3.public, host, options.publicPort ?? 0));
  } catch (err) {
    await Promise.all(servers.map((s) => closeServer(s)));
    throw err;
  }
  context.urls.management = urlOf(servers[0], host);
  context.urls.s3 = urlOf(servers[1], host);
  context.urls.public = urlOf(servers[2], host);
  return {
    context,
    urls: context.urls,
    state,
    faultTrace,
    throttled: () => (management === api ? 0 : (management as RateLimited).refused()),
    target: () => ({
      name: 'reference',
      embedded: true,
      features: [...REFERENCE_FEATURES],
      management: {
        baseUrl: context.urls.management,
        token: context.credentials.token,
        legacy: { email: context.credentials.legacyEmail, key: context.credentials.legacyKey },
        accountId: context.ids.accountId,
        zoneId: context.ids.zoneId,
        ids: { invite: context.ids.inviteId, certificatePack: context.ids.certificatePackId },
      },
      s3: {
        endpoint: context.urls.s3,
        publicUrl: context.urls.public,
        region: 'auto',
        addressing: 'path',
        accessKeyId: context.credentials.accessKeyId,
        secretAccessKey: context.credentials.secretAccessKey,
      },
      bindings: {
        url: `${context.urls.s3}${BINDINGS_PATH}include`,
        legacyUrl: `${context.urls.s3}${BINDINGS_PATH}legacy`,
        secret: context.credentials.bindingsSecret,
        bucket: BINDINGS_BUCKET,
      },
    }),
    close: async () => {
      await Promise.all(servers.map((s) => closeServer(s)));
    },
  };
}

/** Everything the reference implements. */
export const REFERENCE_FEATURES = [
  'legacy-auth',
  'public-buckets',
  'virtual-hosted',
  'migration',
  'raw-wire',
  'worker-bindings',
] as const;

const MALFORMED = JSON.stringify({
  result: null,
  success: false,
  errors: [{ code: 6003, message: 'Invalid request: malformed HTTP' }],
  messages: [],
});

function answerMalformed(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(MALFORMED)}\r\nconnection: close\r\n\r\n${MALFORMED}`,
  );
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
