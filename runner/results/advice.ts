import type { CaseResult } from '../model/results.ts';
import type { Target } from '../model/target.ts';

/**
 * How a refused CreateBucket reads in a blocked or erring check, wherever the bucket was made (the
 * runner's bucket steps, a property's own): `creating bucket NAME: status 400 CODE`.
 */
export const BUCKET_REFUSED = /^creating bucket \S+: status (\d{3})(?: (\w+))?/;

export function bucketRefused(name: string, status: number, code?: string): string {
  return `creating bucket ${name}: status ${status}${code ? ` ${code}` : ''}`;
}

/**
 * What a person needs to read the run beyond its verdicts, one line each: a target taken as down
 * (`down`, why) leaves the rest of the run unjudged; a target that refuses the spec's only region
 * blocks most of the S3 suite, and nothing else says which flag checks the rest.
 */
export function adviceFor(target: Target, cases: CaseResult[], down?: string): string[] {
  const advice: string[] = [];
  if (down) {
    const unsent = cases.filter((c) => c.verdict === 'error' && c.requests === 0).length;
    advice.push(
      `${down}; the run stopped sending (teardown excepted), so ${unsent} ${unsent === 1 ? 'case was' : 'cases were'} ` +
        'not run and are errors: run again once the target answers, or with a lower --concurrency and --rate-limit',
    );
  }
  if (target.s3 && target.s3.region === 'auto') {
    const refused = cases
      .flatMap((c) => c.checks)
      .filter(
        (k) => (k.verdict === 'blocked' || k.verdict === 'error') && BUCKET_REFUSED.test(k.message ?? ''),
      );
    if (refused.length) {
      const [, status, code] = BUCKET_REFUSED.exec(refused[0].message!)!;
      advice.push(
        `the target refuses CreateBucket signed for region auto (status ${status}${code ? ` ${code}` : ''}), ` +
          `so ${refused.length} ${refused.length === 1 ? 'check is' : 'checks are'} blocked; SPEC's only region is auto ` +
          "(s3.region.auto judges that): --region <the target's region> checks the rest",
      );
    }
  }
  return advice;
}
