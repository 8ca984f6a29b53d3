import type { Readable } from 'node:stream';
import type { Agent, Dispatcher } from 'undici';
import type { Deadline } from './deadline.ts';
import { BodyCollector, type CollectedBody, flattenHeaders, KEEP_BYTES } from './response.ts';

export interface Exchanged {
  status: number;
  /** Lower-case names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: CollectedBody;
}

export interface ExchangeRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer | Readable;
}

/**
 * The origin undici connects to and the path it sends, as `request()` takes them from a URL:
 * normalised (percent-encoding, dot segments, default port), so a URL from a config file is sent
 * as a URL object would send it.
 */
export function splitUrl(url: string): { origin: string; path: string } {
  const u = new URL(url);
  return { origin: u.origin, path: u.search ? `${u.pathname}${u.search}` : u.pathname };
}

/**
 * One request and its whole answer, over undici's dispatcher with a handler that takes the body
 * chunk by chunk into a BodyCollector. `request()` would wrap the answer in a stream only to read
 * it back at once; on loopback that stream is a third of a request's time.
 *
 * The promise settles when the answer is complete, when `deadline` fires (at once, even for a
 * request still queued for a connection), or at the cap when `stopAtCap` (the rest is not read).
 * `onLength` hears the announced length of the body, before it is read.
 */
export function exchange(
  agent: Agent,
  req: ExchangeRequest,
  deadline: Deadline,
  { stopAtCap = false, onLength }: { stopAtCap?: boolean; onLength?: (length: number) => void } = {},
): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    const { origin, path } = splitUrl(req.url);
    const handler = new ExchangeHandler(deadline, stopAtCap, onLength, resolve, (err) => {
      // A body stream undici never took (the connection failed first) is ended here, not left open.
      if (req.body && typeof req.body === 'object' && 'destroy' in req.body && !req.body.destroyed)
        req.body.destroy();
      reject(err);
    });
    agent.dispatch(
      { origin, path, method: req.method as Dispatcher.HttpMethod, headers: req.headers, body: req.body },
      handler,
    );
  });
}

class ExchangeHandler implements Dispatcher.DispatchHandler {
  private status = 0;
  private headers: Record<string, string> = {};
  private collector?: BodyCollector;
  private settled = false;

  constructor(
    private readonly deadline: Deadline,
    private readonly stopAtCap: boolean,
    private readonly onLength: ((length: number) => void) | undefined,
    private readonly resolve: (answer: Exchanged) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    if (deadline.aborted) this.fail(deadline.reason);
    else deadline.onFire(() => this.fail(deadline.reason));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.settled) {
      controller.abort(this.abortReason());
      return;
    }
    this.deadline.onFire(() => controller.abort(this.abortReason()));
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // An informational answer (1xx) comes before the real one.
    if (statusCode < 200) return;
    this.status = statusCode;
    this.headers = flattenHeaders(headers);
    const length = Number(this.headers['content-length'] ?? Number.NaN);
    this.collector = new BodyCollector(this.stopAtCap, KEEP_BYTES, length >= 0 ? length : undefined);
    if (length >= 0) this.onLength?.(length);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled || !this.collector) return;
    if (!this.collector.push(chunk)) {
      this.finish();
      // Past the cap nothing more is read: the connection closes. Not from inside undici's parser,
      // which is still handling this chunk; what it hands over meanwhile is ignored.
      queueMicrotask(() => controller.abort(new Error('body over the cap')));
    }
  }

  onResponseEnd(): void {
    this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.fail(err);
  }

  private abortReason(): Error {
    const r = this.deadline.reason;
    return r instanceof Error ? r : new Error('the request was cut');
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    const collector = this.collector ?? new BodyCollector();
    this.resolve({ status: this.status, headers: this.headers, body: collector.done() });
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(err);
  }
}
