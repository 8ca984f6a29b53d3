import type { Agent } from 'undici';
import type { BindingCall } from '../model/case.ts';
import type { BindingsTarget } from '../model/target.ts';
import { TargetLacks } from '../util/errors.ts';
import { type OutgoingRequest, type SendOptions, sendHttp } from './http.ts';
import type { StepResponse } from './response.ts';

/** The header the bindings probe reads its shared secret from. */
export const PROBE_SECRET_HEADER = 'x-edgecheck-probe-secret';

/** The probe's request for one binding call: a JSON POST to the deployment the call asks for. */
export function buildBindingRequest(target: BindingsTarget, call: BindingCall): OutgoingRequest {
  const { flag, ...rest } = call;
  const url = flag === false ? target.legacyUrl : target.url;
  if (!url) throw new TargetLacks('the target has no bindings probe without the r2_list_honor_include flag');
  return {
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', [PROBE_SECRET_HEADER]: target.secret },
    body: JSON.stringify(rest),
  };
}

/**
 * Sends one binding call to the probe, on the S3 door: the probe's calls reach the same storage
 * as S3 requests, so they share its pacing, budget and retries.
 */
export function sendBindingCall(
  agent: Agent,
  target: BindingsTarget,
  call: BindingCall,
  opts: SendOptions,
): Promise<StepResponse> {
  return sendHttp(agent, buildBindingRequest(target, call), { ...opts, door: 's3' });
}
