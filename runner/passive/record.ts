import { isUtf8 } from 'node:buffer';
import { closeSync, openSync, writeSync } from 'node:fs';
import type { CollectedBody } from '../transports/response.ts';
import { redactDeep, redactText } from '../util/redact.ts';
import type { ObservedExchange } from './exchange.ts';

/** Recorded bodies are cut here: enough for every passive check, never a whole object. */
export const RECORDED_BODY_LIMIT = 64 * 1024;

/**
 * Writes exchanges to a HAR 1.2 file as they come (`edgecheck proxy --record`), each entry on its
 * own line, secrets redacted before anything is written: credential headers, signatures and
 * credentials in query strings, and every registered secret wherever it stands.
 */
export class HarRecorder {
  private readonly fd: number;
  private entries = 0;
  private closed = false;

  constructor(file: string, creator: string) {
    this.fd = openSync(file, 'w');
    writeSync(
      this.fd,
      `{"log":{"version":"1.2","creator":${JSON.stringify({ name: 'edgecheck', version: creator })},"entries":[\n`,
    );
  }

  add(ex: ObservedExchange, origin: { management?: string; s3?: string }): void {
    if (this.closed) return;
    const base = (ex.door === 'management' ? origin.management : origin.s3) ?? 'http://target';
    const body = ex.response.body;
    const sent = ex.request.body;
    const entry = {
      startedDateTime: ex.startedAt ?? new Date().toISOString(),
      time: 0,
      request: {
        method: ex.request.method,
        url: redactText(new URL(ex.request.target, base).href),
        httpVersion: 'HTTP/1.1',
        headers: pairs(ex.request.headers),
        queryString: [],
        ...(sent
          ? { postData: { mimeType: ex.request.headers['content-type'] ?? '', ...content(sent) } }
          : {}),
        headersSize: -1,
        bodySize: sent ? sent.size : -1,
      },
      response: {
        status: ex.response.status,
        statusText: '',
        httpVersion: 'HTTP/1.1',
        headers: pairs(ex.response.headers),
        content: { size: body.size, mimeType: ex.response.headers['content-type'] ?? '', ...content(body) },
        redirectURL: '',
        headersSize: -1,
        bodySize: body.size,
      },
      cache: {},
      timings: { send: 0, wait: 0, receive: 0 },
    };
    writeSync(this.fd, `${this.entries++ ? ',\n' : ''}${JSON.stringify(entry)}`);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    writeSync(this.fd, '\n]}}\n');
    closeSync(this.fd);
  }
}

/** A body as HAR text, cut at RECORDED_BODY_LIMIT and redacted; base64 where it is not UTF-8. */
function content(body: CollectedBody): { text: string; encoding?: 'base64'; comment?: string } {
  const kept = body.bytes.subarray(0, RECORDED_BODY_LIMIT);
  const utf8 = isUtf8(kept);
  return {
    text: redactText(utf8 ? kept.toString('utf8') : kept.toString('base64')),
    ...(utf8 ? {} : { encoding: 'base64' as const }),
    ...(body.size > kept.length || body.cut
      ? { comment: `cut at ${kept.length} of ${body.size} bytes` }
      : {}),
  };
}

function pairs(headers: Record<string, string>): { name: string; value: string }[] {
  return Object.entries(redactDeep(headers)).map(([name, value]) => ({ name, value }));
}
