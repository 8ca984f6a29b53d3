import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import { Transform } from 'node:stream';
import type * as S3 from '@aws-sdk/client-s3';
import { generateStream } from '../data/generate.ts';
import type { S3Target } from '../model/target.ts';
import { GeneratedBody } from '../template/resolve.ts';
import { errorMessage, InputError, TargetError } from '../util/errors.ts';
import { lookupLocalhost } from './agent.ts';
import { markUnavailable, transferAllowance } from './http.ts';
import { collectBody, emptyBody, flattenHeaders, KEEP_BYTES, StepResponse } from './response.ts';
import { type Reservation, type Traffic, UNAVAILABLE } from './traffic.ts';

/** Commands whose answer body is the object itself: streamed and hashed, never parsed whole. */
const STREAMING_OUTPUT = new Set(['GetObject', 'GetObjectTorrent', 'SelectObjectContent']);

type Sdk = typeof import('@aws-sdk/client-s3');
type Handler = typeof import('@smithy/node-http-handler');
let sdk: { S3: Sdk; NodeHttpHandler: Handler['NodeHttpHandler'] } | undefined;

/**
 * The AWS SDK, loaded on first use: a tenth of a second of CPU and more, which a run that sends no
 * S3 command never pays. Both packages are CommonJS only (their ES module builds are not what
 * Node imports), so this is the very instance an `import` of them gives.
 */
function loaded(): NonNullable<typeof sdk> {
  if (!sdk) {
    const require = createRequire(import.meta.url);
    const S3 = require('@aws-sdk/client-s3') as Sdk;
    const { NodeHttpHandler } = require('@smithy/node-http-handler') as Handler;
    sdk = { S3, NodeHttpHandler };
  }
  return sdk;
}

/** The AWS SDK's S3 client package (its commands), loaded on first use. */
export function s3Sdk(): Sdk {
  return loaded().S3;
}

/** The real SDK, pointed at the target; one client per run so connections are reused. */
export function createS3Client(
  target: S3Target,
  connections: number,
  timeoutMs: number,
  traffic?: Traffic,
  stop: AbortSignal = new AbortController().signal,
): S3.S3Client {
  const agentOptions = {
    keepAlive: true,
    maxSockets: Math.max(connections, 4),
    lookup: lookupLocalhost as any,
  };
  const { S3, NodeHttpHandler } = loaded();
  const client = new S3.S3Client({
    endpoint: target.endpoint,
    region: target.region,
    forcePathStyle: target.addressing === 'path',
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey },
    maxAttempts: 1,
    // What the SDK would print (advice to use lib-storage, ...) is not the run's output; outcomes are in the results.
    logger: { debug() {}, info() {}, warn() {}, error() {}, trace() {} },
    // Checksums only when an operation requires them, as most S3-compatible services expect.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent(agentOptions),
      httpsAgent: new https.Agent(agentOptions),
      requestTimeout: timeoutMs,
      connectionTimeout: timeoutMs,
    }),
  });
  // Every command, teardown's included: an answer the SDK parses whole is capped like any parsed body.
  client.middlewareStack.add(
    (next: any, context: any) => async (args: any) => {
      const result = await next(args);
      const name = String(context.commandName ?? '').replace(/Command$/, '');
      if (!STREAMING_OUTPUT.has(name) && result.response?.body?.pipe) {
        result.response.body = capped(result.response.body, KEEP_BYTES, name);
      }
      return result;
    },
    { step: 'deserialize', priority: 'low', name: 'edgecheckBodyCap' } as any,
  );
  if (traffic) {
    // Every request the SDK sends, teardown's included, is paced and counted like the runner's own.
    client.middlewareStack.add(
      (next: any, context: any) => async (args: any) => {
        // No request to a target taken as down, but teardown's.
        if (!context[TEARDOWN]) traffic.refuseIfDown();
        const answered = await traffic.pace('s3', stop, context[RESERVATION]);
        try {
          const result = await next(args);
          noteAnswer(traffic, result.response.statusCode, result.response.headers, context.commandName);
          return result;
        } catch (err) {
          // An error status comes here parsed. Without one there was no answer (a timeout, a
          // reset), as with a body over the size cap (a flood); a success the SDK could not parse
          // is an answer all the same, a wrong one.
          const e = err as {
            $metadata?: { httpStatusCode?: number };
            $response?: { headers?: Record<string, string> };
          };
          const status = e.$metadata?.httpStatusCode;
          if (status && !OVER_CAP.test(errorMessage(err)))
            noteAnswer(traffic, status, e.$response?.headers ?? {}, context.commandName);
          else traffic.noteTry('lost', `${context.commandName}: ${errorMessage(err)}`);
          throw err;
        } finally {
          answered();
        }
      },
      { step: 'finalizeRequest', priority: 'low', name: 'edgecheckTraffic' } as any,
    );
  }
  return client;
}

/** Where a command's handler context holds the case's reservation (see `chargeTo`). */
const RESERVATION = Symbol('edgecheck reservation');
/** Set in a teardown command's handler context: it goes to a target taken as down too. */
const TEARDOWN = Symbol('edgecheck teardown');

/** Learns from an SDK answer as from any other: announced limits, throttling, availability. */
function noteAnswer(
  traffic: Traffic,
  status: number,
  headers: Record<string, string>,
  command: string,
): void {
  traffic.observe('s3', { status, headers });
  traffic.noteTry(UNAVAILABLE.has(status) ? 'unavailable' : 'answered', `HTTP ${status} to ${command}`);
}

/**
 * Charges each try of the command to `reservation`: the client's pacing middleware counts it there,
 * so a case's cost includes what its SDK commands, its properties and its teardown sent. A
 * teardown command is marked so, and goes even to a target taken as down.
 */
function chargeTo(
  command: { middlewareStack: { add: (...a: any[]) => void } },
  reservation?: Reservation,
  teardown = false,
): void {
  if (!reservation && !teardown) return;
  command.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>, context: Record<symbol, unknown>) => (args: unknown) => {
      context[RESERVATION] = reservation;
      context[TEARDOWN] = teardown;
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: 'edgecheckReservation' },
  );
}

/** How `capped` says an answer went past the cap. */
const OVER_CAP = /answer over the [\d.]+ MiB edgecheck reads/;

/** Passes at most `limit` bytes, then fails: an XML answer is parsed whole, so its size is capped. */
function capped(body: NodeJS.ReadableStream, limit: number, what: string): Transform {
  let seen = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > limit)
        done(new TargetError(`${what}: answer over the ${limit / 1024 / 1024} MiB edgecheck reads as XML`));
      else done(null, chunk);
    },
  });
  cap.on('error', () => (body as { destroy?: () => void }).destroy?.());
  return body.pipe(cap);
}

export interface S3SendOptions {
  /** Stops what has not started (see SendOptions in http.ts); a command in flight runs to its end. */
  signal: AbortSignal;
  /** Cuts a command in flight (teardown's own deadline). */
  abort?: AbortSignal;
  timeoutMs: number;
  traffic?: Traffic;
  teardown?: boolean;
  reservation?: Reservation;
  /** Hears the bytes of a generated body taken by the SDK so far (see SendOptions in http.ts). */
  onSent?: (sent: number, total: number) => void;
  /** Added to the SDK's own User-Agent (management.ts userAgent): the case that sends. */
  userAgent?: string;
}

type CommandCtor = new (input: Record<string, unknown>) => S3.$Command<any, any, any, any, any>;

export function commandFor(name: string): CommandCtor | undefined {
  const ctor = (s3Sdk() as Record<string, unknown>)[`${name}Command`];
  return typeof ctor === 'function' ? (ctor as CommandCtor) : undefined;
}

/** Turns resolved YAML input into SDK input: generated bodies stream, with their length. */
function toSdkInput(
  input: Record<string, unknown>,
  onSent?: (sent: number, total: number) => void,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v instanceof GeneratedBody) {
      out[k] = generateStream(v.seed, 0, v.size, k === 'Body' ? onSent : undefined);
      if (k === 'Body' && input.ContentLength === undefined) out.ContentLength = v.size;
    } else out[k] = v;
  }
  return out;
}

/**
 * The command names `userAgent` at the end of the SDK's own User-Agent header, added after
 * signing, which never covers it.
 */
function nameCommand(command: { middlewareStack: { add: (...a: any[]) => void } }, userAgent: string): void {
  command.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>) =>
      async (args: { request?: { headers?: Record<string, string> } }) => {
        const headers = args.request?.headers;
        if (headers) headers['user-agent'] = `${headers['user-agent'] ?? ''} ${userAgent}`.trim();
        return next(args);
      },
    { step: 'deserialize', priority: 'low', name: 'edgecheckUserAgent' },
  );
}

/**
 * Sends one SDK command, trying a throttled or unavailable answer again as the run's Traffic
 * allows (the client itself never retries). One that outlasts the retries throws TargetError: it
 * is not the target's considered answer, so nothing may judge it, and teardown reports it as left.
 */
export async function sendRetrying<T>(
  client: S3.S3Client,
  command: Parameters<typeof nameCommand>[0],
  traffic: Traffic | undefined,
  signal: AbortSignal | undefined,
  teardown: boolean,
  ...rest: unknown[]
): Promise<T> {
  let method = 'GET';
  command.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>) => async (args: { request?: { method?: string } }) => {
      method = args.request?.method ?? method;
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'edgecheckMethod' },
  );
  for (let attempt = 0; ; attempt++) {
    try {
      return (await (client.send as (...a: unknown[]) => Promise<unknown>)(command, ...rest)) as T;
    } catch (err) {
      const e = err as {
        $metadata?: { httpStatusCode?: number };
        $response?: { headers?: Record<string, string> };
      };
      const status = e.$metadata?.httpStatusCode ?? 0;
      if (!traffic || !UNAVAILABLE.has(status)) throw err;
      const headers = e.$response?.headers ?? {};
      const delay = traffic.retryDelay(method, { status, headers }, attempt);
      if (delay === undefined) {
        const after = headers['retry-after'];
        throw new TargetError(
          `target unavailable: HTTP ${status} after ${attempt + 1} ${attempt ? 'tries' : 'try'}${after ? ` (Retry-After: ${after})` : ''}`,
        );
      }
      traffic.counts.retried += 1;
      await traffic.waitToRetry(delay, 'SDK command', signal, teardown);
    }
  }
}

/**
 * The client a property or a bucket's teardown sends through: each command names `userAgent` (when
 * given), and is tried again when throttled, as the runner's own steps are (sendS3Command).
 */
export function retryingClient(
  client: S3.S3Client,
  userAgent: string | undefined,
  traffic?: Traffic,
  signal?: AbortSignal,
  reservation?: Reservation,
  teardown = false,
): S3.S3Client {
  return new Proxy(client, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (key !== 'send') return typeof value === 'function' ? value.bind(target) : value;
      return (command: Parameters<typeof nameCommand>[0], ...rest: unknown[]) => {
        if (userAgent) nameCommand(command, userAgent);
        chargeTo(command, reservation, teardown);
        return sendRetrying(target, command, traffic, signal, teardown, ...rest);
      };
    },
  });
}

/**
 * Runs one command; the response's headers come from the wire, the output from the SDK. Throttled
 * and unavailable answers are tried again as the run's Traffic allows (the SDK itself never retries,
 * so a target's passing 500 is seen as it is).
 */
export async function sendS3Command(
  client: S3.S3Client,
  name: string,
  input: Record<string, unknown>,
  opts: S3SendOptions,
): Promise<StepResponse> {
  const Ctor = commandFor(name);
  if (!Ctor) throw new InputError('s3', `unknown S3 command '${name}'`);
  for (let attempt = 0; ; attempt++) {
    if (opts.signal.aborted) throw new TargetError(`${name} not sent: the run was stopped`);
    opts.traffic?.gate(opts);
    const { response, method } = await sendOnce(client, name, Ctor, input, opts);
    const delay = opts.traffic?.retryDelay(method, response, attempt);
    if (delay === undefined) {
      markUnavailable(response, attempt + 1);
      return response;
    }
    opts.traffic!.counts.retried += 1;
    await opts.traffic!.waitToRetry(delay, name, opts.signal, opts.teardown);
  }
}

async function sendOnce(
  client: S3.S3Client,
  name: string,
  Ctor: CommandCtor,
  input: Record<string, unknown>,
  opts: S3SendOptions,
): Promise<{ response: StepResponse; method: string }> {
  const command = new Ctor(toSdkInput(input, opts.onSent));
  let wire: { statusCode: number; headers: Record<string, string> } | undefined;
  let method = 'GET';
  command.middlewareStack.add(
    (next: any) => async (args: any) => {
      method = args.request?.method ?? method;
      const result = await next(args);
      wire = { statusCode: result.response.statusCode, headers: result.response.headers };
      return result;
    },
    { step: 'deserialize', priority: 'low', name: 'edgecheckWireCapture' } as any,
  );
  if (opts.userAgent) nameCommand(command, opts.userAgent);
  chargeTo(command, opts.reservation, opts.teardown);
  // One deadline for the whole exchange, body included; large uploads get their transfer allowance.
  const size = typeof input.ContentLength === 'number' ? input.ContentLength : 0;
  let limitMs = opts.timeoutMs + transferAllowance(size);
  const started = Date.now();
  const deadline = new AbortController();
  let timer = setTimeout(() => deadline.abort(), limitMs);
  const signal = opts.abort ? AbortSignal.any([opts.abort, deadline.signal]) : deadline.signal;
  let body: { destroy?: () => void } | undefined;
  const onDeadline = () => body?.destroy?.();
  signal.addEventListener('abort', onDeadline, { once: true });
  try {
    const output = (await client.send(command, { abortSignal: signal })) as Record<string, any>;
    const { $metadata, Body, ...rest } = output;
    body = Body;
    let collected = emptyBody();
    if (Body && typeof Body[Symbol.asyncIterator] === 'function') {
      const length = Number(wire?.headers['content-length'] ?? 0);
      if (length > 0) {
        clearTimeout(timer);
        limitMs += transferAllowance(length);
        timer = setTimeout(() => deadline.abort(), Math.max(0, started + limitMs - Date.now()));
      }
      collected = await collectBody(Body);
    }
    const response = new StepResponse(
      $metadata?.httpStatusCode ?? wire?.statusCode ?? 0,
      flattenHeaders(wire?.headers ?? {}),
      collected,
      rest,
    );
    return { response, method };
  } catch (err) {
    if (deadline.signal.aborted && !opts.abort?.aborted) {
      throw new TargetError(`${name}: no complete answer within ${limitMs} ms (--timeout)`);
    }
    const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
    const status = e.$metadata?.httpStatusCode ?? wire?.statusCode;
    // No status, or a success status the SDK could not parse: the runner cannot judge it.
    if (status === undefined || status < 300 || signal.aborted || err instanceof TargetError)
      throw err instanceof TargetError ? err : new TargetError(`${name}: ${errorMessage(err)}`);
    const response = new StepResponse(status, flattenHeaders(wire?.headers ?? {}), emptyBody(), undefined, {
      name: e.name ?? 'Error',
      message: e.message ?? '',
    });
    return { response, method };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onDeadline);
  }
}
