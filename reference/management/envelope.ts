import type http from 'node:http';
import type { ErrorObject } from './api-error.ts';
import type { ResultInfo } from './pagination.ts';

/** SPEC: Response envelope. */
export interface Envelope {
  result: unknown;
  success: boolean;
  errors: ErrorObject[];
  messages: unknown[];
  result_info?: ResultInfo;
}

export function success(result: unknown, resultInfo?: ResultInfo): Envelope {
  const body: Envelope = { result, success: true, errors: [], messages: [] };
  if (resultInfo) body.result_info = resultInfo;
  return body;
}

export function failure(errors: ErrorObject[]): Envelope {
  return { result: null, success: false, errors, messages: [] };
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  close = false,
  contentType = JSON_TYPE,
): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string | number> = {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
  };
  if (close) headers.connection = 'close';
  res.writeHead(status, headers);
  res.end(text);
}
