import { isUtf8 } from 'node:buffer';
import { evaluateCheck } from '../match/check.ts';
import { ABSENT, match } from '../match/value.ts';
import type { Clause, PassiveCheck } from '../model/clause.ts';
import { clauseApplies } from '../model/clause.ts';
import { type CaseResult, type CheckResult, EXCHANGE_BODY_LIMIT, type Exchange } from '../model/results.ts';
import { StepResponse } from '../transports/response.ts';
import { CheckFailure } from '../util/errors.ts';
import { redactDeep, redactText } from '../util/redact.ts';
import type { ObservedExchange } from './exchange.ts';

/** What one passive check saw: exchanges judged, and the first that contradicted it. */
interface Tally {
  clause: Clause;
  check: PassiveCheck;
  pattern: { path?: RegExp; query?: RegExp };
  held: number;
  failed?: { message: string; expected?: unknown; actual?: unknown; exchange: Exchange };
}

/**
 * Judges observed exchanges against every passive check of the clauses in force at `asOf`. A
 * clause whose selected exchanges all hold passes, with their number; the first exchange that
 * contradicts it fails it, with that exchange (redacted) as evidence; a clause no exchange
 * selected is left untested. Exchanges are judged as they come and not kept.
 */
export class PassiveJudge {
  private readonly tallies: Tally[] = [];
  observed = 0;

  constructor(clauses: Iterable<Clause>, asOf: string) {
    for (const clause of clauses) {
      if (!clause.passive || !clauseApplies(clause, asOf)) continue;
      for (const check of clause.passive) {
        this.tallies.push({
          clause,
          check,
          pattern: {
            path: check.when.path === undefined ? undefined : new RegExp(check.when.path),
            query: check.when.query === undefined ? undefined : new RegExp(check.when.query),
          },
          held: 0,
        });
      }
    }
  }

  /** The clauses this judge can judge. */
  get judgeable(): string[] {
    return [...new Set(this.tallies.map((t) => t.clause.id))];
  }

  observe(ex: ObservedExchange): void {
    this.observed += 1;
    const [path, query = ''] = splitTarget(ex.request.target);
    let response: StepResponse | undefined;
    for (const t of this.tallies) {
      if (t.failed || !selects(t, ex, path, query)) continue;
      response ??= new StepResponse(ex.response.status, ex.response.headers, ex.response.body);
      try {
        evaluateCheck(t.check.expect, response);
        t.held += 1;
      } catch (err) {
        if (err instanceof CheckFailure) {
          t.failed = {
            message: redactText(err.message),
            expected: err.expected,
            actual: redactDeep(err.actual),
            exchange: exchangeOf(ex),
          };
        }
        // An answer the check cannot read (a body over the cap) neither holds nor contradicts it.
      }
    }
  }

  /** One result per passive check, as the reporters read cases: `passive <clause>`. */
  cases(): CaseResult[] {
    return this.tallies
      .filter((t) => t.held > 0 || t.failed)
      .map((t, i) => {
        const check: CheckResult = {
          caseId: `passive ${t.clause.id}`,
          step: 'observed',
          index: i,
          title: t.check.expect.title ?? t.clause.title,
          clauses: t.check.expect.clauses,
          verdict: t.failed ? 'fail' : 'pass',
          message: t.failed
            ? `${t.failed.message} (after ${t.held} ${t.held === 1 ? 'exchange' : 'exchanges'} that held)`
            : `held in ${t.held} observed ${t.held === 1 ? 'exchange' : 'exchanges'}`,
          expected: t.failed?.expected,
          actual: t.failed?.actual,
          exchange: t.failed?.exchange,
          origin: t.check.origin,
        };
        return {
          id: `passive ${t.clause.id}`,
          title: t.clause.title,
          file: t.check.origin.replace(/:\d+:\d+$/, ''),
          area: t.clause.area,
          verdict: check.verdict,
          durationMs: 0,
          requests: 0,
          checks: [check],
        };
      });
  }
}

function splitTarget(target: string): [string, string?] {
  const q = target.indexOf('?');
  return q < 0 ? [target] : [target.slice(0, q), target.slice(q + 1)];
}

function selects(t: Tally, ex: ObservedExchange, path: string, query: string): boolean {
  const w = t.check.when;
  if (w.door && w.door !== ex.door) return false;
  if (w.method && w.method !== ex.request.method.toUpperCase()) return false;
  if (t.pattern.path && !t.pattern.path.test(path)) return false;
  if (t.pattern.query && !t.pattern.query.test(query)) return false;
  if (w.status !== undefined && match(w.status, ex.response.status)) return false;
  for (const [name, want] of Object.entries(w.requestHeaders ?? {})) {
    const have = ex.request.headers[name.toLowerCase()];
    if (match(want, have === undefined ? ABSENT : have)) return false;
  }
  return true;
}

/** The evidence of a failure: what was asked and answered, secrets redacted, the body cut. */
function exchangeOf(ex: ObservedExchange): Exchange {
  const body = ex.response.body;
  const head = body.bytes.subarray(0, EXCHANGE_BODY_LIMIT);
  const text = isUtf8(head) ? head.toString('utf8') : undefined;
  return redactDeep({
    request: { method: ex.request.method, url: ex.request.target, headers: { ...ex.request.headers } },
    response: {
      status: ex.response.status,
      headers: { ...ex.response.headers },
      body: {
        size: body.size,
        text,
        truncated: (text !== undefined && body.size > head.length) || undefined,
      },
    },
  });
}
