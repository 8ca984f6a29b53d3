import { Readable } from 'node:stream';
import { collectBody, StepResponse } from '../../runner/transports/response.ts';

/** A StepResponse as a transport would build it, from a status, headers and a body. */
export async function responseOf(
  status: number,
  headers: Record<string, string>,
  body: string | Buffer = '',
  sdk: { output?: Record<string, unknown>; error?: { name: string; message: string } } = {},
): Promise<StepResponse> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const collected = await collectBody(Readable.from(bytes.length ? [bytes] : []));
  return new StepResponse(status, headers, collected, sdk.output, sdk.error);
}

export async function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}) {
  return responseOf(status, { 'content-type': 'application/json', ...headers }, JSON.stringify(body));
}
