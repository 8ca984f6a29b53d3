import type {
  Exchange,
  ObservedView,
  Observer,
  PropertyContext,
  PropertyDef,
  WireResponse,
} from 'edgecheck/kit';

/** A request a property sends through ctx.http, as it also reads it back for its observer. */
export interface Sent {
  method: string;
  bucket: string;
  key?: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** One request sent and what the property's observer made of it (true: judged and held). */
export interface Replayed {
  answer: WireResponse;
  judged: boolean;
}

/** The property's own exchange as an observer reads one seen passing: path-style, as sent. */
function viewOf(req: Sent, res: WireResponse): ObservedView {
  const key = req.key === undefined ? '' : `/${req.key.split('/').map(encodeURIComponent).join('/')}`;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
  const body = req.body === undefined ? undefined : Buffer.from(req.body);
  if (body) headers['content-length'] ??= String(body.length);
  return {
    door: 's3',
    method: req.method.toUpperCase(),
    path: `/${req.bucket}${key}`,
    query: new URLSearchParams(req.query ?? {}),
    requestHeaders: headers,
    requestBody: body,
    status: res.status,
    headers: res.headers,
    body: res.size === res.body.length ? res.body : undefined,
    size: res.size,
    keptBody: res.body,
    text: () => res.text(),
    json: () => res.json(),
  };
}

/** The exchange as a failure shows it: the request as sent, the answer's status, headers and text. */
function cited(req: Sent, res: WireResponse): Exchange {
  const query = new URLSearchParams(req.query ?? {}).toString();
  const key = req.key === undefined ? '' : `/${req.key}`;
  const text = res.body.length <= 4096 ? res.text() : undefined;
  return {
    request: {
      method: req.method.toUpperCase(),
      url: `/${req.bucket}${key}${query ? `?${query}` : ''}`,
      headers: { ...req.headers },
    },
    response: { status: res.status, headers: { ...res.headers }, body: { size: res.size, text } },
  };
}

/**
 * A property whose run is its observer judging the property's own requests: the clause judged in a
 * run and in passing by one definition. `scenario` sends requests through `send`, each given to a
 * fresh observer as the proxy would give it; whatever the observer throws fails the property.
 * `judges` says how many exchanges it must have judged and held (0 for a refusal clause, whose
 * refusal the observer leaves unjudged and whose scenario proves its twin accepted itself).
 */
export function replayedProperty(p: {
  id: string;
  title: string;
  clause: string;
  selects: string;
  observer: () => Observer;
  scenario: (ctx: PropertyContext, send: (req: Sent) => Promise<Replayed>) => Promise<void>;
  judges?: number;
}): PropertyDef {
  return {
    id: p.id,
    title: p.title,
    clauses: [p.clause],
    observe: { selects: p.selects, observer: p.observer },
    async run(ctx) {
      const observe = p.observer();
      let held = 0;
      await p.scenario(ctx, async (req) => {
        const answer = await ctx.http(req);
        let judged: boolean;
        try {
          judged = observe(viewOf(req, answer)) === true;
        } catch (err) {
          // The failure cites the exchange that contradicts the clause, as a case's check does.
          if (err instanceof Error) Object.assign(err, { exchange: cited(req, answer) });
          throw err;
        }
        if (judged) held += 1;
        return { answer, judged };
      });
      const want = p.judges ?? 1;
      if (held < want) ctx.blocked(`the target's answers gave ${held} exchanges to judge, ${want} needed`);
    },
  };
}
