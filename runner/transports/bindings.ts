import type { BindingCall } from '../model/case.ts';
import type { BindingsTarget } from '../model/target.ts';
import { TargetLacks } from '../util/errors.ts';
import type { OutgoingRequest } from './http.ts';

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
