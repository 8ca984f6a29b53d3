import { evaluateCheck } from '../match/check.ts';
import type { AmazonBehaviour, CheckDef } from '../model/case.ts';
import type { Clause } from '../model/clause.ts';
import type { CaseResult, CheckResult, ClauseResult, Exchange } from '../model/results.ts';
import type { ClauseVerdict } from '../model/verdict.ts';
import { bufferBody, emptyBody, partBody, StepResponse } from '../transports/response.ts';
import { CheckFailure } from '../util/errors.ts';
import { decodeXmlEntities } from '../util/xml.ts';

/**
 * Whether a target failing a clause where SPEC departs from Amazon S3 does as Amazon S3 does:
 * the answers its failing checks recorded, held to the matchers of the clause's `amazon`.
 */

/** The matchers of Amazon S3's answer, as a check; undefined when `amazon` has words only. */
function amazonCheck(id: string, amazon: AmazonBehaviour | undefined): CheckDef | undefined {
  if (!amazon) return undefined;
  const { says: _words, ...answer } = amazon;
  if (!Object.values(answer).some((m) => m !== undefined)) return undefined;
  return { ...answer, clauses: [id], origin: `amazon of ${id}` } as CheckDef;
}

/**
 * An answer as a check recorded it, to be judged again: the body only as far as it was kept, and
 * the error code of an HTTP answer read from its XML (`<Error><Code>`), as an SDK step has it.
 */
export function recordedAnswer(exchange: Exchange): StepResponse {
  const r = exchange.response;
  const text = r.body?.text;
  const bytes = Buffer.from(text ?? '', 'utf8');
  const body =
    r.body === undefined || r.body.size === 0
      ? emptyBody()
      : text !== undefined && !r.body.truncated
        ? bufferBody(bytes)
        : partBody(bytes, r.body.size);
  let output: Record<string, unknown> | undefined;
  try {
    output = r.output === undefined ? undefined : JSON.parse(r.output);
  } catch {
    output = undefined;
  }
  const code = text === undefined ? undefined : /<Error\b[^>]*>[\s\S]*?<Code>([^<]*)<\/Code>/.exec(text);
  const message = text === undefined ? undefined : /<Message>([^<]*)<\/Message>/.exec(text);
  const error =
    r.error ??
    (code ? { name: decodeXmlEntities(code[1]), message: decodeXmlEntities(message?.[1] ?? '') } : undefined);
  return new StepResponse(r.status, { ...r.headers }, body, output, error);
}

/** true when the answer meets Amazon S3's, false when it does not, undefined when it cannot be read for it. */
function meets(check: CheckDef, exchange: Exchange): boolean | undefined {
  try {
    evaluateCheck(check, recordedAnswer(exchange));
    return true;
  } catch (err) {
    if (err instanceof CheckFailure) return false;
    // The answer was kept only in part, or is not the XML asked about: it shows neither.
    return undefined;
  }
}

/** One verdict from several: one answer that is not Amazon S3's decides; else one that is; else none. */
export function joinAmazonMatch(values: Iterable<boolean | undefined>): boolean | undefined {
  let out: boolean | undefined;
  for (const v of values) {
    if (v === false) return false;
    if (v === true) out = true;
  }
  return out;
}

/**
 * For a failing or erroring clause whose `amazon` gives Amazon S3's answer as matchers: whether
 * the answers of its failing and erroring checks are Amazon S3's (true: every one that was
 * recorded; false: one is not). Nothing when the clause passed or was blocked, has words only, or
 * none of those checks recorded an answer (a property's).
 */
export function amazonMatchOf(
  clause: Pick<Clause, 'id' | 'amazon'>,
  verdict: ClauseVerdict,
  cases: readonly CaseResult[],
): Pick<ClauseResult, 'amazonMatch'> {
  if (verdict !== 'fail' && verdict !== 'error') return {};
  const check = amazonCheck(clause.id, clause.amazon);
  if (!check) return {};
  const failing = cases.flatMap((c) =>
    c.checks.filter(
      (k): k is CheckResult & { exchange: Exchange } =>
        (k.verdict === 'fail' || k.verdict === 'error') &&
        k.exchange !== undefined &&
        k.clauses.includes(clause.id),
    ),
  );
  const match = joinAmazonMatch(failing.map((k) => meets(check, k.exchange)));
  return match === undefined ? {} : { amazonMatch: match };
}
