import type { ObservedView, Observer } from 'edgecheck/kit';
import { accepted, described, errorCodeOf } from './exchange.ts';
import { utf8Compare } from './keys.ts';
import { expectThat } from './wire.ts';
import { xmlResult } from './xml.ts';

/** The region a request's credential scope names (Authorization or a presigned X-Amz-Credential), if well-formed. */
export function credentialRegion(ex: ObservedView): string | undefined {
  const scope =
    /Credential=[^/,\s]+\/(\d{8}\/[^/,]*\/s3\/aws4_request)/.exec(
      ex.requestHeaders.authorization ?? '',
    )?.[1] ?? ex.query.get('X-Amz-Credential')?.split('/').slice(1).join('/');
  const m = scope === undefined ? null : /^\d{8}\/([^/]*)\/s3\/aws4_request$/.exec(scope);
  return m ? m[1] : undefined;
}

/**
 * Requests signed for one of `regions` are accepted: carried out (held), or refused for anything but
 * the region (AuthorizationHeaderMalformed, which a well-formed scope earns only by its region).
 */
export function regionAccepted(regions: string[]): Observer {
  return (ex) => {
    if (ex.door !== 's3') return undefined;
    const region = credentialRegion(ex);
    if (region === undefined || !regions.includes(region)) return undefined;
    if (accepted(ex)) return true;
    const code = errorCodeOf(ex);
    expectThat(
      code !== 'AuthorizationHeaderMalformed',
      `${described(ex)} AuthorizationHeaderMalformed: signed for region ${JSON.stringify(region)}`,
    );
    return undefined;
  };
}

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
