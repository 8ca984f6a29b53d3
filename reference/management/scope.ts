import { ApiError, badRequest, CODES } from './api-error.ts';
import type { ApiRequest } from './router.ts';
import type { Json, Zone } from './store.ts';

/** The zone named by `:zone_id`; any other id is an unknown object. */
export function requireZone(req: ApiRequest): Zone {
  const id = req.params.zone_id;
  if (id !== req.state.zone.id) {
    throw ApiError.of(
      404,
      CODES.invalidObjectId,
      `Could not route to /zones/${id}, perhaps your object identifier is invalid?`,
    );
  }
  return req.state.zone;
}

export function requireAccount(req: ApiRequest): string {
  const id = req.params.account_id;
  if (id !== req.ctx.ids.accountId) {
    throw ApiError.of(
      404,
      CODES.invalidObjectId,
      `Could not route to /accounts/${id}, perhaps your object identifier is invalid?`,
    );
  }
  return id;
}

/** The request body as an object, or a one-line error saying what was expected. */
export function objectBody(req: ApiRequest): Json {
  const body = req.body;
  if (body === undefined) throw badRequest('request body is required: a JSON object');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('request body must be a JSON object');
  }
  return body as Json;
}
