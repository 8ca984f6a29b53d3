import type { ObservedView, PropertyDef } from 'edgecheck/kit';
import { seenObject } from './support/observed-objects.ts';
import { expectThat } from './support/wire.ts';

/*
 * A GET or HEAD with one date condition and no ETag condition beside it (whose precedence the
 * clause sets apart), judged by the Last-Modified its own answer gives, in whole seconds: the cases
 * in conditional-dates.case.yaml check the same statement in a run. It keeps nothing.
 */

/** An HTTP date's whole seconds, or undefined for one a server must ignore. */
function seconds(date: string | undefined): number | undefined {
  if (date === undefined) return undefined;
  const ms = Date.parse(date);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/** The one date condition of an object read, with its date and the answer's Last-Modified. */
function dateCondition(ex: ObservedView) {
  if ((ex.method !== 'GET' && ex.method !== 'HEAD') || !seenObject(ex)) return undefined;
  const h = ex.requestHeaders;
  if (h['if-match'] !== undefined || h['if-none-match'] !== undefined) return undefined;
  const since = h['if-modified-since'];
  const unmodified = h['if-unmodified-since'];
  if ((since === undefined) === (unmodified === undefined)) return undefined;
  const name = since !== undefined ? 'If-Modified-Since' : 'If-Unmodified-Since';
  const asked = seconds(since ?? unmodified);
  const modified = seconds(ex.headers['last-modified']);
  if (asked === undefined || modified === undefined) return undefined;
  return { name, date: since ?? unmodified, asked, modified, lastModified: ex.headers['last-modified'] };
}

const dateConditions: PropertyDef = {
  id: 's3.prop.cond-dates-observed',
  title: 'GET and HEAD with one date condition answer as their own Last-Modified says, in whole seconds',
  clauses: ['s3.cond.get-dates'],
  observe: {
    selects:
      'GET and HEAD of an object with one of If-Modified-Since or If-Unmodified-Since and no ETag condition, answered 200 or 304 with Last-Modified',
    observer: () => (ex) => {
      if (ex.status !== 200 && ex.status !== 304) return undefined;
      const c = dateCondition(ex);
      if (!c) return undefined;
      const where = `${ex.method} ${ex.path} with ${c.name}: ${c.date}, Last-Modified ${c.lastModified}`;
      if (c.name === 'If-Modified-Since') {
        // 304 at or after Last-Modified, 200 before it.
        const want = c.asked >= c.modified ? 304 : 200;
        expectThat(ex.status === want, `${where}: answered ${ex.status}, expected ${want}`);
      } else {
        // 200 where the date is not earlier than Last-Modified, 412 where it is (never 304).
        const want = c.asked >= c.modified ? 200 : 412;
        expectThat(ex.status === want, `${where}: answered ${ex.status}, expected ${want}`);
      }
      return true;
    },
  },
};

export default [dateConditions] satisfies PropertyDef[];
