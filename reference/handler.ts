import type http from 'node:http';

/** One entry point's request handler. Its own module so the handlers need not import server.ts, which imports them. */
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A request framed twice, by Transfer-Encoding and by Content-Length: SPEC declines these from 2023-07-01. */
export function framedTwice(req: http.IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined && req.headers['content-length'] !== undefined;
}
