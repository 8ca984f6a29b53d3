import { type ObservedView, type PropertyDef, signingOf } from 'edgecheck/kit';
import { accepted, described, errorCodeOf, operationOf, payloadOf } from './support/exchange.ts';

/*
 * How requests are signed, judged from the signature each request shows: the region of its
 * credential scope, and whether it has one at all. Under edgecheck proxy --resign the target checked the proxy's signature, made
 * for the region the exchange says (ObservedView.resigned), so that region is judged instead. The
 * cases of region.case.yaml and the properties of wire.property.ts check the same statements in a
 * run. Each judges one exchange and keeps nothing.
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

/** Whether a request carries no signature: neither an Authorization header nor X-Amz-Signature. */
function unsigned(ex: ObservedView): boolean {
  if ((ex.requestHeaders.authorization ?? '').trim() !== '') return false;
  return ![...ex.query.keys()].some((k) => k.toLowerCase() === 'x-amz-signature');
}

const sigv4: PropertyDef = {
  id: 's3.prop.unsigned-refused-observed',
  title: 'An S3 request without a signature is not served',
  clauses: ['s3.auth.sigv4'],
  observe: {
    selects:
      'S3 requests with neither an Authorization header nor X-Amz-Signature (not CORS preflights; none under --resign, which signs them)',
    observer: () => (ex) => {
      // A preflight is never signed; under --resign the target got the request signed by the proxy.
      if (ex.door !== 's3' || ex.method === 'OPTIONS' || ex.resigned || !unsigned(ex)) return undefined;
      if (accepted(ex))
        throw new Error(`${described(ex)}: a request with no signature was served, not refused`);
      return true;
    },
  },
};

export default [regionAuto, regionAliases, sigv4] satisfies PropertyDef[];
