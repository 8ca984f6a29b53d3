import type { ReferenceContext } from '../context.ts';
import type { Handler } from '../server.ts';

/** Placeholder until the management API lands: every route answers the no-route envelope. */
export function createManagementHandler(_ctx: ReferenceContext): Handler {
  return (_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ success: false, errors: [{ code: 7000, message: 'No route for that URI' }], messages: [], result: null }));
  };
}
