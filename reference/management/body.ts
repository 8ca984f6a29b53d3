import type http from 'node:http';
import { ApiError, CODES } from './api-error.ts';

const MAX_BODY = 1024 * 1024;

/** Reads the whole request body as JSON; an empty body is `undefined`. */
export async function readJsonBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY)
      throw ApiError.of(413, CODES.badRequest, `request body larger than ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // The reference's own answer: a generic request error wrapping the parse failure in error_chain.
    throw new ApiError(400, [
      {
        code: CODES.invalidRequest,
        message: 'Invalid request',
        error_chain: [{ code: CODES.invalidJson, message: 'Malformed JSON in request body' }],
      },
    ]);
  }
}
