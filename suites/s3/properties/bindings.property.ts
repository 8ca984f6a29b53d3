import { fc, type PropertyContext, type PropertyDef, type WireResponse } from 'edgecheck/kit';
import { expectThat } from './support/wire.ts';

const BODY = 'bindings-conditional-body';

/** An ETag other than the object's: 32 hex digits, quoted. */
const otherTag = (own: string) =>
  fc
    .stringMatching(/^[0-9a-f]{32}$/)
    .map((t) => `"${t}"`)
    .filter((t) => t !== own);

type Entry = 'own' | 'own-weak' | 'other' | 'other-weak';

/**
 * A conditional header value: a list of the object's ETag and other ones, each strong or weak, in
 * any order and with any separator, or the wildcard alone.
 */
const conditionValue = (own: string) =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .tuple(
          fc.array(
            fc.tuple(fc.constantFrom<Entry>('own', 'own-weak', 'other', 'other-weak'), otherTag(own)),
            { minLength: 1, maxLength: 4 },
          ),
          fc.constantFrom(',', ', ', ' , '),
        )
        .map(([entries, sep]) => ({
          value: entries
            .map(([kind, other]) =>
              kind === 'own'
                ? own
                : kind === 'own-weak'
                  ? `W/${own}`
                  : kind === 'other'
                    ? other
                    : `W/${other}`,
            )
            .join(sep),
          strong: entries.some(([kind]) => kind === 'own'),
          weak: entries.some(([kind]) => kind === 'own' || kind === 'own-weak'),
        })),
    },
    { weight: 1, arbitrary: fc.constant({ value: '*', strong: true, weak: true }) },
  );

interface GetAnswer {
  result?: { key?: string; body?: { text?: string } } | null;
  error?: { name?: string; message?: string };
}

function answerOf(ctx: PropertyContext, res: WireResponse, what: string): GetAnswer {
  if (res.status !== 200) ctx.unjudgeable(`${what}: the probe answered ${res.status}`);
  try {
    return res.json() as GetAnswer;
  } catch {
    return ctx.unjudgeable(`${what}: the probe's answer is not JSON`);
  }
}

const properties: PropertyDef[] = [
  {
    id: 's3.prop.bindings-etag-lists',
    title: 'get() with onlyIf headers: any list of strong and weak ETags, or the wildcard',
    clauses: ['s3.bindings.conditional-etags'],
    features: ['worker-bindings'],
    requests: 16,
    async run(ctx) {
      const key = `${ctx.bucketName('b')}/k`;
      const put = answerOf(ctx, await ctx.binding({ call: 'put', key, value: BODY }), 'put()');
      ctx.defer(
        () => ctx.binding({ call: 'delete', key }),
        `object ${key} in the bindings probe's bucket`,
        `curl -sS -X POST '${ctx.target.bindings?.url}' -H 'content-type: application/json' -H "x-edgecheck-probe-secret: $EDGECHECK_BINDINGS_SECRET" --data-binary '${JSON.stringify({ call: 'delete', key })}'`,
      );
      const own = (put.result as { httpEtag?: unknown } | undefined)?.httpEtag;
      if (typeof own !== 'string' || !/^"[^"]+"$/.test(own))
        return ctx.unjudgeable(
          `put() returned no quoted httpEtag to build ETag lists from: ${JSON.stringify(put)}`,
        );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<'if-match' | 'if-none-match'>('if-match', 'if-none-match'),
          conditionValue(own),
          async (header, condition) => {
            const what = `get() with onlyIf ${header}: ${condition.value}`;
            const res = await ctx.binding({
              call: 'get',
              key,
              options: { onlyIf: { $headers: { [header]: condition.value } } },
            });
            const answer = answerOf(ctx, res, what);
            // If-Match compares strongly (a weak ETag never matches); If-None-Match weakly.
            const read = header === 'if-match' ? condition.strong : !condition.weak;
            expectThat(!answer.error, `${what} threw ${JSON.stringify(answer.error)}`);
            if (read) {
              expectThat(
                answer.result?.body?.text === BODY,
                `${what}: the condition holds, so the body is read; got ${JSON.stringify(answer.result)}`,
              );
            } else {
              expectThat(
                answer.result?.key === key && answer.result.body === undefined,
                `${what}: the condition fails, so the object comes back without its body; got ${JSON.stringify(answer.result)}`,
              );
            }
          },
        ),
        { seed: ctx.fc.seed, numRuns: ctx.fc.numRuns },
      );
    },
  },
];

export default properties;
