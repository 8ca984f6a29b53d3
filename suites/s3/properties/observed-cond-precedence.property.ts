import type { PropertyDef } from 'edgecheck/kit';
import { seenObject } from './support/observed-objects.ts';
import { expectThat } from './support/wire.ts';

/*
 * A GET with both If-Match and If-None-Match, judged by the ETag its own answer gives: the cases of
 * conditionals.case.yaml check the same statement in a run. Lists of strong ETags and * only (a
 * weak one is s3.cond.weak-etag's); it keeps nothing.
 */

/** The ETags of a condition, or undefined where one is weak or the list cannot be read. */
function tags(value: string): string[] | undefined {
  const list = value.split(',').map((t) => t.trim());
  if (list.some((t) => t === '' || t.startsWith('W/'))) return undefined;
  return list;
}

const matches = (list: string[], etag: string) => list.includes('*') || list.includes(etag);

const precedence: PropertyDef = {
  id: 's3.prop.cond-precedence-observed',
  title: 'A GET with If-Match and If-None-Match answers as If-Match first, then If-None-Match, decide',
  clauses: ['s3.cond.precedence'],
  observe: {
    selects:
      'GETs of an object with both If-Match and If-None-Match of strong ETags, answered 200 or 304 with an ETag',
    observer: () => (ex) => {
      if (ex.method !== 'GET' || (ex.status !== 200 && ex.status !== 304) || !seenObject(ex))
        return undefined;
      const ifMatch = ex.requestHeaders['if-match'];
      const ifNoneMatch = ex.requestHeaders['if-none-match'];
      const etag = ex.headers.etag;
      if (ifMatch === undefined || ifNoneMatch === undefined || etag === undefined) return undefined;
      const must = tags(ifMatch);
      const mustNot = tags(ifNoneMatch);
      if (!must || !mustNot) return undefined;
      const want = !matches(must, etag) ? 412 : matches(mustNot, etag) ? 304 : 200;
      expectThat(
        ex.status === want,
        `GET ${ex.path} with If-Match: ${ifMatch} and If-None-Match: ${ifNoneMatch}, ETag ${etag}: answered ${ex.status}, expected ${want}`,
      );
      return true;
    },
  },
};

export default [precedence] satisfies PropertyDef[];
