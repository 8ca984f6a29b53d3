import type { ApiRequest, HttpRequest, StepDef, WireRequest } from '../model/case.ts';
import { resolve, type Scope } from '../template/resolve.ts';
import { sendHttp } from '../transports/http.ts';
import { authHeaders, buildApiRequest, managementUrl } from '../transports/management.ts';
import { emptyBody, StepResponse } from '../transports/response.ts';
import { buildS3Request } from '../transports/s3-raw.ts';
import { sendS3Command } from '../transports/s3-sdk.ts';
import { sendWire } from '../transports/wire.ts';
import { InputError, TargetLacks } from '../util/errors.ts';
import { bucketName, createBucket, destroyBucket } from './buckets.ts';
import type { RunContext } from './context.ts';
import { awsCliFor, curlFor } from './repro.ts';
import type { TeardownLedger } from './teardown.ts';

export interface Performed {
  response: StepResponse;
  /** Built only when a check fails: most steps pass, and the command is not free to build. */
  repro?: () => string;
  /** Whether the step did what it asked (status < 400, no SDK error): prerequisites need this. */
  ok: boolean;
}

/** Resolves a step's placeholders and sends it. Throws MissingValue, TargetLacks or TargetError. */
export async function performStep(
  step: StepDef,
  scope: Scope,
  ctx: RunContext,
  caseSlug: string,
  ledger: TeardownLedger,
): Promise<Performed> {
  const { target, signal } = ctx;
  if (step.api) {
    if (!target.management) throw new TargetLacks('the target has no management API configured');
    const api = resolve(step.api, scope) as ApiRequest;
    const req = buildApiRequest(target.management, api);
    const response = await sendHttp(ctx.agent, req, signal);
    return {
      response,
      repro: () => curlFor(req, 'management', undefined, api.auth?.startsWith('wrong-')),
      ok: response.status < 400,
    };
  }
  if (step.http) {
    if (!target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
    const http = resolve(step.http, scope) as HttpRequest;
    if (http.endpoint === 'public' && !target.s3.publicUrl)
      throw new TargetLacks('the target has no public bucket URL');
    const req = await buildS3Request(target.s3, http);
    const response = await sendHttp(ctx.agent, req, signal);
    const mode =
      http.endpoint === 'public' || http.sign === 'none'
        ? 'none'
        : http.sign === 'presign'
          ? 'presigned'
          : 'sigv4';
    const region = target.s3.region;
    return {
      response,
      repro: () => curlFor(req, mode, region, http.sign === 'bad-signature'),
      ok: response.status < 400,
    };
  }
  if (step.s3) {
    if (!target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
    const input = resolve(step.input ?? {}, scope) as Record<string, unknown>;
    const response = await sendS3Command(ctx.s3(), step.s3, input, signal);
    return { response, repro: () => awsCliFor(step.s3!, input, target.s3!.endpoint), ok: !response.error };
  }
  if (step.wire) {
    const wire = resolve(step.wire, scope) as WireRequest;
    let base: string;
    const headers = [...wire.headers];
    if (wire.endpoint === 'management') {
      if (!target.management) throw new TargetLacks('the target has no management API configured');
      base = managementUrl(target.management, '/').origin;
      for (const [k, v] of Object.entries(authHeaders(target.management, wire.auth ?? 'default')))
        headers.push([k, v]);
    } else {
      if (!target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
      base = target.s3.endpoint;
    }
    if (!/^http:/.test(base)) throw new TargetLacks('raw wire requests need a plain-HTTP endpoint');
    const response = await sendWire(base, wire.method, wire.path, headers, wire.body, ctx.timeoutMs, signal);
    return { response, ok: response.status < 400 };
  }
  if (step.bucket !== undefined) {
    if (!target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
    const name = bucketName(ctx.runId, caseSlug, step.bucket);
    const s3 = ctx.s3();
    await createBucket(ctx.agent, target.s3, name, signal);
    ledger.add(`delete bucket ${name}`, () => destroyBucket(s3, name));
    scope[step.bucket] = name;
    return { response: new StepResponse(200, {}, emptyBody()), ok: true };
  }
  throw new InputError(step.origin, 'step has no kind');
}
