import type { ObservedView } from '../model/property.ts';
import { type CollectedBody, parseJson } from '../transports/response.ts';
import { VerdictError } from '../util/errors.ts';
import type { ObservedExchange } from './exchange.ts';

/** An answer an observer cannot read (not kept whole, not text, not JSON): the exchange is not judged. */
export class Unreadable extends VerdictError {}

/** The bytes of a body kept whole, else undefined. */
function whole(body: CollectedBody | undefined): Buffer | undefined {
  return body && !body.truncated && !body.cut ? body.bytes : undefined;
}

/** An observed exchange as property observers read it (runner/model/property.ts ObservedView). */
export function viewOf(ex: ObservedExchange, path: string, query: string): ObservedView {
  return new View(ex, path, query);
}

/**
 * The view of one exchange, made for every exchange the proxy judges: what only some observers
 * read (the query's parameters, the text, the JSON) is made when first asked for, and once.
 */
class View implements ObservedView {
  readonly door: ObservedView['door'];
  readonly method: string;
  readonly requestHeaders: Record<string, string>;
  readonly requestBody?: Buffer;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
  readonly size: number;
  readonly keptBody: Buffer;
  readonly startedAt?: number;
  readonly answeredAt?: number;
  readonly resigned?: { region: string };
  private params?: URLSearchParams;
  private decoded?: string;
  private parsed?: { value: unknown };

  constructor(
    ex: ObservedExchange,
    readonly path: string,
    private readonly rawQuery: string,
  ) {
    this.door = ex.door;
    this.method = ex.request.method.toUpperCase();
    this.requestHeaders = ex.request.headers;
    this.requestBody = whole(ex.request.body);
    this.status = ex.response.status;
    this.headers = ex.response.headers;
    this.body = whole(ex.response.body);
    this.size = ex.response.body.size;
    this.keptBody = ex.response.body.bytes;
    this.resigned = ex.resigned;
    const precise = ex.startedAtMs !== undefined && Number.isFinite(ex.startedAtMs);
    const start = precise
      ? ex.startedAtMs
      : ex.startedAt === undefined
        ? Number.NaN
        : Date.parse(ex.startedAt);
    if (start !== undefined && Number.isFinite(start)) {
      this.startedAt = start;
      // A start known to the millisecond lies anywhere in it: the answer is placed at the latest it
      // could have been, so that an exchange is never taken to begin after one it overlapped.
      if (ex.durationMs !== undefined && Number.isFinite(ex.durationMs))
        this.answeredAt = start + ex.durationMs + (precise ? 0 : 1);
    }
  }

  get query(): URLSearchParams {
    this.params ??= new URLSearchParams(this.rawQuery);
    return this.params;
  }

  text(): string {
    if (this.body === undefined) throw new Unreadable(`the answer's ${this.size} bytes were not kept whole`);
    this.decoded ??= this.body.toString('utf8');
    return this.decoded;
  }

  // Parsed once, for every observer that reads it.
  json(): any {
    if (this.parsed) return this.parsed.value;
    const text = this.text();
    const parsed = parseJson(text);
    if (!parsed) throw new Unreadable('the answer is not JSON');
    this.parsed = parsed;
    return parsed.value;
  }
}
