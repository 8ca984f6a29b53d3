import { ApiError, badRequest, CODES, notFound } from './api-error.ts';
import { type ListSpec, paginate } from './pagination.ts';
import type { ApiRequest, Router } from './router.ts';
import { objectBody } from './scope.ts';
import type { Json } from './store.ts';

const STATUSES = new Set(['accepted', 'rejected']);
const LIST: ListSpec<Json> = {
  orderBy: { invited_on: (i) => String(i.invited_on), status: (i) => String(i.status) },
  defaultOrder: 'invited_on',
  defaultPerPage: 20,
  maxPerPage: 1000,
};

function find(req: ApiRequest): Json {
  const invite = req.state.invites.get(req.params.invite_id);
  if (!invite) throw notFound(`invite ${req.params.invite_id}`);
  return invite;
}

export function registerInvites(router: Router): void {
  router.on('GET', '/user/invites', (req) => {
    const page = paginate(req.ctx, [...req.state.invites.values()], req.query, LIST);
    return { result: page.items.map((i) => ({ ...i })), resultInfo: page.info };
  });

  router.on('GET', '/user/invites/:invite_id', (req) => ({ result: { ...find(req) } }));

  /** SPEC States: PATCH with status accepted moves an existing invitation to accepted. */
  router.on('PATCH', '/user/invites/:invite_id', (req) => {
    const invite = find(req);
    const status = objectBody(req).status;
    if (typeof status !== 'string' || !STATUSES.has(status)) {
      throw badRequest(`status must be one of ${[...STATUSES].join(', ')}`);
    }
    // Answering with the state it is already in succeeds again, so repeated runs can accept the same invite.
    if (invite.status !== 'pending' && invite.status !== status) {
      throw ApiError.of(400, CODES.conflict, `invite was already ${invite.status}`);
    }
    if (req.ctx.faults.has('reject-invite-accept'))
      throw ApiError.of(403, CODES.badAuth, 'not allowed to answer this invite');
    const saved =
      !req.ctx.faults.has('invite-status-not-saved') && !req.ctx.faults.has('invite-answer-echoes-status');
    if (saved) invite.status = status;
    // A status outside the invitation states: what was done rather than the state it is in.
    if (status === 'accepted' && req.ctx.faults.has('invite-status-verb'))
      return { result: { ...invite, status: 'accept' } };
    // The answer echoes the status asked for, whatever was stored.
    if (req.ctx.faults.has('invite-answer-echoes-status')) return { result: { ...invite, status } };
    return { result: { ...invite } };
  });
}
