import { fc, type ObservedView, type PropertyContext, type PropertyDef, schemas } from 'edgecheck/kit';
import { violation } from './support/envelope.ts';
import { examplesFor } from './support/examples.ts';

/*
 * SPEC: every answer of the management API is an envelope. The case reads one route no endpoint
 * serves; this property reads others, and records that do not exist. In a run an answer that is no
 * JSON is an error (whatever answered may not be the API: a CDN's page); the proxy forwards to the
 * API it was given, so there such an answer is the API's, and contradicts the clause. JSON answers
 * in traffic are judged by the check the case makes (clauses.yaml, sameAs).
 */

/**
 * Answers that carry no body by HTTP's rules (RFC 9110 6.4.1, 9.3.2: HEAD, 1xx, 204, 205, 304), and
 * CORS preflights (OPTIONS), which HTTP machinery in front of the API answers.
 */
function bodiless(ex: Pick<ObservedView, 'method' | 'status'>): boolean {
  const { method, status } = ex;
  return method === 'HEAD' || method === 'OPTIONS' || status < 200 || [204, 205, 304].includes(status);
}

/** The answer's JSON value, or undefined when it is no JSON at all. */
function jsonOf(read: () => unknown): { value: unknown } | undefined {
  try {
    return { value: read() };
  } catch {
    return undefined;
  }
}

function notJson(where: string, status: number, contentType: string | undefined, text: string): string {
  return `${where} answered ${status} with a body that is no JSON envelope (${contentType ?? 'no content-type'}): ${JSON.stringify(text.slice(0, 80))}`;
}

/** A GET of a route no endpoint serves, or of a DNS record that does not exist. */
const unserved = fc.oneof(
  fc.stringMatching(/^[a-z]{4,12}$/).map((name) => `edgecheck_no_${name}`),
  fc.stringMatching(/^[0-9a-f]{32}$/).map((id) => `dns_records/${id}`),
);

const anyRoute: PropertyDef = {
  id: 'mgmt.envelope.any-route',
  title: 'Routes no endpoint serves and records that do not exist answer an envelope',
  clauses: ['mgmt.envelope.fields'],
  readOnly: true,
  requests: 2,
  run: (ctx: PropertyContext) => {
    const zid = ctx.target.management?.zoneId;
    if (!zid) ctx.skip('the target config has no zoneId');
    return fc.assert(
      fc.asyncProperty(unserved, async (rest) => {
        const where = `GET /zones/{zone_id}/${rest}`;
        const res = await ctx.api({ method: 'GET', path: `/zones/${zid}/${rest}` });
        const body = jsonOf(() => res.json());
        if (!body) ctx.unjudgeable(notJson(where, res.status, res.headers['content-type'], res.text()));
        const problem = schemas().check('envelope.json', body.value);
        if (problem) violation(`${where}: body does not match envelope.json: ${problem}`);
      }),
      { seed: ctx.fc.seed, numRuns: examplesFor(ctx, 2), endOnFailure: true },
    );
  },
  observe: {
    selects:
      'management answers with a body that is no JSON (HEAD, OPTIONS, 204, 205 and 304 answers carry none)',
    observer: () => (ex) => {
      if (ex.door !== 'management' || bodiless(ex)) return undefined;
      // Not kept whole (over the cap, cut by a recording): not judged.
      const text = ex.text();
      if (jsonOf(() => ex.json())) return undefined;
      // A compressed body kept as sent cannot be read here.
      const coding = ex.headers['content-encoding']?.trim().toLowerCase();
      if (coding && coding !== 'identity') return undefined;
      violation(notJson(`${ex.method} ${ex.path}`, ex.status, ex.headers['content-type'], text));
    },
  },
};

export default [anyRoute] satisfies PropertyDef[];
