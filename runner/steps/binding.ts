import type { BindingCall, StepDef } from '../model/case.ts';
import { resolve } from '../template/resolve.ts';
import { buildBindingRequest } from '../transports/bindings.ts';
import { sendHttp } from '../transports/http.ts';
import { TargetLacks } from '../util/errors.ts';
import { sendOptions } from './context.ts';
import { unknownFootprint } from './footprint.ts';
import type { StepKind } from './kind.ts';
import { curlFor } from './repro.ts';

type BindingStep = Extract<StepDef, { kind: 'binding' }>;

/** One R2 binding call, through the target's bindings probe (a worker holding the binding). */
export const bindingStep: StepKind<BindingStep> = {
  load: (raw, common) => ({ ...common, kind: 'binding', binding: raw.binding! }),
  sent: (step) => step.binding,
  needs(target, all) {
    if (!target.bindings) return 'the target has no bindings probe configured';
    if (all.some((s) => s.kind !== 'binding') && !target.bindings.bucket)
      return "the bindings probe's bucket is not reachable through the target's S3 endpoint";
    return undefined;
  },
  captures: 'other',
  // The probe's bucket is the target's: a call may reach any of it.
  footprint: (step) => unknownFootprint(!['get', 'head', 'list'].includes(step.binding.call)),
  requests: 1,
  async perform(step, scope, ctx) {
    if (!ctx.target.bindings) throw new TargetLacks('the target has no bindings probe configured');
    const call = resolve(step.binding, scope) as BindingCall;
    const req = buildBindingRequest(ctx.target.bindings, call);
    const response = await sendHttp(ctx.agent, req, sendOptions(ctx, 's3'));
    // The probe answers 200 whatever the binding did; anything else is the probe refusing.
    const ok =
      response.status === 200 && (response.json() as { error?: unknown } | undefined)?.error === undefined;
    return { response, repro: () => curlFor(req, 'none'), ok, sent: { kind: 'http', request: req } };
  },
  describe: (step) => ({
    what: `binding ${step.binding.call} ${step.binding.key ?? (step.binding.keys ?? []).join(', ')}`,
  }),
};
