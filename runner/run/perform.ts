import type { ApiRequest, BindingCall, HttpRequest, StepDef, WireRequest } from '../model/case.ts';
import { resolve, type Scope } from '../template/resolve.ts';
import { buildBindingRequest } from '../transports/bindings.ts';
import { bucketName, createBucket, destroyBucket, removeBucketCommand } from '../transports/buckets.ts';
import { sendHttp } from '../transports/http.ts';
import { authHeaders, buildApiRequest, managementUrl, userAgent } from '../transports/management.ts';
import { emptyBody, StepResponse } from '../transports/response.ts';
import { buildS3Request } from '../transports/s3-raw.ts';
import { sendS3Command } from '../transports/s3-sdk.ts';
import { sendWire } from '../transports/wire.ts';
import { InputError, TargetError, TargetLacks } from '../util/errors.ts';
import { type RunContext, sendOptions } from './context.ts';
import type { SentRequest } from './failure-detail.ts';
import { awsCliFor, curlFor } from './repro.ts';
import type { TeardownLedger } from './teardown.ts';

export interface Performed {
  response: StepResponse;
  /** Built only when a check fails: most steps pass, and the command is not free to build. */
  repro?: () => string;
  /** Whether the step did what it asked (status < 400, no SDK error): prerequisites need this. */
  ok: boolean;
  /** What was sent, for the exchange shown with a failing check. */
  sent?: SentRequest;
}

/** The case a step belongs to: its id names it to the target, its slug names its buckets. */
export interface StepOwner {
  id: string;
  slug: string;
}

/** Resolves a step's placeholders and sends it. Throws MissingValue, TargetLacks or TargetError. */
export async function performStep(
  step: StepDef,
  scope: Scope,
  ctx: RunContext,
  owner: StepOwner,
  ledger: TeardownLedger,
): Promise<Performed> {
  const { target, signal } = ctx;
  switch (step.kind) {
    case 'api': {
      if (!target.management) throw new TargetLacks('the target has no management API configured');
      const api = resolve(step.api, scope) as ApiRequest;
      const req = buildApiRequest(target.management, api, userAgent(owner.id));
      const response = await sendHttp(ctx.agent, req, sendOptions(ctx, 'management'));
      return {
        response,
        repro: () => curlFor(req, 'management', undefined, api.auth?.startsWith('wrong-')),
        ok: response.status < 400,
        sent: { kind: 'http', request: req },
      };
    }
    case 'http': {
      if (!target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
      const http = resolve(step.http, scope) as HttpRequest;
      if (http.endpoint === 'public' && !target.s3.publicUrl)
        throw new TargetLacks('the target has no public bucket URL');
      const req = await buildS3Request(target.s3, http);
      req.headers['user-agent'] ??= userAgent(owner.id);
      const response = await sendHttp(ctx.agent, req, sendOptions(ctx, 's3'));
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
        sent: { kind: 'http', request: req },
      };
    }
    case 's3': {
      if (!target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
      const input = resolve(step.input ?? {}, scope) as Record<string, unknown>;
      const response = await sendS3Command(ctx.s3(), step.s3, input, {
        ...sendOptions(ctx, 's3'),
        userAgent: userAgent(owner.id),
      });
      return {
        response,
        repro: () => awsCliFor(step.s3!, input, target.s3!.endpoint),
        ok: !response.error,
        sent: { kind: 'sdk', command: step.s3 },
      };
    }
    case 'wire': {
      const wire = resolve(step.wire, scope) as WireRequest;
      let base: string;
      const headers = [...wire.headers];
      if (wire.endpoint === 'management') {
        if (!target.management) throw new TargetLacks('the target has no management API configured');
        base = managementUrl(target.management, '/').origin;
        for (const [k, v] of Object.entries(authHeaders(target.management, wire.auth ?? 'default')))
          headers.push([k, v]);
        if (!headers.some(([k]) => k.toLowerCase() === 'user-agent'))
          headers.push(['user-agent', userAgent(owner.id)]);
      } else {
        if (!target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
        base = target.s3.endpoint;
      }
      if (!/^http:/.test(base)) throw new TargetLacks('raw wire requests need a plain-HTTP endpoint');
      const opts = sendOptions(ctx, wire.endpoint === 's3' ? 's3' : 'management');
      const answered = await ctx.traffic.admit(opts.door!, signal, opts);
      let response: StepResponse;
      try {
        if (signal.aborted)
          throw new TargetError(`wire ${wire.method} ${wire.path} not sent: the run was stopped`);
        const cut = opts.abort ?? new AbortController().signal;
        response = await sendWire(base, wire.method, wire.path, headers, wire.body, ctx.timeoutMs, cut);
      } finally {
        answered();
      }
      return {
        response,
        ok: response.status < 400,
        sent: { kind: 'wire', method: wire.method, url: base + wire.path, headers },
      };
    }
    case 'binding': {
      if (!target.bindings) throw new TargetLacks('the target has no bindings probe configured');
      const call = resolve(step.binding, scope) as BindingCall;
      const req = buildBindingRequest(target.bindings, call);
      const response = await sendHttp(ctx.agent, req, sendOptions(ctx, 's3'));
      // The probe answers 200 whatever the binding did; anything else is the probe refusing.
      const ok =
        response.status === 200 && (response.json() as { error?: unknown } | undefined)?.error === undefined;
      return { response, repro: () => curlFor(req, 'none'), ok, sent: { kind: 'http', request: req } };
    }
    case 'bucket': {
      if (!target.s3) throw new TargetLacks('the target has no S3 endpoint configured');
      const name = bucketName(ctx.runId, owner.slug, step.bucket);
      const s3 = ctx.s3();
      const s3Target = target.s3;
      await createBucket(ctx.agent, s3Target, name, sendOptions(ctx, 's3'));
      ledger.add({
        what: `bucket ${name}`,
        undo: () => removeBucketCommand(s3Target, name),
        run: (td) => destroyBucket(s3, name, td, ctx.traffic),
      });
      scope[step.bucket] = name;
      return { response: new StepResponse(200, {}, emptyBody()), ok: true };
    }
    default:
      return unknownKind(step);
  }
}

/** Proves at compile time that every kind is handled; at run time, names a step built by hand. */
function unknownKind(step: never): never {
  const { origin, kind } = step as { origin: string; kind: unknown };
  throw new InputError(origin, `step of unknown kind '${String(kind)}'`);
}

export interface Described {
  /** The request in words: `DELETE /zones/…/dns_records/…`. */
  what: string;
  /** A command that sends it by hand, credentials from the environment. */
  undo?: () => string;
  /** For a delete: reads the thing back and throws unless it is gone. */
  confirm?: (ctx: RunContext) => Promise<void>;
  /**
   * For a removal that answered 404: reads the thing back, true when it is not there. A thing the
   * case completed or deleted itself (an upload completed, an object the case removed) is gone, not
   * left behind; a read that finds it means the 404 was wrong.
   */
  absent?: (ctx: RunContext) => Promise<boolean>;
}

/** The read that finds what an S3 removal removes: answering 404, it proves the thing gone. */
const S3_READ_BACK: Record<string, { command: string; keys: string[] }> = {
  AbortMultipartUpload: { command: 'ListParts', keys: ['Bucket', 'Key', 'UploadId'] },
  DeleteObject: { command: 'HeadObject', keys: ['Bucket', 'Key'] },
  DeleteBucket: { command: 'HeadBucket', keys: ['Bucket'] },
};

const isNotFound = (status: number) => status === 404 || status === 410;

/** A teardown step in words and as a command, and how to confirm that a delete took. */
export function describeStep(step: StepDef, scope: Scope, ctx: RunContext, caseId: string): Described {
  try {
    switch (step.kind) {
      case 'api': {
        const mgmt = ctx.target.management;
        if (!mgmt) break;
        const api = resolve(step.api, scope) as ApiRequest;
        const req = buildApiRequest(mgmt, api, userAgent(caseId));
        if (api.method.toUpperCase() !== 'DELETE') {
          return { what: `${api.method} ${api.path}`, undo: () => curlFor(req, 'management') };
        }
        const readBack = () =>
          buildApiRequest(mgmt, { ...api, method: 'GET', body: undefined }, userAgent(caseId));
        return {
          what: `${api.method} ${api.path}`,
          undo: () => curlFor(req, 'management'),
          confirm: (tctx) => confirmGone(tctx, readBack()),
          absent: async (tctx) =>
            isNotFound((await sendHttp(tctx.agent, readBack(), sendOptions(tctx, 'management'))).status),
        };
      }
      case 'http': {
        const s3 = ctx.target.s3;
        if (!s3) break;
        const http = resolve(step.http, scope) as HttpRequest;
        const what = `${http.method} ${http.bucket ?? ''}/${http.key ?? ''}`;
        if (http.method.toUpperCase() !== 'DELETE') return { what };
        // GET of what a DELETE names: the object, the bucket's listing, or the upload's parts.
        const readBack = { ...http, method: 'GET', body: undefined };
        return {
          what,
          absent: async (tctx) => {
            const req = await buildS3Request(s3, readBack);
            req.headers['user-agent'] ??= userAgent(caseId);
            return isNotFound((await sendHttp(tctx.agent, req, sendOptions(tctx, 's3'))).status);
          },
        };
      }
      case 's3': {
        if (!ctx.target.s3) break;
        const input = resolve(step.input ?? {}, scope) as Record<string, unknown>;
        const endpoint = ctx.target.s3.endpoint;
        const read = S3_READ_BACK[step.s3];
        return {
          what: `${step.s3} ${JSON.stringify(input)}`,
          undo: () => awsCliFor(step.s3!, input, endpoint),
          absent: read
            ? async (tctx) => {
                const readInput = Object.fromEntries(read.keys.map((k) => [k, input[k]]));
                const r = await sendS3Command(tctx.s3(), read.command, readInput, {
                  ...sendOptions(tctx, 's3'),
                  userAgent: userAgent(caseId),
                });
                return isNotFound(r.status);
              }
            : undefined,
        };
      }
      // A raw request or a bucket has no command of its own to repeat it by hand: the origin says it.
      case 'wire':
      case 'bucket':
        break;
      case 'binding':
        return {
          what: `binding ${step.binding.call} ${step.binding.key ?? (step.binding.keys ?? []).join(', ')}`,
        };
      default:
        return unknownKind(step);
    }
  } catch {
    // A placeholder with no value: the teardown itself will say so when it runs.
  }
  return { what: `the teardown step at ${step.origin}` };
}

/** A delete took when the thing answers 404 or 410; a 2xx means it is still there. */
async function confirmGone(ctx: RunContext, req: ReturnType<typeof buildApiRequest>): Promise<void> {
  const res = await sendHttp(ctx.agent, req, sendOptions(ctx, 'management'));
  if (res.status >= 200 && res.status < 300) {
    throw new TargetError(`still there after the delete (GET answered ${res.status})`);
  }
}
