import type { ObservedView } from 'edgecheck/kit';
import { described } from './exchange.ts';
import { utf8Compare } from './keys.ts';
import { expectThat } from './wire.ts';
import { xmlResult } from './xml.ts';

/** ListBuckets with cf-max-keys N lists at most N buckets; with cf-start-after X, only names after X. */
export function listBucketsHeaders(ex: ObservedView): boolean | undefined {
  if (ex.door !== 's3' || ex.method !== 'GET' || ex.path !== '/' || ex.status !== 200) return undefined;
  const max = ex.requestHeaders['cf-max-keys'];
  const after = ex.requestHeaders['cf-start-after'];
  if ((max === undefined || !/^\d+$/.test(max)) && after === undefined) return undefined;
  const doc = xmlResult(ex.text(), 'ListAllMyBucketsResult');
  if (doc === undefined) return undefined;
  const names = [doc.Buckets?.Bucket ?? []].flat().map((b: { Name?: unknown }) => String(b?.Name));
  if (max !== undefined && /^\d+$/.test(max))
    expectThat(
      names.length <= Number(max),
      `${described(ex)}: cf-max-keys ${max}, ${names.length} buckets listed`,
    );
  if (after !== undefined) {
    const early = names.find((n) => utf8Compare(n, after) <= 0);
    expectThat(early === undefined, `${described(ex)}: cf-start-after ${after}, yet ${early} is listed`);
  }
  return true;
}

/** The answer header each response-* parameter of GetObject sets. */
const OVERRIDES = [
  'content-type',
  'content-language',
  'expires',
  'cache-control',
  'content-disposition',
  'content-encoding',
];

/** GetObject with response-<header> parameters, answered 200 or 206, answers each header with the value asked. */
export function responseOverrides(ex: ObservedView): boolean | undefined {
  if (ex.door !== 's3' || ex.method !== 'GET' || (ex.status !== 200 && ex.status !== 206)) return undefined;
  if (!/^\/[^/]+\/./.test(ex.path) || ex.query.has('uploadId')) return undefined;
  const asked = OVERRIDES.filter((h) => ex.query.get(`response-${h}`) !== null);
  if (!asked.length) return undefined;
  for (const h of asked) {
    const want = ex.query.get(`response-${h}`);
    expectThat(
      ex.headers[h] === want,
      `${described(ex)}: response-${h} ${want}, answered ${h} ${ex.headers[h] ?? 'absent'}`,
    );
  }
  return true;
}
