import type { PropertyContext, WireResponse } from 'edgecheck/kit';

export interface ResultInfo {
  page: number;
  per_page: number;
  count: number;
  total_count: number;
  total_pages: number;
}

export interface Envelope<T = unknown> {
  success: boolean;
  result: T;
  errors: { code: number; message: string }[];
  result_info?: ResultInfo;
}

/** A counterexample: the property fails with this message. */
export class Violation extends Error {}

export function violation(message: string): never {
  throw new Violation(message);
}

type ApiRequest = Parameters<PropertyContext['api']>[0];

function describe(req: ApiRequest): string {
  return `${req.method} ${req.path}`;
}

/** Sends a management API request and parses the envelope; an answer that is not JSON cannot be judged. */
export async function call<T = unknown>(ctx: PropertyContext, req: ApiRequest): Promise<Envelope<T>> {
  const res: WireResponse = await ctx.api(req);
  let body: unknown;
  try {
    body = res.json();
  } catch (err) {
    // The reason says which: not JSON at all, or over the size edgecheck reads.
    ctx.unjudgeable(`${describe(req)} answered status ${res.status}: ${(err as Error).message}`);
  }
  if (!body || typeof body !== 'object' || typeof (body as Envelope).success !== 'boolean') {
    violation(`${describe(req)} answered status ${res.status} without an envelope`);
  }
  return body as Envelope<T>;
}

/** The call must succeed: success true. */
export async function succeed<T = unknown>(ctx: PropertyContext, req: ApiRequest): Promise<Envelope<T>> {
  const env = await call<T>(ctx, req);
  if (!env.success) {
    const first = env.errors?.[0];
    violation(`${describe(req)} failed: ${first ? `${first.code} ${first.message}` : 'no error object'}`);
  }
  return env;
}

/** The call must fail with an error envelope: success false and at least one error object. */
export async function refused(ctx: PropertyContext, req: ApiRequest, why: string): Promise<void> {
  mustHaveRefused(await call(ctx, req), describe(req), why);
}

/** `what` (a request, in words) answered `env`, which must refuse it, since `why`. */
export function mustHaveRefused(env: Envelope, what: string, why: string): void {
  if (env.success) violation(`${what} succeeded, yet ${why}`);
  if (!Array.isArray(env.errors) || env.errors.length === 0) {
    violation(`${what} failed without an error object`);
  }
}

/**
 * A read SPEC does not list, which a check needs (to learn a value to put back): a target that does
 * not serve it leaves the check blocked with `why`, never failed.
 */
export async function helperRead<T = unknown>(
  ctx: PropertyContext,
  req: ApiRequest,
  why: string,
): Promise<Envelope<T>> {
  const res: WireResponse = await ctx.api(req);
  if (res.status >= 400) ctx.blocked(`${describe(req)} answered ${res.status}, ${why}`);
  let body: Envelope<T> | undefined;
  try {
    body = res.json() as Envelope<T>;
  } catch {
    // Not an envelope either: the read is not served as the service documents it.
  }
  if (body?.success !== true) ctx.blocked(`${describe(req)} did not succeed, ${why}`);
  return body;
}
