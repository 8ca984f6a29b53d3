import type { S3Client } from '@aws-sdk/client-s3';
import type { Agent } from 'undici';
import type { ManagementTarget, Target } from '../model/target.ts';
import { answerText } from '../transports/answer-text.ts';
import { sendHttp } from '../transports/http.ts';
import { buildApiRequest } from '../transports/management.ts';
import type { StepResponse } from '../transports/response.ts';
import { targetAnswer } from '../transports/s3-sdk.ts';
import type { Traffic } from '../transports/traffic.ts';
import { errorMessage } from '../util/errors.ts';
import { redactText } from '../util/redact.ts';

/** What a sweep talks through: one agent and one S3 client, every request bounded by `timeoutMs`. */
export interface SweepContext {
  target: Target;
  agent: Agent;
  s3?: S3Client;
  timeoutMs: number;
  signal: AbortSignal;
  /** Paces management requests under the rate cap and retries throttled answers, as a run does. */
  traffic: Traffic;
}

/** A request the target did not answer as a sweep needs; the message says what was sent and what came back. */
export class SweepError extends Error {}

export interface Envelope<T = unknown> {
  success?: boolean;
  result?: T;
  errors?: { code?: number; message?: string }[];
  result_info?: { page?: number; total_pages?: number };
}

/** Sends one management API request; transport failures become a SweepError naming the request. */
export async function send(
  ctx: SweepContext,
  m: ManagementTarget,
  method: string,
  path: string,
  query?: Record<string, string | number>,
): Promise<StepResponse> {
  const req = buildApiRequest(m, { method, path, query });
  try {
    return await sendHttp(ctx.agent, req, {
      signal: ctx.signal,
      timeoutMs: ctx.timeoutMs,
      traffic: ctx.traffic,
    });
  } catch (err) {
    throw new SweepError(redactText(errorMessage(err)));
  }
}

/** `METHOD path answered STATUS: first error`, for messages. */
export function answered(method: string, path: string, res: StepResponse): string {
  let why = '';
  try {
    const env = res.json() as Envelope;
    const e = env?.errors?.[0];
    if (e) why = `: ${e.code ?? ''} ${e.message ?? ''}`.trimEnd();
  } catch {
    why = res.text().trim() ? `: ${JSON.stringify(res.text().trim().slice(0, 80))}` : '';
  }
  return redactText(`${method} ${path} answered ${res.status}${why}`);
}

/** The envelope of a successful answer; anything else is a SweepError. */
export function envelope<T>(method: string, path: string, res: StepResponse): Envelope<T> {
  if (res.status >= 300) throw new SweepError(answered(method, path, res));
  let env: Envelope<T>;
  try {
    env = res.json() as Envelope<T>;
  } catch (err) {
    throw new SweepError(redactText(`${method} ${path}: ${errorMessage(err)}`));
  }
  if (!env || typeof env !== 'object' || env.success === false)
    throw new SweepError(answered(method, path, res));
  return env;
}

const PER_PAGE = 100;
const MAX_PAGES = 1000;

/** Every item of a list endpoint, over all its pages. */
export async function listAll<T>(ctx: SweepContext, m: ManagementTarget, path: string): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const env = envelope<T[]>('GET', path, await send(ctx, m, 'GET', path, { page, per_page: PER_PAGE }));
    if (!Array.isArray(env.result)) throw new SweepError(`GET ${path} answered no result array`);
    all.push(...env.result);
    const pages = env.result_info?.total_pages;
    if (typeof pages !== 'number' || page >= pages || env.result.length === 0) break;
  }
  return all;
}

/**
 * An S3 SDK error as the target sent it (`HTTP 404 NoSuchBucket, no message`), or, without an
 * answer, what went wrong: never the SDK's name for an answer it could not read (UnknownError).
 */
export function s3Error(err: unknown): string {
  const answer = targetAnswer(err);
  if (answer?.body) return redactText(`HTTP ${answerText(answer.status, answer.headers, answer.body)}`);
  return redactText(errorMessage(err));
}
