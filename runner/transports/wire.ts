import net from 'node:net';
import { Readable } from 'node:stream';
import { errorMessage, TargetError } from '../util/errors.ts';
import { collectBody, KEEP_BYTES, StepResponse } from './response.ts';

/**
 * Raw bytes over TCP, for requests no HTTP client will send (Transfer-Encoding together with
 * Content-Length). Reads until the server closes, or until Content-Length bytes of body arrived.
 */
export function sendWire(
  url: string,
  method: string,
  path: string,
  headers: [string, string][],
  body: string | undefined,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<StepResponse> {
  const target = new URL(url);
  const lines = [
    `${method} ${path} HTTP/1.1`,
    `Host: ${target.host}`,
    ...headers.map(([k, v]) => `${k}: ${v}`),
  ];
  if (!headers.some(([k]) => k.toLowerCase() === 'connection')) lines.push('Connection: close');
  const raw = Buffer.concat([
    Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
    Buffer.from(body ?? '', 'utf8'),
  ]);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: target.hostname, port: Number(target.port || 80) });
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      reject(new TargetError(`wire ${method} ${path}: ${why}`));
    };
    const timer = setTimeout(() => fail(`no complete answer within ${timeoutMs} ms`), timeoutMs);
    const onAbort = () => fail('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    const finish = async () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      try {
        resolve(await parseRaw(Buffer.concat(chunks)));
      } catch (err) {
        reject(err);
      }
    };
    socket.on('connect', () => socket.write(raw));
    let received = 0;
    socket.on('data', (c) => {
      chunks.push(c);
      received += c.length;
      // The raw answer is held whole to be parsed, so its size is capped like any parsed body.
      if (received > KEEP_BYTES)
        return fail(`answer over the ${KEEP_BYTES / 1024 / 1024} MiB edgecheck reads`);
      if (complete(Buffer.concat(chunks))) {
        socket.destroy();
        void finish();
      }
    });
    socket.on('end', () => void finish());
    socket.on('error', (err) => {
      // A reset after some answer is the server closing on us: judge what arrived.
      if (chunks.length) void finish();
      else fail(errorMessage(err));
    });
  });
}

function splitHead(buf: Buffer): { head: string; body: Buffer } | undefined {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  return { head: buf.subarray(0, end).toString('latin1'), body: buf.subarray(end + 4) };
}

/** Whether a whole answer arrived, so a server that keeps the connection open is not waited for. */
function complete(buf: Buffer): boolean {
  const parts = splitHead(buf);
  if (!parts) return false;
  if (/^HTTP\/1\.[01] (204|304) /.test(parts.head)) return true;
  if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(parts.head)) {
    return /(^|\r\n)0\r\n(?:[^\r]+\r\n)*\r\n$/.test(parts.body.toString('latin1'));
  }
  const m = /\r\ncontent-length:\s*(\d+)/i.exec(parts.head);
  return m !== null && parts.body.length >= Number(m[1]);
}

async function parseRaw(buf: Buffer): Promise<StepResponse> {
  const parts = splitHead(buf);
  const status = parts && /^HTTP\/1\.[01] (\d{3})/.exec(parts.head);
  if (!parts || !status) {
    throw new TargetError(`answer is not HTTP: ${JSON.stringify(buf.subarray(0, 60).toString('latin1'))}`);
  }
  const headers: Record<string, string> = {};
  for (const line of parts.head.split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) {
      const k = line.slice(0, i).trim().toLowerCase();
      const v = line.slice(i + 1).trim();
      headers[k] = headers[k] ? `${headers[k]}, ${v}` : v;
    }
  }
  let body = parts.body;
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  return new StepResponse(Number(status[1]), headers, await collectBody(Readable.from([body])));
}

function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const eol = buf.indexOf('\r\n', pos);
    if (eol < 0) break;
    const size = Number.parseInt(buf.subarray(pos, eol).toString('latin1'), 16);
    if (!size) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    pos = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}
