import { beforeAll, describe, expect, it } from 'vitest';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { LoadedSuites } from '../runner/load/suite.ts';
import { type ObservedExchange, PassiveJudge } from '../runner/passive/index.ts';
import { selectWork } from '../runner/run/select.ts';
import { bufferBody } from '../runner/transports/response.ts';

// What a conformant target may answer, and what traffic may hold, that the management and
// deprecation observers must not take for a departure: each beside the twin they do judge.

let suites: LoadedSuites;
const T0 = Date.parse('2026-01-01T00:00:00Z');

interface Sent {
  method: string;
  target: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** When it began, ms after T0, and how long it took. */
  at?: number;
  took?: number;
}

function exchange(sent: Sent, status: number, answer: unknown): ObservedExchange {
  const body = sent.body === undefined ? undefined : bufferBody(Buffer.from(JSON.stringify(sent.body)));
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
  return {
    door: 'management',
    request: {
      method: sent.method,
      target: `/client/v4${sent.target}`,
      headers: sent.headers ?? { authorization: 'Bearer t' },
      body,
    },
    response: { status, headers: {}, body: bufferBody(Buffer.from(text)) },
    startedAt: sent.at === undefined ? undefined : new Date(T0 + sent.at).toISOString(),
    durationMs: sent.took,
  };
}

const ok = (result: unknown) => ({ success: true, errors: [], messages: [], result });
const refusal = { success: false, errors: [{ code: 10000, message: 'no' }], messages: [], result: null };

/** The verdict each clause gets from these exchanges alone, at `asOf`. */
function verdicts(exchanges: ObservedExchange[], asOf = today()): Record<string, string> {
  const judge = new PassiveJudge({ clauses: suites.clauses.values(), properties: suites.properties }, asOf);
  for (const ex of exchanges) judge.observe(ex);
  const out: Record<string, string> = {};
  for (const c of judge.cases()) for (const id of c.checks[0].clauses) out[id] = c.verdict;
  return out;
}

beforeAll(async () => {
  const areas = listAreas();
  suites = await loadSuites(areas, areas);
});

describe('the management observers leave alone what a conformant target may answer', () => {
  it('a request signed in by cookie, or a CORS preflight, is no request without credentials; a bare one served is', () => {
    const signed = exchange({ method: 'GET', target: '/zones/z' }, 200, ok({}));
    const cookie = exchange({ method: 'GET', target: '/zones/z', headers: { cookie: 's=1' } }, 200, ok({}));
    const preflight = exchange(
      {
        method: 'OPTIONS',
        target: '/zones/z',
        headers: { origin: 'o', 'access-control-request-method': 'GET' },
      },
      204,
      '',
    );
    expect(verdicts([signed, cookie, preflight])['mgmt.auth.missing']).toBeUndefined();
    const bare = exchange({ method: 'GET', target: '/zones/z', headers: {} }, 200, ok({}));
    expect(verdicts([signed, bare])['mgmt.auth.missing']).toBe('fail');
    const refused = exchange({ method: 'GET', target: '/zones/z', headers: {} }, 403, refusal);
    expect(verdicts([signed, refused])['mgmt.auth.missing']).toBe('pass');
  });

  it('traffic carrying no credentials at all (a recording stripped of them) does not judge requests without them', () => {
    const stripped = exchange({ method: 'GET', target: '/zones/z', headers: {} }, 200, ok({}));
    expect(verdicts([stripped, stripped])['mgmt.auth.missing']).toBeUndefined();
  });

  it('a refused request a clause forbids leaves it untested, an answer that is no JSON too; one accepted fails it', () => {
    const put = (status: number, answer: unknown) =>
      exchange(
        {
          method: 'PUT',
          target: '/zones/z/rulesets/r',
          body: { rules: [{ action: 'log_custom_field', expression: 'true' }] },
        },
        status,
        answer,
      );
    expect(verdicts([put(400, refusal), put(200, '<html>')])['mgmt.lcf.one-array-required']).toBeUndefined();
    expect(verdicts([put(200, ok({ id: 'r', rules: [] }))])['mgmt.lcf.one-array-required']).toBe('fail');
    const off = exchange(
      { method: 'PATCH', target: '/zones/z/settings/security_level', body: { value: 'off' } },
      200,
      ok({}),
    );
    expect(verdicts([off])['dep.security-level.restricted']).toBeUndefined();
  });

  it('header names sent in another case and answered in lower case hold, as an expression in parentheses does; rules the answer cannot pair are not judged', () => {
    const rule = (request: string[], cookies: string[]) => ({
      action: 'log_custom_field',
      expression: ' (true) ',
      action_parameters: {
        request_fields: request.map((name) => ({ name })),
        cookie_fields: cookies.map((name) => ({ name })),
      },
    });
    const sent = {
      method: 'PUT',
      target: '/zones/z/rulesets/r',
      body: { rules: [rule(['X-Trace'], ['Sid'])] },
    };
    const folded = exchange(sent, 200, ok({ id: 'r', rules: [rule(['x-trace'], ['Sid'])] }));
    const v = verdicts([folded]);
    expect([
      v['mgmt.lcf.header-names-lower'],
      v['mgmt.lcf.cookie-case'],
      v['mgmt.lcf.expression-true'],
    ]).toEqual(['pass', 'pass', undefined]);
    const two = exchange(sent, 200, ok({ id: 'r', rules: [rule(['X-Trace'], ['sid']), rule([], [])] }));
    expect(verdicts([two])['mgmt.lcf.cookie-case']).toBeUndefined();
  });

  it('last_updated is judged only against writes answered a second before the PUT began', () => {
    const rs = (version: string, stamp: string) => ok({ id: 'r', version, last_updated: stamp, rules: [] });
    const create = exchange(
      { method: 'POST', target: '/zones/z/rulesets', body: {}, at: 0, took: 10 },
      200,
      rs('1', 'S'),
    );
    const soon = exchange(
      { method: 'PUT', target: '/zones/z/rulesets/r', body: { rules: [] }, at: 500, took: 10 },
      200,
      rs('2', 'S'),
    );
    expect(verdicts([create, soon])['mgmt.rulesets.put-last-updated']).toBeUndefined();
    expect(verdicts([create, soon])['mgmt.rulesets.put-version']).toBe('pass');
    const late = exchange(
      { method: 'PUT', target: '/zones/z/rulesets/r', body: { rules: [] }, at: 1500, took: 10 },
      200,
      rs('3', 'S'),
    );
    expect(verdicts([create, late])['mgmt.rulesets.put-last-updated']).toBe('fail');
  });

  it('a read of an invitation begun before the PATCH accepting it was answered is not judged', () => {
    const patch = exchange(
      { method: 'PATCH', target: '/user/invites/i', body: { status: 'accepted' }, at: 0, took: 100 },
      200,
      ok(null),
    );
    const pending = ok({ id: 'i', status: 'pending' });
    const during = exchange({ method: 'GET', target: '/user/invites/i', at: 50, took: 100 }, 200, pending);
    expect(verdicts([patch, during])['mgmt.invites.accepted-state']).toBeUndefined();
    const after = exchange({ method: 'GET', target: '/user/invites/i', at: 200, took: 10 }, 200, pending);
    expect(verdicts([patch, after])['mgmt.invites.accepted-state']).toBe('fail');
  });

  it('a read begun within the millisecond its PATCH was answered in is judged where the start is known below the millisecond, and not where it is not', () => {
    const pending = ok({ id: 'i', status: 'pending' });
    // The PATCH began at 0.2 ms and was answered at 5.4 ms; the GET began at 5.7 ms.
    const patch = exchange(
      { method: 'PATCH', target: '/user/invites/i', body: { status: 'accepted' }, at: 0, took: 5.2 },
      200,
      ok(null),
    );
    const read = exchange({ method: 'GET', target: '/user/invites/i', at: 5, took: 1 }, 200, pending);
    const precise = (ex: ObservedExchange, ms: number) => ({ ...ex, startedAtMs: T0 + ms });
    expect(verdicts([precise(patch, 0.2), precise(read, 5.7)])['mgmt.invites.accepted-state']).toBe('fail');
    // To the millisecond only, the GET may have begun at 5.0 ms, before the answer: not judged.
    expect(verdicts([patch, read])['mgmt.invites.accepted-state']).toBeUndefined();
  });

  it('SRV name fields spelling the name in another case, or with a final dot, hold before 2024-05-31', () => {
    const record = {
      id: 'd',
      type: 'SRV',
      name: '_sip._tcp.Example.com',
      data: { service: '_sip', proto: '_tcp', name: 'example.com.' },
    };
    const get = exchange({ method: 'GET', target: '/zones/z/dns_records/d' }, 200, ok(record));
    expect(verdicts([get], '2024-05-01')['dep.srv-name-fields.produced']).toBe('pass');
  });

  it('a property that only observes is never selected for a run', () => {
    const work = selectWork(suites, {});
    const ids = new Set(work.properties.map((p) => p.def.id));
    const observing = suites.properties.filter((p) => !p.def.run).map((p) => p.def.id);
    expect(observing).toContain('mgmt.rulesets.put-version-observed');
    expect(observing.filter((id) => ids.has(id))).toEqual([]);
  });
});
