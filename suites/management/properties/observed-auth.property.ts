import { type PropertyDef, schemas } from 'edgecheck/kit';
import { violation } from './support/envelope.ts';

/*
 * A management request without credentials answers an error envelope, as traffic shows it. The case
 * (auth.case.yaml, refused-missing) checks it in a run, beside its valid twin; this only observes.
 * A request without credentials of any kind is judged only in traffic seen to carry them: a
 * recording stripped of its credentials (a sanitized HAR export) shows every request without them,
 * and its answers say nothing of this clause.
 */

/** Headers that carry credentials. */
const CREDENTIALS = ['authorization', 'x-auth-key', 'x-auth-user-service-key'];
/** A session signed in by cookie (a browser's), or a CORS preflight, which carries none by design. */
const NOT_BARE = ['cookie', 'access-control-request-method'];

const missing: PropertyDef = {
  id: 'mgmt.auth.missing-observed',
  title: 'A request without credentials answers a 4xx error envelope',
  clauses: ['mgmt.auth.missing'],
  observe: {
    selects:
      'management requests with no Authorization, X-Auth-Key, service key, cookie or CORS preflight, in traffic whose other requests carry credentials',
    observer: () => {
      let kept = false;
      return (ex) => {
        if (ex.door !== 'management') return undefined;
        const headers = ex.requestHeaders;
        if (CREDENTIALS.some((h) => headers[h] !== undefined)) {
          kept = true;
          return undefined;
        }
        if (!kept || NOT_BARE.some((h) => headers[h] !== undefined)) return undefined;
        const where = `${ex.method} ${ex.path} without credentials`;
        // The check the case makes: a client error, and the refusal envelope.
        if (ex.status < 400 || ex.status >= 500) violation(`${where} answered ${ex.status}`);
        const problem = schemas().check('envelope.json#/definitions/refused', ex.json());
        if (problem) violation(`${where} answered no refusal envelope: ${problem}`);
        return true;
      };
    },
  },
};

export default [missing] satisfies PropertyDef[];
