import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';

/**
 * Agents for the SDK's connections that keep an answer sent before the request body was: a target
 * may refuse an upload at once (411 MissingContentLength) and close the connection under the rest
 * of the body. Node's HTTP client then fails on its next write (EPIPE, ECONNRESET) and drops the
 * answer already received, though the target answered. Here a write failing so ends the writing
 * only: reading goes on, so the answer is parsed as any other, and a connection without one still
 * fails when it closes. Such a connection is never reused.
 */
const WRITE_FAILED = Symbol('edgecheck write failed');
const LOST_PEER = new Set(['EPIPE', 'ECONNRESET']);

type WriteCallback = (err?: Error | null) => void;
export type Writing = Duplex & {
  _write(chunk: unknown, encoding: BufferEncoding, cb: WriteCallback): void;
  _writev?(chunks: { chunk: unknown; encoding: BufferEncoding }[], cb: WriteCallback): void;
  [WRITE_FAILED]?: Error;
};

/** Writes to `socket` after the peer has gone are dropped; the first such failure is kept on it. */
export function keepReading(socket: Writing): void {
  const guard =
    <A extends unknown[]>(write: (...args: [...A, WriteCallback]) => void) =>
    (...args: [...A, WriteCallback]) => {
      const cb = args.pop() as WriteCallback;
      if (socket[WRITE_FAILED]) return cb();
      write.call(socket, ...(args as unknown as A), (err?: Error | null) => {
        const code = (err as NodeJS.ErrnoException | null | undefined)?.code;
        if (err && code && LOST_PEER.has(code)) {
          socket[WRITE_FAILED] = err;
          return cb();
        }
        cb(err);
      });
    };
  socket._write = guard(socket._write);
  if (socket._writev) socket._writev = guard(socket._writev);
}

function failedWrite(socket: unknown): boolean {
  return Boolean((socket as Writing)[WRITE_FAILED]);
}

// A mixin's base takes any arguments: TypeScript's rule for mixins.
type AgentClass = new (...args: any[]) => http.Agent;

/** `Base` whose connections keep an early answer (see above). */
function answerKeeping<B extends AgentClass>(Base: B): B {
  return class extends Base {
    override createConnection(...args: Parameters<http.Agent['createConnection']>) {
      const socket = super.createConnection(...args);
      if (socket) keepReading(socket as unknown as Writing);
      return socket;
    }
    override keepSocketAlive(socket: Parameters<http.Agent['keepSocketAlive']>[0]) {
      return failedWrite(socket) ? false : super.keepSocketAlive(socket);
    }
  };
}

export const AnswerKeepingHttpAgent = answerKeeping(http.Agent);
export const AnswerKeepingHttpsAgent = answerKeeping(https.Agent as AgentClass);
