import { describe, expect, it } from 'vitest';
import { startReference } from '../reference/server.ts';
import { runEdgecheck, today } from '../runner/api.ts';
import type { RunResults } from '../runner/model/results.ts';
import { type Exchange, type Mutation, startMutatingProxy } from './suite-management-proxy.ts';

/*
 * Clauses the reference has no fault for: a proxy in front of the reference changes one kind of
 * answer, as an implementation that gets that one thing wrong would, and the clause must fail.
 * Without a change the proxy is transparent and the suites come out clean.
 */

const AREAS = ['management', 'deprecations'];

async function runThrough(mutation: Mutation): Promise<{ results: RunResults; changed: number }> {
  const asOf = today();
  const reference = await startReference({ asOf });
  const proxy = await startMutatingProxy(reference.urls.management, mutation);
  try {
    const target = reference.target();
    target.management = { ...target.management!, baseUrl: proxy.url };
    const results = await runEdgecheck({ suites: AREAS, asOf, target });
    return { results, changed: proxy.changed() };
  } finally {
    await proxy.close();
    await reference.close();
  }
}

const failing = (r: RunResults) =>
  r.clauses.filter((c) => c.verdict === 'fail' || c.verdict === 'error').map((c) => c.id);

const under = (ex: Exchange, pattern: RegExp) => pattern.test(ex.path);
const ok = (ex: Exchange) => ex.json?.success === true;
const refusal = (message: string) => ({
  result: null,
  success: false,
  errors: [{ code: 10000, message }],
  messages: [],
});

/** [clause, what the stand-in gets wrong, how] */
const MUTATIONS: [string, string, Mutation][] = [
  [
    'mgmt.envelope.success',
    'a successful GET of the zone also carries an error object',
    {
      response: (ex) => {
        if (ex.method !== 'GET' || !under(ex, /^\/zones\/[^/]+$/) || !ok(ex)) return false;
        ex.json.errors = [{ code: 1000, message: 'spurious' }];
        return true;
      },
    },
  ],
  [
    'mgmt.errors.object',
    'error codes are strings',
    {
      response: (ex) => {
        if (ex.json?.success !== false || !Array.isArray(ex.json.errors)) return false;
        for (const e of ex.json.errors) e.code = String(e.code);
        return true;
      },
    },
  ],
  [
    'mgmt.errors.error-chain',
    'DNS record errors carry error_chain as a string',
    {
      response: (ex) => {
        if (ex.method !== 'POST' || !under(ex, /\/dns_records$/) || ex.json?.success !== false) return false;
        ex.json.errors[0].error_chain = 'root cause';
        return true;
      },
    },
  ],
  [
    'mgmt.pagination.pages',
    'the page parameter of the DNS record list is ignored',
    {
      request: (method, path, query) => {
        if (method !== 'GET' || !/\/dns_records$/.test(path) || !query.has('page')) return false;
        query.delete('page');
        return true;
      },
    },
  ],
  [
    'mgmt.auth.bearer',
    'a bearer token is refused on GET of the zone',
    {
      response: (ex) => {
        const bearer = /^Bearer /i.test(String(ex.headers.authorization ?? ''));
        if (!bearer || ex.method !== 'GET' || !under(ex, /^\/zones\/[^/]+$/)) return false;
        ex.status = 403;
        ex.json = refusal('Authentication error');
        return true;
      },
    },
  ],
  [
    'mgmt.dns.create',
    'created DNS records are answered without id',
    {
      response: (ex) => {
        if (ex.method !== 'POST' || !under(ex, /\/dns_records$/) || !ok(ex)) return false;
        delete ex.json.result.id;
        return true;
      },
    },
  ],
  [
    'mgmt.dns.get',
    'GET of a DNS record answers another id',
    {
      response: (ex) => {
        if (ex.method !== 'GET' || !under(ex, /\/dns_records\/[^/]+$/) || !ok(ex)) return false;
        ex.json.result.id = '0'.repeat(32);
        return true;
      },
    },
  ],
  [
    'mgmt.dns.put',
    'PUT of a DNS record answers another name than the one sent',
    {
      response: (ex) => {
        if (ex.method !== 'PUT' || !under(ex, /\/dns_records\/[^/]+$/) || !ok(ex)) return false;
        ex.json.result.name = `stale.${ex.json.result.name}`;
        return true;
      },
    },
  ],
  [
    'mgmt.dns.data',
    'CAA record data is answered with another value',
    {
      response: (ex) => {
        if (!ok(ex) || ex.json.result?.type !== 'CAA' || !ex.json.result.data) return false;
        ex.json.result.data.value = 'other.example';
        return true;
      },
    },
  ],
  [
    'mgmt.rulesets.create',
    'created zone rulesets are answered without id',
    {
      response: (ex) => {
        if (ex.method !== 'POST' || !under(ex, /^\/zones\/[^/]+\/rulesets$/) || !ok(ex)) return false;
        delete ex.json.result.id;
        return true;
      },
    },
  ],
  [
    'mgmt.rulesets.schema',
    'a ruleset version is a number',
    {
      response: (ex) => {
        const r = ex.json?.result;
        if (!ok(ex) || !r || Array.isArray(r) || typeof r.version !== 'string' || !Array.isArray(r.rules))
          return false;
        r.version = Number(r.version);
        return true;
      },
    },
  ],
  [
    'mgmt.rulesets.rule-create',
    'adding a rule answers a failure (although the rule is added)',
    {
      response: (ex) => {
        if (ex.method !== 'POST' || !under(ex, /\/rulesets\/[^/]+\/rules$/)) return false;
        ex.status = 400;
        ex.json = refusal('rule not added');
        return true;
      },
    },
  ],
  [
    'mgmt.rules.schema',
    'rule enabled flags are strings',
    {
      response: (ex) => {
        const rules = ex.json?.result?.rules;
        if (!ok(ex) || !Array.isArray(rules) || rules.length === 0) return false;
        for (const r of rules) r.enabled = String(r.enabled);
        return true;
      },
    },
  ],
  [
    'mgmt.lcf.params-schema',
    'custom log field entries are answered as {field} instead of {name}',
    {
      response: (ex) => {
        const rules = ex.json?.result?.rules;
        if (!ok(ex) || !Array.isArray(rules)) return false;
        let changed = false;
        for (const r of rules) {
          const fields = r.action_parameters?.request_fields;
          if (!Array.isArray(fields)) continue;
          r.action_parameters.request_fields = fields.map((f: { name: string }) => ({ field: f.name }));
          changed = true;
        }
        return changed;
      },
    },
  ],
  [
    'mgmt.dns-settings.show',
    'DNS settings are answered without multi_provider',
    {
      response: (ex) => {
        if (ex.method !== 'GET' || !under(ex, /\/dns_settings$/) || !ok(ex)) return false;
        delete ex.json.result.multi_provider;
        return true;
      },
    },
  ],
];

describe('clauses without a reference fault fail when one answer is wrong', () => {
  it('a proxy that changes nothing leaves the suites clean', async () => {
    const { results, changed } = await runThrough({});
    expect(changed).toBe(0);
    const bad = results.clauses
      .filter((c) => ['fail', 'error', 'blocked'].includes(c.verdict))
      .map((c) => c.id);
    expect(bad).toEqual([]);
  }, 60_000);

  // Each mutation runs against a reference and proxy of its own, so the runs overlap their waits
  // (the rulesets case's pause for a one-second timestamp) five at a time.
  it.concurrent.each(MUTATIONS)(
    '%s fails when %s',
    async (clause, _what, mutation) => {
      const { results, changed } = await runThrough(mutation);
      expect(changed).toBeGreaterThan(0);
      expect(failing(results)).toContain(clause);
    },
    60_000,
  );
});
