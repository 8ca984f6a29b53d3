import { readFileSync, statSync } from 'node:fs';
import { BodyCollector, type CollectedBody, partBody } from '../transports/response.ts';
import { InputError } from '../util/errors.ts';
import { redactText } from '../util/redact.ts';
import { doorOf, type ObservedExchange } from './exchange.ts';

/** HAR files hold bodies; past this a file is refused unread (the proxy's recordings keep bodies cut). */
export const HAR_LIMIT = 512 * 1024 * 1024;

interface HarHeader {
  name: string;
  value: string;
}
interface HarEntry {
  startedDateTime?: string;
  request: {
    method: string;
    url: string;
    headers?: HarHeader[];
    postData?: { text?: string; encoding?: string };
    bodySize?: number;
  };
  response: {
    status: number;
    headers?: HarHeader[];
    content?: { size?: number; text?: string; encoding?: string };
  };
}

/**
 * The exchanges of a HAR file (HTTP Archive 1.2: browser devtools, intercepting proxies, and
 * `edgecheck proxy --record`), in order. A request is the management API's when its path is
 * under /client/v4, else the S3 endpoint's. Bad input is an InputError naming the file and entry.
 */
export function readHar(file: string): ObservedExchange[] {
  let text: string;
  try {
    if (statSync(file).size > HAR_LIMIT) throw new InputError(file, `over ${HAR_LIMIT / 1024 / 1024} MiB`);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(file, `cannot read: ${(err as Error).message}`);
  }
  let doc: { log?: { entries?: unknown } };
  try {
    doc = JSON.parse(text);
  } catch (err) {
    const why = (err as Error).message.split('\n')[0].replace(/, ".*$/, '');
    throw new InputError(file, `not JSON (${why}); expected a HAR file (log.entries)`);
  }
  const entries = doc?.log?.entries;
  if (!Array.isArray(entries)) throw new InputError(file, 'not a HAR file: no log.entries array');
  return entries.map((e, i) => exchangeOf(e as HarEntry, `${file}: log.entries[${i}]`));
}

function exchangeOf(e: HarEntry, where: string): ObservedExchange {
  if (typeof e?.request?.method !== 'string' || typeof e.request.url !== 'string')
    throw new InputError(where, 'request.method and request.url are required');
  if (typeof e.response?.status !== 'number') throw new InputError(where, 'response.status is required');
  let url: URL;
  try {
    url = new URL(e.request.url);
  } catch {
    throw new InputError(where, `request.url is not a URL: ${redactText(e.request.url)}`);
  }
  const target = `${url.pathname}${url.search}`;
  return {
    door: doorOf(url.pathname),
    request: {
      method: e.request.method.toUpperCase(),
      target,
      headers: headerMap(e.request.headers),
      body: e.request.postData === undefined ? undefined : bodyOf(e.request.postData, e.request.bodySize),
    },
    response: {
      status: e.response.status,
      headers: headerMap(e.response.headers),
      body: bodyOf(e.response.content, e.response.content?.size),
    },
    startedAt: e.startedDateTime,
  };
}

function headerMap(list: HarHeader[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list ?? []) {
    if (typeof h?.name !== 'string') continue;
    const k = h.name.toLowerCase();
    // HTTP/2 pseudo-headers are not headers.
    if (k.startsWith(':')) continue;
    out[k] = out[k] === undefined ? String(h.value) : `${out[k]}, ${h.value}`;
  }
  return out;
}

/**
 * The recorded body, through the same cap as a live one. A recording that kept less than the size
 * it declares (a cut body) gives a body that is known to be partial: no check reads it as whole.
 */
function bodyOf(content: { text?: string; encoding?: string } | undefined, declared?: number): CollectedBody {
  const bytes =
    typeof content?.text === 'string'
      ? Buffer.from(content.text, content.encoding === 'base64' ? 'base64' : 'utf8')
      : Buffer.alloc(0);
  if (typeof declared === 'number' && declared > bytes.length) return partBody(bytes, declared);
  const collector = new BodyCollector();
  collector.push(bytes);
  return collector.done();
}
