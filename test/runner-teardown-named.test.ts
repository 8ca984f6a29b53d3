import { describe, expect, it } from 'vitest';
import { caseOfUserAgent } from '../reference/fault-trace.ts';
import { teardownAgent, userAgent } from '../runner/transports/management.ts';
import { tracedRunInThread } from './helpers/in-thread.ts';

/*
 * A case's teardown requests name themselves apart from its steps (`(case ID; teardown)`): a
 * target's access log then tells what a run removed from what it tested, and the S3 sensitivity
 * test leaves teardown out of the requests that reach a fault.
 */
describe('teardown requests', () => {
  it('are told apart from steps by what they call themselves', () => {
    expect(caseOfUserAgent(userAgent('s3.x', 'steps[1]'))).toBe('case s3.x');
    expect(caseOfUserAgent(userAgent('s3.x'))).toBe('case s3.x');
    expect(caseOfUserAgent(`aws-sdk-js/3 ${teardownAgent('s3.x')}`)).toBe('teardown s3.x');
    expect(caseOfUserAgent('curl/8 (case s3.x; teardown)')).toBeUndefined();
  });

  it('of a management case, an S3 case and a property each name their case', async () => {
    const cases = ['mgmt.dns.lifecycle', 's3.cond.get-etag-lists', 's3.prop.virtual-hosted'];
    const { results, trace } = await tracedRunInThread({ suites: ['management', 's3'], seed: 1, cases });
    expect(results.cases.map((c) => [c.id, c.verdict, c.leftovers ?? []])).toEqual(
      cases.map((id) => [id, 'pass', []]),
    );
    const owners = [...trace!.byOwner.keys()].filter((o) => /^(case|teardown) /.test(o)).sort();
    expect(owners).toEqual(cases.flatMap((id) => [`case ${id}`, `teardown ${id}`]).sort());
  });
});
