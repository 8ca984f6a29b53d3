import type http from 'node:http';

/** One entry point's request handler. Its own module so the handlers need not import server.ts, which imports them. */
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
