import { expect, it } from 'vitest';
import { startReference } from '../reference/server.ts';
import { runEdgecheck, today } from '../runner/api.ts';
import { type Mutation, startMutatingProxy } from './suite-management-proxy.ts';

/*
 * A server may keep timestamps to the second. A proxy in front of the reference cuts every
 * last_updated to whole seconds; the rulesets checks, which compare timestamps for inequality, must
 * still pass.
 */

const TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.\d+Z$/;

function toSeconds(value: unknown): boolean {
  let changed = false;
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      for (const [k, x] of Object.entries(o)) {
        const m = k === 'last_updated' && typeof x === 'string' ? TIMESTAMP.exec(x) : null;
        if (m) {
          o[k] = `${m[1]}Z`;
          changed = true;
        } else visit(x);
      }
    }
  };
  visit(value);
  return changed;
}

it('the rulesets checks pass against a server whose last_updated has one-second resolution', async () => {
  const asOf = today();
  const reference = await startReference({ asOf });
  const mutation: Mutation = { response: (ex) => toSeconds(ex.json) };
  const proxy = await startMutatingProxy(reference.urls.management, mutation);
  try {
    const target = reference.target();
    target.management = { ...target.management!, baseUrl: proxy.url };
    const results = await runEdgecheck({ suites: ['management'], asOf, target, cases: ['mgmt.rulesets.*'] });
    expect(proxy.changed()).toBeGreaterThan(0);
    const judged = results.clauses.filter((c) => c.id === 'mgmt.rulesets.put-last-updated');
    expect(judged.map((c) => c.verdict)).toEqual(['pass']);
    expect(results.clauses.filter((c) => c.verdict === 'fail' || c.verdict === 'error')).toEqual([]);
  } finally {
    await proxy.close();
    await reference.close();
  }
}, 30_000);
