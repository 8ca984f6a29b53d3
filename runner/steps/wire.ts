import type { StepDef, WireRequest } from '../model/case.ts';
import { resolve } from '../template/resolve.ts';
import { authHeaders, managementUrl } from '../transports/management.ts';
import type { StepResponse } from '../transports/response.ts';
import { sendWire } from '../transports/wire.ts';
import { TargetError, TargetLacks } from '../util/errors.ts';
import { agentOf, sendOptions } from './context.ts';
import { unknownFootprint } from './footprint.ts';
import { isReadMethod, type StepKind } from './kind.ts';

type WireStep = Extract<StepDef, { kind: 'wire' }>;

/** Raw bytes on a socket, where the wire itself is the subject (framing, duplicate headers). */
export const wireStep: StepKind<WireStep> = {
  load: (raw, common) => ({ ...common, kind: 'wire', wire: raw.wire! }),
  sent: (step) => step.wire,
  // Which endpoint it needs is in the request; perform says so when the target lacks it.
  needs: () => undefined,
  captures: 'other',
  // Raw bytes may say anything: the step reaches whatever the target holds.
  footprint: (step) => unknownFootprint(!isReadMethod(step.wire.method)),
  requests: 1,
  async perform(step, scope, ctx, owner) {
    const { target, signal } = ctx;
    const wire = resolve(step.wire, scope) as WireRequest;
    let base: string;
    const headers = [...wire.headers];
    if (wire.endpoint === 'management') {
      if (!target.management) throw new TargetLacks('the target has no management API configured');
      base = managementUrl(target.management, '/').origin;
      for (const [k, v] of Object.entries(authHeaders(target.management, wire.auth ?? 'default')))
        headers.push([k, v]);
      if (!headers.some(([k]) => k.toLowerCase() === 'user-agent'))
        headers.push(['user-agent', agentOf(ctx, owner)]);
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
  },
  // A raw request has no command of its own to repeat it by hand: its origin says it.
};
