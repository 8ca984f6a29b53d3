import { isUtf8 } from 'node:buffer';
import { evaluateCheck, preconditionUnmet } from '../match/check.ts';
import { ABSENT, match } from '../match/value.ts';
import type { Clause, PassiveCheck, PassiveWhen } from '../model/clause.ts';
import { clauseApplies } from '../model/clause.ts';
import type { ObservedView, PropertyDef } from '../model/property.ts';
import { type CaseResult, type CheckResult, EXCHANGE_BODY_LIMIT, type Exchange } from '../model/results.ts';
import { StepResponse } from '../transports/response.ts';
import { UNAVAILABLE } from '../transports/traffic.ts';
import { CheckFailure, errorMessage } from '../util/errors.ts';
import { redactDeep, redactText } from '../util/redact.ts';
import type { ObservedExchange } from './exchange.ts';
import { Unreadable, viewOf } from './view.ts';

/** What a check contradicted by an exchange says, with that exchange as evidence. */
interface Failure {
  message: string;
  expected?: unknown;
  actual?: unknown;
  exchange: Exchange;
  /** When the exchange started, where known. */
  at?: string;
}

/** One clause's exchanges by door: judged by any of its checks, and contradicting one of them. */
export interface ClauseCounts {
  judged: Record<ObservedExchange['door'], number>;
  contradicting: Record<ObservedExchange['door'], number>;
  /** The number of the last exchange counted in each, so that one exchange counts once per clause. */
  judgedAt: number;
  contradictingAt: number;
}

/** One exchange as every check reads it: its path, query and method, and its readings, each made once when first asked for. */
class Reading {
  readonly path: string;
  readonly query: string;
  /** The request's method, upper-case. */
  readonly method: string;
  private answer?: StepResponse;
  private seen?: ObservedView;

  constructor(readonly ex: ObservedExchange) {
    const target = ex.request.target;
    const q = target.indexOf('?');
    this.path = q < 0 ? target : target.slice(0, q);
    this.query = q < 0 ? '' : target.slice(q + 1);
    this.method = ex.request.method.toUpperCase();
  }

  /** The answer as a case's checks read it. */
  response(): StepResponse {
    const r = this.ex.response;
    this.answer ??= new StepResponse(r.status, r.headers, r.body);
    return this.answer;
  }

  /** The exchange as property observers read it. */
  view(): ObservedView {
    this.seen ??= viewOf(this.ex, this.path, this.query);
    return this.seen;
  }
}

/**
 * One passive check and what it saw: a clause's declared check (clauses.yaml `passive:`) or a
 * property's observer (PropertyDef.observe). `judge` answers whether it selected the exchange
 * and held, or throws what contradicts it.
 */
interface Tally {
  id: string;
  title: string;
  clauses: string[];
  area: string;
  origin: string;
  file: string;
  /** The door whose exchanges it can select; undefined for both. */
  door?: ObservedExchange['door'];
  judge(read: Reading): boolean;
  held: number;
  /** Exchanges that contradicted it, the first and the latest of them kept as evidence. */
  contradicted: number;
  failed?: Failure;
  latest?: Failure;
  /** The counts of the clauses it cites, which it adds to (set by the judge). */
  stats: ClauseCounts[];
  /** The observer itself threw (a bug in it, not the target's answer): its verdict is error. */
  broken?: string;
}

/** A property with an observer, as the suites loaded it. */
export interface ObservingProperty {
  def: PropertyDef;
  file: string;
  area: string;
}

/**
 * Judges observed exchanges against every passive check of the clauses in force at `asOf`: the
 * checks clauses declare, and the observers of the properties that judge them. A check whose
 * selected exchanges all hold passes, with their number; an exchange that contradicts it fails it,
 * and the check goes on judging: the first and the latest contradicting exchanges (redacted) are its
 * evidence, with their count. A check no exchange selected is left untested. Exchanges are judged
 * as they come and not kept; per clause and door, the exchanges judged and contradicting are counted.
 */
export class PassiveJudge {
  private readonly tallies: Tally[] = [];
  /** The tallies that can select an exchange of each door, in the same order. */
  private readonly byDoor: Record<ObservedExchange['door'], Tally[]>;
  /** Per clause judgeable, its exchanges judged and contradicting, by door. */
  readonly counts = new Map<string, ClauseCounts>();
  observed = 0;
  /**
   * Answers that say the service is busy or down (UNAVAILABLE: 429, 502, 503, 504, as a run treats them), by door and status: from the
   * target or from anything in front of it (a load balancer's text/plain page), they answer
   * nothing the request asked, so nothing is judged on them.
   */
  readonly busy: Record<ObservedExchange['door'], Record<number, number>> = { management: {}, s3: {} };

  constructor(suites: { clauses: Iterable<Clause>; properties?: Iterable<ObservingProperty> }, asOf: string) {
    const inForce = new Map<string, Clause>();
    for (const clause of suites.clauses) if (clauseApplies(clause, asOf)) inForce.set(clause.id, clause);
    for (const clause of inForce.values()) {
      for (const check of clause.passive ?? []) this.tallies.push(declared(clause, check));
    }
    for (const p of suites.properties ?? []) {
      const clauses = p.def.clauses.filter((id) => inForce.has(id));
      if (p.def.observe && clauses.length) this.tallies.push(observing(p, clauses));
    }
    for (const t of this.tallies) {
      for (const id of t.clauses) {
        if (!this.counts.has(id))
          this.counts.set(id, {
            judged: { management: 0, s3: 0 },
            contradicting: { management: 0, s3: 0 },
            judgedAt: 0,
            contradictingAt: 0,
          });
      }
      t.stats = t.clauses.map((id) => this.counts.get(id) as ClauseCounts);
    }
    const of = (door: ObservedExchange['door']) => this.tallies.filter((t) => !t.door || t.door === door);
    this.byDoor = { management: of('management'), s3: of('s3') };
  }

  /** The clauses this judge can judge. */
  get judgeable(): string[] {
    return [...new Set(this.tallies.flatMap((t) => t.clauses))];
  }

  observe(ex: ObservedExchange): void {
    this.observed += 1;
    const status = ex.response.status;
    if (UNAVAILABLE.has(status)) {
      const byStatus = this.busy[ex.door];
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      return;
    }
    const read = new Reading(ex);
    for (const t of this.byDoor[ex.door]) {
      if (t.broken) continue;
      const outcome = judgeOne(t, read);
      if (outcome === 'unjudged') continue;
      if (outcome === 'held') t.held += 1;
      else t.contradicted += 1;
      count(t, ex.door, this.observed, outcome === 'contradicted');
    }
  }

  /** One result per passive check that saw something, as the reporters read cases: `passive <id>`. */
  cases(): CaseResult[] {
    return this.tallies
      .filter((t) => t.held > 0 || t.failed || t.broken)
      .map((t, i) => {
        const verdict = t.broken ? 'error' : t.failed ? 'fail' : 'pass';
        const seen = `${t.held} observed ${t.held === 1 ? 'exchange' : 'exchanges'}`;
        const again = t.latest && t.latest !== t.failed ? t.latest : undefined;
        const check: CheckResult = {
          caseId: t.id,
          step: 'observed',
          index: i,
          title: t.title,
          clauses: t.clauses,
          verdict,
          message: t.broken ?? (t.failed ? failureMessage(t, seen) : `held in ${seen}`),
          expected: t.failed?.expected,
          actual: t.failed?.actual,
          exchange: t.failed?.exchange,
          ...(t.failed ? { contradictions: t.contradicted } : {}),
          ...(again ? { latestExchange: again.exchange } : {}),
          origin: t.origin,
        };
        return {
          id: t.id,
          title: t.title,
          file: t.file,
          area: t.area,
          verdict,
          durationMs: 0,
          requests: 0,
          checks: [check],
        };
      });
  }
}

/**
 * Whether one check held on an exchange, was contradicted by it (keeping the first and the latest
 * contradiction as evidence), or did not judge it. An observer that throws a bug's error is broken.
 */
function judgeOne(t: Tally, read: Reading): 'held' | 'contradicted' | 'unjudged' {
  const { ex } = read;
  try {
    return t.judge(read) ? 'held' : 'unjudged';
  } catch (err) {
    // An answer the check cannot read (a body over the cap) neither holds nor contradicts it.
    if (err instanceof Unreadable || !(err instanceof Error)) return 'unjudged';
    if (err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError) {
      t.broken = `the observer failed: ${redactText(err.message)}`;
      return 'unjudged';
    }
    const failure = err instanceof CheckFailure ? err : undefined;
    t.latest = {
      message: redactText(err.message),
      expected: failure?.expected,
      actual: redactDeep(failure?.actual),
      exchange: exchangeOf(ex),
      at: ex.startedAt,
    };
    t.failed ??= t.latest;
    return 'contradicted';
  }
}

/** Adds exchange number `n` to the counts of the check's clauses, once per clause. */
function count(t: Tally, door: ObservedExchange['door'], n: number, contradicted: boolean): void {
  for (const c of t.stats) {
    if (c.judgedAt !== n) {
      c.judgedAt = n;
      c.judged[door] += 1;
    }
    if (contradicted && c.contradictingAt !== n) {
      c.contradictingAt = n;
      c.contradicting[door] += 1;
    }
  }
}

/** A failed check's message: the first contradiction, how many there were, and when. */
function failureMessage(t: Tally, seen: string): string {
  const first = t.failed as Failure;
  if (t.contradicted <= 1) return `${first.message} (after ${seen} that held)`;
  const when = first.at && t.latest?.at ? `, the first at ${first.at}, the latest at ${t.latest.at}` : '';
  return `${first.message} (contradicted by ${t.contradicted} exchanges${when}; ${seen} held)`;
}

/** A clause's declared check: the exchanges `when` selects must meet `expect`. */
function declared(clause: Clause, check: PassiveCheck): Tally {
  const select = selector(check.when);
  return {
    id: `passive ${clause.id}`,
    title: check.expect.title ?? clause.title,
    clauses: check.expect.clauses,
    area: clause.area,
    origin: check.origin,
    file: check.origin.replace(/:\d+:\d+$/, ''),
    held: 0,
    contradicted: 0,
    stats: [],
    door: check.when.door,
    judge(read) {
      if (!select(read)) return false;
      try {
        // An exchange without what the check needs is not one it judges.
        if (preconditionUnmet(check.expect, read.response())) return false;
        evaluateCheck(check.expect, read.response());
      } catch (err) {
        // Only a matcher that did not hold contradicts the clause; an answer the check cannot
        // read (a body over the cap, or cut by a recording) is not judged.
        if (err instanceof CheckFailure) throw err;
        throw new Unreadable(errorMessage(err));
      }
      return true;
    },
  };
}

/** A property's observer, fresh for this judge: it keeps its own state between exchanges. */
function observing(p: ObservingProperty, clauses: string[]): Tally {
  const observer = p.def.observe?.observer();
  return {
    id: `passive ${p.def.id}`,
    title: p.def.title,
    clauses,
    area: p.area,
    origin: p.file,
    file: p.file,
    held: 0,
    contradicted: 0,
    stats: [],
    judge: (read) => observer?.(read.view()) === true,
  };
}

/**
 * Whether `when` selects an exchange, made once per check: its patterns compiled, and whether its
 * status matcher holds remembered for each status met (at most the 900 a status line can carry).
 */
function selector(w: PassiveWhen): (read: Reading) => boolean {
  const path = w.path === undefined ? undefined : new RegExp(w.path);
  const query = w.query === undefined ? undefined : new RegExp(w.query);
  const statuses = new Map<number, boolean>();
  const headers = Object.entries(w.requestHeaders ?? {}).map(
    ([name, want]) => [name.toLowerCase(), want] as const,
  );
  return (read) => {
    const { ex } = read;
    if (w.door && w.door !== ex.door) return false;
    if (w.method && w.method !== read.method) return false;
    if (path && !path.test(read.path)) return false;
    if (query && !query.test(read.query)) return false;
    if (w.status !== undefined) {
      const status = ex.response.status;
      let holds = statuses.get(status);
      if (holds === undefined) {
        holds = !match(w.status, status);
        // A recording may hold any number; only a status line's three digits are remembered.
        if (Number.isInteger(status) && status >= 100 && status <= 999) statuses.set(status, holds);
      }
      if (!holds) return false;
    }
    for (const [name, want] of headers) {
      const have = ex.request.headers[name];
      if (match(want, have === undefined ? ABSENT : have)) return false;
    }
    return true;
  };
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
