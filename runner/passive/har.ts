import { createReadStream, readFileSync, statSync } from 'node:fs';
import { JSONParser } from '@streamparser/json';
import { BodyCollector, type CollectedBody, partBody } from '../transports/response.ts';
import { errorMessage, InputError } from '../util/errors.ts';
import { redactText } from '../util/redact.ts';
import { doorOf, type ObservedExchange } from './exchange.ts';

interface HarHeader {
  name: string;
  value: string;
}
interface HarEntry {
  startedDateTime?: string;
  /** edgecheck's own: startedDateTime below the millisecond, in milliseconds since the epoch. */
  _startedAtMs?: number;
  /** Milliseconds from the request's start to its answer's end. */
  time?: number;
  /** edgecheck's own: the proxy signed the request again (--resign), for this region. */
  _resigned?: { region?: unknown };
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

/** A file that gave no entry is read whole to say why, up to this size. */
const WHOLE_READ_LIMIT = 64 * 1024 * 1024;

/**
 * The exchanges of a HAR file (HTTP Archive 1.2: browser devtools, intercepting proxies, and
 * `edgecheck proxy --record`), in order, parsed as the file streams past: one entry at a time is
 * held, so a file larger than memory is read. A request is the management API's when its path is
 * under /client/v4, else the S3 endpoint's. Bad input is an InputError naming the file and entry.
 */
export async function* readHar(file: string): AsyncGenerator<ObservedExchange> {
  const parser = new JSONParser({ paths: ['$.log.entries.*'], keepStack: false });
  const ready: ObservedExchange[] = [];
  let entries = 0;
  parser.onValue = ({ value, key }) => {
    ready.push(exchangeOf(value as unknown as HarEntry, `${file}: log.entries[${key}]`));
    entries += 1;
  };
  let stream: AsyncIterable<Buffer>;
  try {
    stream = createReadStream(file, { highWaterMark: 1024 * 1024 });
    for await (const chunk of stream) {
      parser.write(chunk);
      yield* ready.splice(0);
    }
    if (!parser.isEnded) parser.end();
  } catch (err) {
    if (err instanceof InputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code) throw new InputError(file, `cannot read: ${errorMessage(err)}`);
    throw new InputError(
      file,
      `not JSON (${errorMessage(err).split('\n')[0]}); expected a HAR file (log.entries)`,
    );
  }
  yield* ready.splice(0);
  if (!entries) noEntries(file);
}

/** A file that parsed and gave no entry: fine when its log.entries is an empty array. */
function noEntries(file: string): void {
  if (statSync(file).size > WHOLE_READ_LIMIT) throw new InputError(file, 'not a HAR file: no log.entries');
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { log?: { entries?: unknown } };
  if (!Array.isArray(doc?.log?.entries)) throw new InputError(file, 'not a HAR file: no log.entries array');
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
    startedAtMs: preciseStart(e),
    // 0 is what recordings made before durations were kept say: not known.
    durationMs: typeof e.time === 'number' && e.time > 0 ? e.time : undefined,
    ...(typeof e._resigned?.region === 'string' ? { resigned: { region: e._resigned.region } } : {}),
  };
}

/** `_startedAtMs` where it is a number within the millisecond startedDateTime names, else none. */
function preciseStart(e: HarEntry): number | undefined {
  const ms = e._startedAtMs;
  if (typeof ms !== 'number' || typeof e.startedDateTime !== 'string') return undefined;
  const at = Date.parse(e.startedDateTime);
  return ms >= at && ms < at + 1 ? ms : undefined;
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
