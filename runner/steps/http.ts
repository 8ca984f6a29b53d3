import type { HttpRequest, StepDef } from '../model/case.ts';
import { resolve } from '../template/resolve.ts';
import { sendHttp } from '../transports/http.ts';
import { teardownAgent } from '../transports/management.ts';
import { buildS3Request, presigned, wrongSecret } from '../transports/s3-raw.ts';
import { TargetLacks } from '../util/errors.ts';
import { agentOf, sendOptions } from './context.ts';
import { type Footprint, s3Footprint } from './footprint.ts';
import { isNotFound, type StepKind } from './kind.ts';
import { curlFor } from './repro.ts';

type HttpStep = Extract<StepDef, { kind: 'http' }>;

/** What a raw request addresses: its bucket and key, or the bucket and key its `path` names. */
function httpFootprint(http: HttpRequest): Footprint {
  let { bucket, key } = http;
  if (http.path !== undefined) {
    const [first, ...rest] = http.path.split('?')[0].slice(1).split('/');
    bucket = first || undefined;
    key = rest.length ? rest.join('/') : undefined;
  }
  return s3Footprint(http.method, bucket, key, http.query, http.headers);
}

/** A raw S3 HTTP request: SigV4-signed, presigned, unsigned or deliberately mis-signed. */
export const httpStep: StepKind<HttpStep> = {
  load: (raw, common) => ({ ...common, kind: 'http', http: raw.http! }),
  sent: (step) => step.http,
  needs: (target) => (target.s3 ? undefined : 'the target has no S3 endpoint configured'),
  captures: 'other',
  footprint: (step) => httpFootprint(step.http),
  requests: 1,
  async perform(step, scope, ctx, owner) {
    const { target } = ctx;
    if (!target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
    const http = resolve(step.http, scope) as HttpRequest;
    if (http.endpoint === 'public' && !target.s3.publicUrl)
      throw new TargetLacks('the target has no public bucket URL');
    const req = await buildS3Request(target.s3, http);
    req.headers['user-agent'] ??= agentOf(ctx, owner);
    const response = await sendHttp(ctx.agent, req, sendOptions(ctx, 's3'));
    const mode =
      http.endpoint === 'public' || http.sign === 'none'
        ? 'none'
        : presigned(http.sign)
          ? 'presigned'
          : 'sigv4';
    const region = target.s3.region;
    return {
      response,
      repro: () => curlFor(req, mode, region, wrongSecret(http.sign)),
      ok: response.status < 400,
      sent: { kind: 'http', request: req },
    };
  },
  describe(step, scope, ctx, caseId) {
    const s3 = ctx.target.s3;
    if (!s3) return undefined;
    const http = resolve(step.http, scope) as HttpRequest;
    const what = `${http.method} ${http.bucket ?? ''}/${http.key ?? ''}`;
    if (http.method.toUpperCase() !== 'DELETE') return { what };
    // GET of what a DELETE names: the object, the bucket's listing, or the upload's parts.
    const readBack = { ...http, method: 'GET', body: undefined };
    return {
      what,
      absent: async (tctx) => {
        const req = await buildS3Request(s3, readBack);
        req.headers['user-agent'] ??= teardownAgent(caseId);
        return isNotFound((await sendHttp(tctx.agent, req, sendOptions(tctx, 's3'))).status);
      },
    };
  },
};
