import { createRequire } from 'node:module';
import { Transform } from 'node:stream';
import type * as S3 from '@aws-sdk/client-s3';
import { generateStream } from '../data/generate.ts';
import type { S3Target } from '../model/target.ts';
import { GeneratedBody } from '../template/resolve.ts';
import { errorMessage, InputError, TargetError } from '../util/errors.ts';
import { lookupLocalhost } from './agent.ts';
import { answerText, errorDocument, HEAD_BYTES, rootElement } from './answer-text.ts';
import { AnswerKeepingHttpAgent, AnswerKeepingHttpsAgent } from './early-answer.ts';
import { markUnavailable, transferAllowance } from './http.ts';
import {
  bufferBody,
  type CollectedBody,
  collectBody,
  emptyBody,
  flattenHeaders,
  KEEP_BYTES,
  StepResponse,
} from './response.ts';
import { type Reservation, type Traffic, UNAVAILABLE } from './traffic.ts';
import { isTransportFailure, transportMessage } from './transport-words.ts';

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
function s3Sdk(): Sdk {
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
    // An idle socket is closed a second before the server says it closes its end (Keep-Alive:
    // timeout=N), and never kept past a request's deadline: Node's agent heeds the server's hint only
    // with a timeout of its own. Without it a socket the server closed a moment ago is reused, and the
    // request meets a reset that no answer caused (seen under load against the reference's 5 s).
    timeout: timeoutMs,
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
      // A target that answers before the body is sent has answered (early-answer.ts).
      httpAgent: new AnswerKeepingHttpAgent(agentOptions),
      httpsAgent: new AnswerKeepingHttpsAgent(agentOptions),
      requestTimeout: timeoutMs,
      connectionTimeout: timeoutMs,
    }),
  });
  keepAnswers(client);
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
          else traffic.noteTry('lost', `${context.commandName}: ${transportMessage(err)}`);
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

/** What the client saw of an answer before the SDK read it (see keepAnswers). */
export interface TargetAnswer {
  status: number;
  headers: Record<string, string>;
  /** An error answer's body as sent (up to the cap): the SDK reads a copy. */
  body?: CollectedBody;
  /** The first bytes of a success answer the SDK parses whole. */
  head?: Buffer;
}

const ANSWER = Symbol('edgecheck answer');

/** The target's answer behind an SDK error, when the target answered. */
export function targetAnswer(err: unknown): TargetAnswer | undefined {
  return err && typeof err === 'object' ? (err as { [ANSWER]?: TargetAnswer })[ANSWER] : undefined;
}

/**
 * Every command, teardown's included, keeps what the target sent: an error answer's body is read
 * here (capped like any parsed body) and handed to the SDK as bytes, and an error the SDK makes of
 * an answer says what the target sent (`404 NoSuchBucket, no message`, `404, empty body`), not the
 * SDK's placeholder for what it could not read (UnknownError, NotFound, "Deserialization error").
 */
function keepAnswers(client: S3.S3Client): void {
  client.middlewareStack.add(
    (next: any, context: any) => async (args: any) => {
      const result = await next(args);
      const res = result.response;
      const name = String(context.commandName ?? '').replace(/Command$/, '');
      const answer: TargetAnswer = {
        status: res?.statusCode ?? 0,
        headers: flattenHeaders(res?.headers ?? {}),
      };
      context[ANSWER] = answer;
      if (answer.status >= 300 && res.body) {
        const body = await collectBody(res.body, { stopAtCap: true });
        if (body.cut) throw new TargetError(`${name}: ${overCap(KEEP_BYTES)}`);
        answer.body = body;
        // A copy: the SDK makes the bytes it reads into its own kind of array.
        res.body = Buffer.from(body.bytes);
      } else if (!STREAMING_OUTPUT.has(name) && res.body?.pipe) {
        // An answer the SDK parses whole is capped like any parsed body.
        res.body = capped(res.body, KEEP_BYTES, name, (head) => {
          answer.head = head;
        });
      }
      return result;
    },
    { step: 'deserialize', priority: 'low', name: 'edgecheckAnswer' } as any,
  );
  client.middlewareStack.add(
    (next: any, context: any) => async (args: any) => {
      try {
        return await next(args);
      } catch (err) {
        const answer: TargetAnswer | undefined = context[ANSWER];
        if (answer && err && typeof err === 'object' && !(err instanceof TargetError)) {
          (err as { [ANSWER]?: TargetAnswer })[ANSWER] = answer;
          const e = err as Error;
          if (answer.body) e.message = answerText(answer.status, answer.headers, answer.body);
          else if (answer.head)
            e.message = `unreadable answer: ${answerText(answer.status, answer.headers, bufferBody(answer.head))}`;
        }
        throw err;
      }
    },
    { step: 'deserialize', priority: 'high', name: 'edgecheckAnswerWords' } as any,
  );
}

const overCap = (limit: number) => `answer over the ${limit / 1024 / 1024} MiB edgecheck reads as XML`;

/** How `capped` says an answer went past the cap. */
const OVER_CAP = /answer over the [\d.]+ MiB edgecheck reads/;

/**
 * Passes at most `limit` bytes, then fails: an XML answer is parsed whole, so its size is capped.
 * `onHead` hears the first bytes, for messages about an answer the SDK could not read.
 */
function capped(
  body: NodeJS.ReadableStream,
  limit: number,
  what: string,
  onHead?: (head: Buffer) => void,
): Transform {
  let seen = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (seen === 0) onHead?.(Buffer.from(chunk.subarray(0, HEAD_BYTES)));
      seen += chunk.length;
      if (seen > limit) done(new TargetError(`${what}: ${overCap(limit)}`));
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

/** The SDK command's name without `Command`, for messages. */
function commandName(command: unknown): string {
  return String((command as { constructor?: { name?: string } })?.constructor?.name ?? 'S3 command').replace(
    /Command$/,
    '',
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
      // No answer at all is no answer of the target's: a property or a teardown cannot judge it.
      if (!status && isTransportFailure(err))
        throw new TargetError(`${commandName(command)}: ${transportMessage(err)}`);
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
  let context: { [ANSWER]?: TargetAnswer } = {};
  command.middlewareStack.add(
    (next: any, ctx: any) => async (args: any) => {
      context = ctx;
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
      undefined,
      context[ANSWER]?.head && rootElement(context[ANSWER].head),
    );
    return { response, method };
  } catch (err) {
    if (deadline.signal.aborted && !opts.abort?.aborted) {
      throw new TargetError(`${name}: no complete answer within ${limitMs} ms (--timeout)`);
    }
    const e = err as { $metadata?: { httpStatusCode?: number } };
    const answer = targetAnswer(err);
    const status = answer?.status ?? e.$metadata?.httpStatusCode ?? wire?.statusCode;
    // No status, or a success status the SDK could not parse: the runner cannot judge it.
    if (status === undefined || status < 300 || signal.aborted || err instanceof TargetError)
      throw err instanceof TargetError ? err : new TargetError(`${name}: ${transportMessage(err)}`);
    // The target's own <Code> and <Message>, each empty when it sent none: never the SDK's name for them.
    const body = answer?.body ?? emptyBody();
    const said = errorDocument(body);
    const headers = answer?.headers ?? flattenHeaders(wire?.headers ?? {});
    const response = new StepResponse(status, headers, body, undefined, {
      name: said?.code ?? '',
      message: said?.message ?? '',
    });
    return { response, method };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onDeadline);
  }
}
