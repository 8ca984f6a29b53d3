import type { ObservedView } from '../model/property.ts';
import type { CollectedBody } from '../transports/response.ts';
import type { ObservedExchange } from './exchange.ts';

/** An answer an observer cannot read (not kept whole, not text, not JSON): the exchange is not judged. */
export class Unreadable extends Error {}

/** The bytes of a body kept whole, else undefined. */
function whole(body: CollectedBody | undefined): Buffer | undefined {
  return body && !body.truncated && !body.cut ? body.bytes : undefined;
}

/** An observed exchange as property observers read it (runner/model/property.ts ObservedView). */
export function viewOf(ex: ObservedExchange, path: string, query: string): ObservedView {
  const body = whole(ex.response.body);
  let text: string | undefined;
  let json: { value: unknown } | undefined;
  const readText = () => {
    if (body === undefined)
      throw new Unreadable(`the answer's ${ex.response.body.size} bytes were not kept whole`);
    text ??= body.toString('utf8');
    return text;
  };
  return {
    door: ex.door,
    method: ex.request.method.toUpperCase(),
    path,
    query: new URLSearchParams(query),
    requestHeaders: ex.request.headers,
    requestBody: whole(ex.request.body),
    status: ex.response.status,
    headers: ex.response.headers,
    body,
    size: ex.response.body.size,
    text: readText,
    // Parsed once, for every observer that reads it.
    json: () => {
      if (json) return json.value;
      try {
        json = { value: JSON.parse(readText()) };
        return json.value;
      } catch (err) {
        if (err instanceof Unreadable) throw err;
        throw new Unreadable('the answer is not JSON');
      }
    },
  };
}
