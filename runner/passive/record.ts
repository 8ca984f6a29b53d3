import { isUtf8 } from 'node:buffer';
import { closeSync, openSync, writeSync } from 'node:fs';
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
    const kept = body.bytes.subarray(0, RECORDED_BODY_LIMIT);
    const text = isUtf8(kept) ? kept.toString('utf8') : kept.toString('base64');
    const entry = {
      startedDateTime: ex.startedAt ?? new Date().toISOString(),
      time: 0,
      request: {
        method: ex.request.method,
        url: redactText(new URL(ex.request.target, base).href),
        httpVersion: 'HTTP/1.1',
        headers: pairs(ex.request.headers),
        queryString: [],
        headersSize: -1,
        bodySize: -1,
      },
      response: {
        status: ex.response.status,
        statusText: '',
        httpVersion: 'HTTP/1.1',
        headers: pairs(ex.response.headers),
        content: {
          size: body.size,
          mimeType: ex.response.headers['content-type'] ?? '',
          text: redactText(text),
          ...(isUtf8(kept) ? {} : { encoding: 'base64' }),
          ...(body.size > kept.length ? { comment: `cut at ${kept.length} of ${body.size} bytes` } : {}),
        },
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

function pairs(headers: Record<string, string>): { name: string; value: string }[] {
  return Object.entries(redactDeep(headers)).map(([name, value]) => ({ name, value }));
}
