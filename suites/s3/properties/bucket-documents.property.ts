import { createHash } from 'node:crypto';
import type { ObservedView, PropertyContext, PropertyDef } from 'edgecheck/kit';
import { rawBucket } from './support/bucket.ts';
import { described, errorCodeOf, operationOf, refusedAs, refusedBeforeReading } from './support/exchange.ts';
import { type Replayed, replayedProperty, type Sent } from './support/replay.ts';
import {
  documentOf,
  each,
  elementNames,
  subresourceOf,
  takesXml,
  wellFormed,
} from './support/request-documents.ts';
import { expectThat } from './support/wire.ts';
import { xmlResult } from './support/xml.ts';

// Bucket configuration documents judged in passing from the request document the proxy kept: the
// refusals SPEC asks for (an acceptance, a 5xx or another code contradicts; the right refusal, with
// no twin in the traffic, is left unjudged) and the rule IDs a lifecycle read answers. The run sends
// a valid twin and the refused document, and its observer judges them as it judges traffic.

type Send = (req: Sent) => Promise<Replayed>;

/** A bucket configuration write with the Content-MD5 S3 asks of it. */
function configuring(bucket: string, sub: string, body: string): Sent {
  const md5 = createHash('md5').update(body).digest('base64');
  return { method: 'PUT', bucket, query: { [sub]: '' }, headers: { 'content-md5': md5 }, body };
}

/** The valid twin must be carried out, or the refusal beside it proves nothing. */
async function twin(ctx: PropertyContext, send: Send, req: Sent): Promise<void> {
  const res = await send(req);
  if (res.answer.status >= 300)
    ctx.blocked(
      `the valid twin (${req.method} ?${Object.keys(req.query ?? {})[0] ?? ''}) answered ${res.answer.status}`,
    );
}

/** CreateBucket: LocationConstraint auto accepted (held), any other refused. */
function locationConstraint(ex: ObservedView): boolean | undefined {
  if (operationOf(ex) !== 'CreateBucket') return undefined;
  const constraint = documentOf(ex)?.CreateBucketConfiguration?.LocationConstraint;
  if (typeof constraint !== 'string') return undefined;
  if (constraint !== 'auto') return notCarriedOut(ex, `LocationConstraint ${constraint}`);
  const code = errorCodeOf(ex);
  expectThat(
    code !== 'InvalidLocationConstraint',
    `${described(ex)} ${code}: LocationConstraint auto refused`,
  );
  return ex.status === 200 ? true : undefined;
}

const CORS_ELEMENTS = new Set([
  'CORSRule',
  'AllowedOrigin',
  'AllowedMethod',
  'AllowedHeader',
  'ExposeHeader',
  'MaxAgeSeconds',
  'ID',
]);

/** The CORS document of a PutBucketCors, parsed. */
const corsOf = (ex: ObservedView) =>
  subresourceOf(ex) === 'cors' && ex.method === 'PUT' ? documentOf(ex)?.CORSConfiguration : undefined;

/** The rules of a PutBucketLifecycleConfiguration, parsed. */
const lifecycleRules = (ex: ObservedView): any[] | undefined => {
  if (subresourceOf(ex) !== 'lifecycle' || ex.method !== 'PUT') return undefined;
  const doc = documentOf(ex)?.LifecycleConfiguration;
  return doc === undefined ? undefined : each(doc?.Rule);
};

/** Refusals: a 2xx or 5xx is a contradiction, a 4xx is not judged (which code is not these clauses'). */
function notCarriedOut(ex: ObservedView, what: string): undefined {
  if (refusedBeforeReading(errorCodeOf(ex))) return undefined;
  expectThat(ex.status >= 400 && ex.status < 500, `${described(ex)}: ${what}, expected a refusal`);
  return undefined;
}

const refusals: [string, string, string, (ex: ObservedView) => boolean | undefined][] = [
  [
    's3.encryption.put-other-rejected',
    'PutBucketEncryption with an algorithm other than AES256',
    'PutBucketEncryption naming an SSEAlgorithm other than AES256',
    (ex) => {
      if (subresourceOf(ex) !== 'encryption' || ex.method !== 'PUT') return undefined;
      const rules = each(documentOf(ex)?.ServerSideEncryptionConfiguration?.Rule);
      const algorithms = rules.map((r) => r?.ApplyServerSideEncryptionByDefault?.SSEAlgorithm);
      if (!algorithms.some((a) => typeof a === 'string' && a !== 'AES256')) return undefined;
      const code = errorCodeOf(ex);
      if (ex.status === 501 || (ex.status >= 400 && ex.status < 500) || refusedBeforeReading(code))
        return undefined;
      expectThat(
        false,
        `${described(ex)}${code ? ` ${code}` : ''}: SSEAlgorithm ${algorithms.join(', ')} was not refused`,
      );
      return undefined;
    },
  ],
  [
    's3.error.malformed-xml',
    'A request document that is not well-formed XML',
    'a request of an operation taking an XML document whose document (kept whole) is not well-formed',
    (ex) =>
      takesXml(ex) && wellFormed(ex) === false
        ? refusedAs(ex, 400, 'MalformedXML', 'a document that is not well-formed XML')
        : undefined,
  ],
  [
    's3.cors.unknown-keys',
    'PutBucketCors with an element outside the CORS document',
    'PutBucketCors whose document holds an element outside the CORS document',
    (ex) => {
      const cors = corsOf(ex);
      const unknown = cors && elementNames(cors).find((p) => !CORS_ELEMENTS.has(p.split('/').pop() ?? ''));
      return unknown ? notCarriedOut(ex, `the CORS document holds ${unknown}`) : undefined;
    },
  ],
  [
    's3.cors.empty-allowed-header',
    'PutBucketCors with an empty AllowedHeader',
    'PutBucketCors with an empty AllowedHeader',
    (ex) => {
      const empty = each(corsOf(ex)?.CORSRule).some((r) =>
        each(r?.AllowedHeader).some((h) => h === '' || (typeof h === 'string' && !h.trim())),
      );
      return empty ? notCarriedOut(ex, 'an AllowedHeader is empty') : undefined;
    },
  ],
  [
    's3.lifecycle.rules-validated',
    'PutBucketLifecycleConfiguration with a rule ID over 255 characters, repeated IDs, an unknown Status or Expiration Days 0',
    'PutBucketLifecycleConfiguration with a rule ID over 255 characters, repeated IDs, a Status that is no case of Enabled or Disabled, or Expiration Days 0',
    (ex) => {
      const rules = lifecycleRules(ex);
      if (!rules?.length) return undefined;
      const ids = rules.map((r) => r?.ID).filter((id) => typeof id === 'string');
      const bad =
        ids.some((id) => id.length > 255) ||
        new Set(ids).size !== ids.length ||
        rules.some((r) => typeof r?.Status === 'string' && !/^(enabled|disabled)$/i.test(r.Status)) ||
        rules.some((r) => String(r?.Expiration?.Days ?? '').trim() === '0');
      return bad ? notCarriedOut(ex, 'the rules are outside what SPEC takes') : undefined;
    },
  ],
  [
    's3.lifecycle.status-malformed-xml',
    'PutBucketLifecycleConfiguration with a Status in another case',
    'PutBucketLifecycleConfiguration with a Status of another case than Enabled or Disabled',
    (ex) => {
      const rules = lifecycleRules(ex);
      const odd = rules?.some(
        (r) =>
          typeof r?.Status === 'string' &&
          /^(enabled|disabled)$/i.test(r.Status) &&
          !/^(Enabled|Disabled)$/.test(r.Status),
      );
      return odd ? refusedAs(ex, 400, 'MalformedXML', 'a lifecycle Status of another case') : undefined;
    },
  ],
];

/** The valid document and the refused one each refusal property sends. */
const SCENARIOS: Record<string, [string, string, string]> = {
  's3.encryption.put-other-rejected': [
    'encryption',
    '<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>',
    '<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>aws:kms</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>',
  ],
  's3.error.malformed-xml': [
    'cors',
    '<CORSConfiguration><CORSRule><AllowedOrigin>https://a.example.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>',
    '<CORSConfiguration><CORSRule><AllowedOrigin>https://a.example.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSConfiguration>',
  ],
  's3.cors.unknown-keys': [
    'cors',
    '<CORSConfiguration><CORSRule><AllowedOrigin>https://a.example.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>',
    '<CORSConfiguration><CORSRule><AllowedOrigin>https://a.example.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod><Unknown>x</Unknown></CORSRule></CORSConfiguration>',
  ],
  's3.cors.empty-allowed-header': [
    'cors',
    '<CORSConfiguration><CORSRule><AllowedOrigin>https://a.example.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedHeader>x-a</AllowedHeader></CORSRule></CORSConfiguration>',
    '<CORSConfiguration><CORSRule><AllowedOrigin>https://a.example.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedHeader></AllowedHeader></CORSRule></CORSConfiguration>',
  ],
  's3.lifecycle.rules-validated': [
    'lifecycle',
    lifecycleXml([['a', 'Enabled', 1]]),
    lifecycleXml([['a', 'Enabled', 0]]),
  ],
  's3.lifecycle.status-malformed-xml': [
    'lifecycle',
    lifecycleXml([['a', 'Enabled', 1]]),
    lifecycleXml([['a', 'enabled', 1]]),
  ],
};

/** A lifecycle document of expiration rules: [ID (none when empty), Status, Days]. */
function lifecycleXml(rules: [string, string, number][]): string {
  const rule = ([id, status, days]: [string, string, number], i: number) =>
    `<Rule>${id ? `<ID>${id}</ID>` : ''}<Filter><Prefix>r${i}/</Prefix></Filter><Status>${status}</Status><Expiration><Days>${days}</Days></Expiration></Rule>`;
  return `<LifecycleConfiguration>${rules.map(rule).join('')}</LifecycleConfiguration>`;
}

/** GET ?lifecycle answered 200: every rule has an ID, no two the same. */
function ruleIds(ex: ObservedView): boolean | undefined {
  if (ex.method !== 'GET' || ex.status !== 200 || !/^\/[^/]+\/?$/.test(ex.path) || !ex.query.has('lifecycle'))
    return undefined;
  const rules = each(xmlResult(ex.text(), 'LifecycleConfiguration')?.Rule);
  if (!rules.length) return undefined;
  const ids = rules.map((r) => (typeof r?.ID === 'string' ? r.ID : ''));
  expectThat(
    ids.every((id) => id.trim() !== ''),
    `${described(ex)}: a rule has no ID (${JSON.stringify(ids)})`,
  );
  expectThat(
    new Set(ids).size === ids.length,
    `${described(ex)}: two rules share an ID (${JSON.stringify(ids)})`,
  );
  return true;
}

const properties: PropertyDef[] = [
  replayedProperty({
    id: 's3.prop.location-constraint-seen',
    title: 'CreateBucket takes LocationConstraint auto and refuses any other value',
    clause: 's3.region.create-location-constraint',
    selects:
      'CreateBucket with a LocationConstraint in its document: auto accepted, any other not carried out',
    observer: () => locationConstraint,
    async scenario(ctx, send) {
      const doc = (c: string) =>
        `<CreateBucketConfiguration><LocationConstraint>${c}</LocationConstraint></CreateBucketConfiguration>`;
      for (const [label, constraint] of [
        ['auto', 'auto'],
        ['other', 'eu-west-1'],
      ]) {
        const bucket = ctx.bucketName(label);
        ctx.defer(() => ctx.http({ method: 'DELETE', bucket }), `bucket ${bucket}`);
        await send({ method: 'PUT', bucket, body: doc(constraint) });
      }
    },
  }),
  ...refusals.map(([clause, what, selects, observer]) =>
    replayedProperty({
      id: `s3.prop.refused-${clause.split('.').slice(1).join('-')}`,
      title: `${what} is refused`,
      clause,
      selects,
      observer: () => observer,
      judges: 0,
      async scenario(ctx, send) {
        const [sub, valid, refused] = SCENARIOS[clause];
        const bucket = await rawBucket(ctx, 'doc');
        await twin(ctx, send, configuring(bucket, sub, valid));
        const res = await send(configuring(bucket, sub, refused));
        expectThat(res.answer.status >= 400, `${what} answered ${res.answer.status}`);
      },
    }),
  ),
  replayedProperty({
    id: 's3.prop.lifecycle-ids-read',
    title: 'A lifecycle configuration read answers an ID for every rule, no two the same',
    clause: 's3.lifecycle.rule-id-assigned',
    selects: 'GET ?lifecycle answered 200',
    observer: () => ruleIds,
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'ids');
      await twin(
        ctx,
        send,
        configuring(
          bucket,
          'lifecycle',
          lifecycleXml([
            ['', 'Enabled', 3],
            ['', 'Enabled', 4],
            ['named', 'Disabled', 5],
          ]),
        ),
      );
      await send({ method: 'GET', bucket, query: { lifecycle: '' } });
    },
  }),
];

export default properties;
