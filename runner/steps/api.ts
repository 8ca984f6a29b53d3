import type { ApiRequest, StepDef } from '../model/case.ts';
import { resolve } from '../template/resolve.ts';
import { sendHttp } from '../transports/http.ts';
import { buildApiRequest, teardownAgent, userAgent } from '../transports/management.ts';
import { TargetError, TargetLacks } from '../util/errors.ts';
import { agentOf, type RunContext, sendOptions } from './context.ts';
import { apiFootprint } from './footprint.ts';
import { isNotFound, type StepKind } from './kind.ts';
import { curlFor } from './repro.ts';

type ApiStep = Extract<StepDef, { kind: 'api' }>;

/** A management API request to {base}/client/v4{path}. */
export const apiStep: StepKind<ApiStep> = {
  load: (raw, common) => ({ ...common, kind: 'api', api: raw.api! }),
  sent: (step) => step.api,
  needs: (target) => (target.management ? undefined : 'the target has no management API configured'),
  captures: 'json',
  footprint: (step) => apiFootprint(step.api.method, step.api.path),
  requests: 1,
  async perform(step, scope, ctx, owner) {
    const { target } = ctx;
    if (!target.management) throw new TargetLacks('the target has no management API configured');
    const api = resolve(step.api, scope) as ApiRequest;
    const req = buildApiRequest(target.management, api, agentOf(ctx, owner));
    const response = await sendHttp(ctx.agent, req, sendOptions(ctx, 'management'));
    return {
      response,
      repro: () => curlFor(req, 'management', undefined, api.auth?.startsWith('wrong-')),
      ok: response.status < 400,
      sent: { kind: 'http', request: req },
    };
  },
  describe(step, scope, ctx, caseId) {
    const mgmt = ctx.target.management;
    if (!mgmt) return undefined;
    const api = resolve(step.api, scope) as ApiRequest;
    const req = buildApiRequest(mgmt, api, userAgent(caseId));
    if (api.method.toUpperCase() !== 'DELETE') {
      return { what: `${api.method} ${api.path}`, undo: () => curlFor(req, 'management') };
    }
    const readBack = () =>
      buildApiRequest(mgmt, { ...api, method: 'GET', body: undefined }, teardownAgent(caseId));
    return {
      what: `${api.method} ${api.path}`,
      undo: () => curlFor(req, 'management'),
      confirm: (tctx) => confirmGone(tctx, readBack()),
      absent: async (tctx) =>
        isNotFound((await sendHttp(tctx.agent, readBack(), sendOptions(tctx, 'management'))).status),
    };
  },
};

/** A delete took when the thing answers 404 or 410; a 2xx means it is still there. */
async function confirmGone(ctx: RunContext, req: ReturnType<typeof buildApiRequest>): Promise<void> {
  const res = await sendHttp(ctx.agent, req, sendOptions(ctx, 'management'));
  if (res.status >= 200 && res.status < 300) {
    throw new TargetError(`still there after the delete (GET answered ${res.status})`);
  }
}
