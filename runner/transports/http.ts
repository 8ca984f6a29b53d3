import type { Readable } from 'node:stream';
import type { Agent } from 'undici';
import { generateStream } from '../data/generate.ts';
import { GeneratedBody } from '../template/resolve.ts';
import { errorMessage, TargetError } from '../util/errors.ts';
import { undiciErrors } from '../util/packages.ts';
import { Deadline } from './deadline.ts';
import { exchange } from './exchange.ts';
import { StepResponse } from './response.ts';
import { type Door, type Reservation, type Traffic, UNAVAILABLE } from './traffic.ts';
import { transportMessage } from './transport-words.ts';

const SMALL_BODY = 1024 * 1024;
/** A whole-request deadline grows by this per MiB of body, so large transfers get a floor of 1 MiB/s. */
const MS_PER_MIB = 1000;

export type RequestBody = string | Buffer | GeneratedBody | undefined;

export interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: RequestBody;
}

export interface SendOptions {
  /**
   * Stops what has not started: no request is sent once it is aborted, and waits (pacing, retry
   * backoff) end. A request in flight is not cut by it: its answer may carry an id teardown needs.
   */
  signal: AbortSignal;
  /** Cuts a request in flight (teardown's own deadline); the per-request deadline applies anyway. */
  abort?: AbortSignal;
  /** Bounds each try as a whole, headers and body. */
  timeoutMs: number;
  /** Pacing, budget, retries and counts; absent for one-off requests outside a run. */
  traffic?: Traffic;
  door?: Door;
  teardown?: boolean;
  reservation?: Reservation;
  /** Hears the bytes of a generated body taken by the connection so far (progress of long uploads). */
  onSent?: (sent: number, total: number) => void;
}

export function bodyLength(body: RequestBody): number {
  if (body === undefined) return 0;
  if (body instanceof GeneratedBody) return body.size;
  return Buffer.byteLength(body);
}

export function bodyStream(
  body: RequestBody,
  onSent?: (sent: number, total: number) => void,
): string | Buffer | Readable | undefined {
  return body instanceof GeneratedBody ? generateStream(body.seed, 0, body.size, onSent) : body;
}

/** Milliseconds a transfer of `bytes` may take on top of the request timeout. */
export function transferAllowance(bytes: number): number {
  return Math.ceil(bytes / (1024 * 1024)) * MS_PER_MIB;
}

/**
 * Sends one request over undici, under the run's traffic rules: throttled and unavailable answers
 * are tried again as Traffic allows, and one that persists is marked `unavailable` so that no
 * check takes it for the target's considered answer. Transport failures become TargetError.
 */
export async function sendHttp(agent: Agent, req: OutgoingRequest, opts: SendOptions): Promise<StepResponse> {
  const { traffic, door = 'management' } = opts;
  for (let attempt = 0; ; attempt++) {
    notStopped(opts.signal, req);
    const answered =
      traffic && (traffic.admitNow(door, opts) ?? (await traffic.admit(door, opts.signal, opts)));
    let res: StepResponse;
    try {
      notStopped(opts.signal, req);
      res = await sendOnce(agent, req, opts, door);
    } catch (err) {
      // No answer: a timeout or a transport failure (not the run's own stop or teardown's deadline).
      if (traffic && !opts.signal.aborted && !opts.abort?.aborted) traffic.noteTry('lost', errorMessage(err));
      throw err;
    } finally {
      answered?.();
    }
    if (!traffic) return res;
    traffic.observe(door, res);
    const what = `HTTP ${res.status} to ${req.method} ${new URL(req.url).pathname}`;
    // An answer cut at the size cap (a flood) is no more an answer than a timeout.
    if (res.body.cut) traffic.noteTry('lost', `${what}, a body over the size cap`);
    else traffic.noteTry(UNAVAILABLE.has(res.status) ? 'unavailable' : 'answered', what);
    const delay = traffic.retryDelay(req.method, res, attempt);
    if (delay === undefined) {
      markUnavailable(res, attempt + 1);
      return res;
    }
    traffic.counts.retried += 1;
    await traffic.waitToRetry(
      delay,
      `${req.method} ${new URL(req.url).pathname}`,
      opts.signal,
      opts.teardown,
    );
  }
}

function notStopped(signal: AbortSignal, req: OutgoingRequest): void {
  if (signal.aborted) {
    const why = signal.reason instanceof Error ? signal.reason.message : 'stopped';
    throw new TargetError(`${req.method} ${new URL(req.url).pathname} not sent: ${why}`);
  }
}

/** A throttled or unavailable answer that outlasted the retries: no check may judge it as the target's. */
export function markUnavailable(res: StepResponse, tries: number): void {
  if (![429, 502, 503, 504].includes(res.status)) return;
  const after = res.headers['retry-after'];
  res.unavailable = `target unavailable: HTTP ${res.status} after ${tries} ${tries === 1 ? 'try' : 'tries'}${after ? ` (Retry-After: ${after})` : ''}`;
}

async function sendOnce(
  agent: Agent,
  req: OutgoingRequest,
  opts: SendOptions,
  door: Door,
): Promise<StepResponse> {
  const headers = { ...req.headers };
  if (req.body instanceof GeneratedBody) headers['content-length'] = String(req.body.size);
  // One deadline for the whole exchange: a target trickling bytes cannot hold the run.
  let limitMs = opts.timeoutMs + transferAllowance(bodyLength(req.body));
  const started = Date.now();
  const deadline = new Deadline(limitMs);
  const cut = opts.abort;
  const onCut = () => deadline.fire(cut?.reason);
  if (cut?.aborted) onCut();
  else cut?.addEventListener('abort', onCut, { once: true });
  try {
    const res = await exchange(
      agent,
      { method: req.method, url: req.url, headers, body: bodyStream(req.body, opts.onSent) },
      deadline,
      {
        // The management API's answers are JSON, parsed whole or not at all: nothing past the cap is read.
        stopAtCap: door === 'management',
        onLength: (length) => {
          if (length <= SMALL_BODY) return;
          // A large announced body gets its transfer allowance; an endless one only the timeout.
          limitMs += transferAllowance(length);
          deadline.reset(started + limitMs - Date.now());
        },
      },
    );
    return new StepResponse(res.status, res.headers, res.body);
  } catch (err) {
    if (opts.abort?.aborted)
      throw new TargetError(`request aborted: ${errorMessage(opts.abort.reason ?? err)}`);
    const path = new URL(req.url).pathname;
    if (
      deadline.aborted ||
      err instanceof undiciErrors().HeadersTimeoutError ||
      err instanceof undiciErrors().BodyTimeoutError
    ) {
      throw new TargetError(`no complete answer to ${req.method} ${path} within ${limitMs} ms (--timeout)`);
    }
    throw new TargetError(`${req.method} ${path}: ${transportMessage(err)}`);
  } finally {
    deadline.clear();
    cut?.removeEventListener('abort', onCut);
  }
}
