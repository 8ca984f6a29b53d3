import type { Readable } from 'node:stream';
import { type Agent, request, errors as undiciErrors } from 'undici';
import { generateStream } from '../data/generate.ts';
import { GeneratedBody } from '../template/resolve.ts';
import { errorMessage, TargetError } from '../util/errors.ts';
import { bufferBody, collectBody, emptyBody, flattenHeaders, StepResponse } from './response.ts';

const SMALL_BODY = 1024 * 1024;

export type RequestBody = string | Buffer | GeneratedBody | undefined;

export interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: RequestBody;
}

export function bodyLength(body: RequestBody): number {
  if (body === undefined) return 0;
  if (body instanceof GeneratedBody) return body.size;
  return Buffer.byteLength(body);
}

export function bodyStream(body: RequestBody): string | Buffer | Readable | undefined {
  return body instanceof GeneratedBody ? generateStream(body.seed, 0, body.size) : body;
}

/** Sends one request over undici; transport failures become TargetError (verdict `error`). */
export async function sendHttp(
  agent: Agent,
  req: OutgoingRequest,
  signal: AbortSignal,
): Promise<StepResponse> {
  const headers = { ...req.headers };
  if (req.body instanceof GeneratedBody) headers['content-length'] = String(req.body.size);
  try {
    const res = await request(req.url, {
      method: req.method as any,
      headers,
      body: bodyStream(req.body),
      dispatcher: agent,
      signal,
    });
    let body = emptyBody();
    const length = Number(res.headers['content-length'] ?? Number.NaN);
    if (req.method === 'HEAD') await res.body.dump();
    // A small body of known length is read in one go: cheaper than iterating the stream.
    else if (length <= SMALL_BODY) body = bufferBody(Buffer.from(await res.body.arrayBuffer()));
    else body = await collectBody(res.body);
    return new StepResponse(res.statusCode, flattenHeaders(res.headers as any), body);
  } catch (err) {
    if (signal.aborted) throw new TargetError(`request aborted: ${errorMessage(signal.reason ?? err)}`);
    if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
      throw new TargetError(`timed out waiting for ${req.method} ${new URL(req.url).pathname}`);
    }
    throw new TargetError(`${req.method} ${new URL(req.url).pathname}: ${errorMessage(err)}`);
  }
}
