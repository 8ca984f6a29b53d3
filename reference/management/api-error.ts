/** One error object of the envelope (SPEC: Error object). */
export interface ErrorObject {
  code: number;
  message: string;
  error_chain?: { code: number; message: string }[];
}

/** Thrown by any handler; the dispatcher turns it into a failure envelope with this status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ErrorObject[],
  ) {
    super(errors.map((e) => e.message).join('; '));
  }

  static of(status: number, code: number, message: string): ApiError {
    return new ApiError(status, [{ code, message }]);
  }
}

/** Error codes the reference uses; SPEC leaves them open, so these follow the real service where known. */
export const CODES = {
  noRoute: 7000,
  methodNotAllowed: 7001,
  invalidObjectId: 7003,
  badRequest: 10001,
  invalidRequest: 6003,
  invalidJson: 6007,
  missingAuth: 9106,
  badAuth: 10000,
  dnsValidation: 1004,
  retired: 10900,
  conflict: 20217,
  notFound: 10006,
  internal: 10002,
  teWithCl: 10400,
} as const;

export const badRequest = (message: string): ApiError => ApiError.of(400, CODES.badRequest, message);
export const notFound = (what: string): ApiError => ApiError.of(404, CODES.notFound, `${what} not found`);
export const noRoute = (): ApiError => ApiError.of(404, CODES.noRoute, 'No route for that URI');
export const methodNotAllowed = (method: string): ApiError =>
  ApiError.of(405, CODES.methodNotAllowed, `Method ${method} not available for that URI`);
