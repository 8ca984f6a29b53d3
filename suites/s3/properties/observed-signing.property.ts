import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  carriesSecret,
  type ObservedView,
  type PropertyDef,
  SECRET_ACCESS_KEY,
  signingOf,
} from 'edgecheck/kit';
import { accepted, described, errorCodeOf, operationOf, payloadOf } from './support/exchange.ts';

/*
 * How requests are signed, judged from the signature each request shows: the region of its
 * credential scope, whether it has one at all, a presigned URL's time, and the payload it signs;
 * and, under --resign, that no answer carries the secret access key the proxy signs with. Under
 * edgecheck proxy --resign the target checked the proxy's signature, made for the region the
 * exchange says (ObservedView.resigned): that region is judged, and what the client's own signature
 * shows is not. The cases of region.case.yaml and auth.case.yaml and the properties of
 * wire.property.ts check the same statements in a run. Each judges one exchange and keeps nothing.
 */

/** The region the target checked the request's signature for, where it was signed well formed for S3. */
function signedRegion(ex: ObservedView): string | undefined {
  if (ex.resigned) return ex.resigned.region;
  const signing = signingOf(ex.requestHeaders, ex.query);
  return signing?.service === 's3' ? signing.region : undefined;
}

/**
 * Whether an answer refuses the region the request was signed for: AuthorizationHeaderMalformed of
 * a well-formed signature (its scope, dates and service hold), or a CreateBucket that names no
 * LocationConstraint refused as IllegalLocationConstraintException (the bucket refused the region,
 * as Amazon S3 and moto answer a region they do not serve). Other refusals say nothing of it.
 */
function refusesRegion(ex: ObservedView): boolean {
  const code = errorCodeOf(ex);
  if (code === 'AuthorizationHeaderMalformed') return true;
  if (code !== 'IllegalLocationConstraintException' || operationOf(ex) !== 'CreateBucket') return false;
  const sent = payloadOf(ex);
  return sent !== undefined && !/<LocationConstraint[\s>]/.test(sent.toString('utf8'));
}

/** An observer of requests signed for one of `regions`: answered 2xx they hold; a refusal of the region contradicts. */
function signedFor(id: string, clause: string, regions: string[], title: string, named: string): PropertyDef {
  return {
    id,
    title,
    clauses: [clause],
    observe: {
      selects: `S3 requests signed for ${named} (Authorization or a presigned URL's X-Amz-Credential, or under --resign the proxy's signature), answered 2xx or refused for their region`,
      observer: () => (ex) => {
        if (ex.door !== 's3' || ex.method === 'OPTIONS') return undefined;
        const region = signedRegion(ex);
        if (region === undefined || !regions.includes(region)) return undefined;
        if (accepted(ex)) return true;
        if (!refusesRegion(ex)) return undefined;
        throw new Error(
          `${described(ex)} ${errorCodeOf(ex)}: signed for region "${region}", which SPEC says is accepted`,
        );
      },
    },
  };
}

const regionAuto = signedFor(
  's3.prop.region-auto-observed',
  's3.region.auto',
  ['auto'],
  'Requests signed for region auto are accepted',
  'region auto',
);

const regionAliases = signedFor(
  's3.prop.region-aliases-observed',
  's3.region.aliases',
  ['us-east-1', ''],
  'Requests signed for region us-east-1 or an empty region are accepted as auto',
  'region us-east-1 or the empty region',
);

/**
 * Whether a request carries no signature: neither an Authorization header nor X-Amz-Signature, nor
 * the x-amz-date a signature comes with (a browser's sanitized HAR leaves out Authorization alone).
 */
function unsigned(ex: ObservedView): boolean {
  const h = ex.requestHeaders;
  if ((h.authorization ?? '').trim() !== '' || h['x-amz-date'] !== undefined) return false;
  return ![...ex.query.keys()].some((k) => k.toLowerCase() === 'x-amz-signature');
}

const sigv4: PropertyDef = {
  id: 's3.prop.unsigned-refused-observed',
  title: 'An S3 request without a signature is not served',
  clauses: ['s3.auth.sigv4'],
  observe: {
    selects:
      'S3 requests with neither an Authorization header, X-Amz-Signature nor x-amz-date (not CORS preflights; none under --resign, which signs them)',
    observer: () => (ex) => {
      // A preflight is never signed; under --resign the target got the request signed by the proxy.
      if (ex.door !== 's3' || ex.method === 'OPTIONS' || ex.resigned || !unsigned(ex)) return undefined;
      if (accepted(ex))
        throw new Error(`${described(ex)}: a request with no signature was served, not refused`);
      return true;
    },
  },
};

/** Clocks differ: a URL counts as expired only this long after its time ran out by the proxy's clock. */
const CLOCK_SKEW_MS = 15 * 60_000;

/** An X-Amz-Date (YYYYMMDDTHHMMSSZ) in milliseconds since the epoch. */
function amzTime(amzDate: string): number {
  const [y, mo, d, h, mi, s] = [0, 4, 6, 9, 11, 13].map((at, i) =>
    Number(amzDate.slice(at, at + (i ? 2 : 4))),
  );
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

const presignExpired: PropertyDef = {
  id: 's3.prop.presign-expired-observed',
  title: 'A presigned URL past its X-Amz-Date plus X-Amz-Expires is refused with 403',
  clauses: ['s3.presign.expired'],
  observe: {
    selects:
      'presigned requests sent over 15 minutes after their X-Amz-Date plus X-Amz-Expires, answered 2xx or 403 (none under --resign, which presigns them again)',
    observer: () => (ex) => {
      // Under --resign the target got a URL presigned afresh for the time this one had.
      if (ex.door !== 's3' || ex.resigned || ex.startedAt === undefined) return undefined;
      const signing = signingOf(ex.requestHeaders, ex.query);
      if (signing?.form !== 'query' || signing.expires === undefined) return undefined;
      const late = ex.startedAt - (amzTime(signing.amzDate) + signing.expires * 1000);
      if (late <= CLOCK_SKEW_MS) return undefined;
      if (ex.status === 403) return true;
      if (!accepted(ex)) return undefined;
      throw new Error(
        `${described(ex)}: presigned at ${signing.amzDate} for ${signing.expires} s, it was sent ${Math.round(late / 60_000)} minutes after it expired`,
      );
    },
  },
};

const signedPayload: PropertyDef = {
  id: 's3.prop.signed-payload-observed',
  title:
    "A payload signed by its SHA-256 (x-amz-content-sha256 of the body) is not refused as another body's",
  clauses: ['s3.presign.signed-payload'],
  observe: {
    selects:
      'S3 requests whose x-amz-content-sha256 is the SHA-256 of the body they sent (kept whole), answered 2xx or XAmzContentSHA256Mismatch',
    observer: () => (ex) => {
      if (ex.door !== 's3') return undefined;
      const declared = (ex.requestHeaders['x-amz-content-sha256'] ?? '').toLowerCase();
      if (!/^[0-9a-f]{64}$/.test(declared)) return undefined;
      const sent = payloadOf(ex);
      if (sent === undefined || createHash('sha256').update(sent).digest('hex') !== declared)
        return undefined;
      if (accepted(ex)) return true;
      // Other refusals (the signature, the keys, the request's own errors) say nothing of the payload.
      if (errorCodeOf(ex) !== 'XAmzContentSHA256Mismatch') return undefined;
      throw new Error(
        `${described(ex)} XAmzContentSHA256Mismatch: its x-amz-content-sha256 is the SHA-256 of the ${sent.length} bytes it sent`,
      );
    },
  },
};

/**
 * Whether a request may itself carry the secret access key, which an answer may then echo as the
 * request's own (an error naming its key): its path, query or headers carry it, or its body does or
 * was not kept whole as text.
 */
function asksWithSecret(ex: ObservedView): boolean {
  let path = ex.path;
  try {
    path += `\n${decodeURIComponent(ex.path)}`;
  } catch {
    // A path that does not decode is read as sent.
  }
  const query = [...ex.query].flat().join('\n');
  const asked = `${path}\n${query}\n${Object.values(ex.requestHeaders).join('\n')}`;
  const sent = payloadOf(ex);
  if (sent === undefined || !isUtf8(sent)) return true;
  return carriesSecret(`${asked}\n${sent.toString('utf8')}`, SECRET_ACCESS_KEY);
}

const secretNotEchoed: PropertyDef = {
  id: 's3.prop.secret-not-echoed-observed',
  title: 'No S3 answer carries the secret access key the proxy signs with',
  clauses: ['s3.auth.secret-not-echoed'],
  observe: {
    selects:
      'under --resign, S3 answers but successful reads (errors, and the answers to writes) to requests that do not carry the secret access key themselves: their headers and the text kept of their bodies',
    observer: () => (ex) => {
      // Only under --resign is the secret known: the proxy holds it, and its recording masks it as what it is.
      if (ex.door !== 's3' || !ex.resigned) return undefined;
      // A read serves what was stored (an object, its metadata, key names), which may hold anything.
      if ((ex.method === 'GET' || ex.method === 'HEAD') && ex.status < 400) return undefined;
      if (ex.query.has('select') || asksWithSecret(ex)) return undefined;
      const headers = Object.entries(ex.headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join('\n');
      if (carriesSecret(headers, SECRET_ACCESS_KEY))
        throw new Error(`${described(ex)}: its headers carry the secret access key`);
      // Text only: a recording keeps other bodies as base64, where no mask is put.
      const kept = ex.keptBody ?? ex.body ?? Buffer.alloc(0);
      if (isUtf8(kept) && carriesSecret(kept.toString('utf8'), SECRET_ACCESS_KEY))
        throw new Error(`${described(ex)}: its body carries the secret access key`);
      // A body not kept whole may carry it further on.
      return ex.body !== undefined && isUtf8(ex.body) ? true : undefined;
    },
  },
};

export default [
  regionAuto,
  regionAliases,
  sigv4,
  presignExpired,
  signedPayload,
  secretNotEchoed,
] satisfies PropertyDef[];
