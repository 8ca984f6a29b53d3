import { readFileSync } from 'node:fs';
import type { CaseDef, StepDef } from '../model/case.ts';
import type { Clause, PassiveWhen } from '../model/clause.ts';
import { checkStatement } from './check-statement.ts';
import type { LazyProperty } from './properties.ts';

/** One assertion citing a clause: a check of a case, or a property. */
export interface Assertion {
  /** The case or property holding it. */
  holder: string;
  /** The step of a case check as reports name it (its id, else `steps[N]` or `given[N]`). */
  step?: string;
  /** file:line of the check, or of the property's id. */
  origin: string;
  /** What it proves: the check's title, else its matchers in words; a property's title. */
  statement: string;
  /** `traffic`: a check written in clauses.yaml that judges observed exchanges (edgecheck proxy, judge). */
  kind: 'check' | 'property' | 'traffic';
  /** The statement is a title written for it, not one made from its matchers. */
  titled: boolean;
}

/** A clause with every assertion citing it, in suite order; none for an untested or untestable one. */
export interface ClauseAssertions {
  clause: Clause;
  assertions: Assertion[];
}

/**
 * For every clause, the assertions that cite it and the statement each proves (`edgecheck lint
 * --assertions`, the suite READMEs). Read from the loaded suites; a run never calls it.
 */
export function clauseAssertions(suites: {
  clauses: Map<string, Clause>;
  cases: readonly CaseDef[];
  properties: readonly LazyProperty[];
}): ClauseAssertions[] {
  const byId = new Map<string, Assertion[]>([...suites.clauses.keys()].map((id) => [id, []]));
  const cite = (ids: string[], assertion: Assertion) => {
    for (const id of ids) byId.get(id)?.push(assertion);
  };
  for (const c of suites.cases) {
    const steps = (list: StepDef[], kind: string) =>
      list.forEach((s, i) => {
        for (const check of s.expect ?? []) {
          cite(check.clauses, {
            holder: c.id,
            step: s.id ?? `${kind}[${i}]`,
            origin: check.origin,
            statement: check.title ?? checkStatement(check),
            kind: 'check',
            titled: check.title !== undefined,
          });
        }
      });
    steps(c.given, 'given');
    steps(c.steps, 'steps');
  }
  const lines = new Map<string, string[]>();
  for (const p of suites.properties) {
    // A property that only observes is a check of traffic, as a passive entry is.
    const observes = !p.def.run && p.def.observe;
    cite(p.def.clauses, {
      holder: p.def.id,
      origin: `${p.file}${lineOf(p.file, p.def.id, lines)}`,
      statement: observes ? `observed ${observes.selects}: ${p.def.title}` : p.def.title,
      kind: observes ? 'traffic' : 'property',
      titled: true,
    });
  }
  // A passive entry naming a case check (sameAs) is that check, listed above; one written out is its own.
  for (const clause of suites.clauses.values()) {
    for (const p of clause.passive ?? []) {
      if (p.sameAs) continue;
      cite([clause.id], {
        holder: 'clauses.yaml',
        origin: p.origin,
        statement: `observed ${exchanges(p.when)}: ${checkStatement(p.expect)}`,
        kind: 'traffic',
        titled: false,
      });
    }
  }
  return [...suites.clauses.values()].map((clause) => ({ clause, assertions: byId.get(clause.id) ?? [] }));
}

/** `:N`, the line of a property file naming the property's id; '' where the file does not. */
function lineOf(file: string, id: string, cache: Map<string, string[]>): string {
  let text = cache.get(file);
  if (!text) {
    try {
      text = readFileSync(file, 'utf8').split('\n');
    } catch {
      text = [];
    }
    cache.set(file, text);
  }
  const at = text.findIndex((l) => l.includes(`'${id}'`) || l.includes(`"${id}"`));
  return at < 0 ? '' : `:${at + 1}`;
}

/** `S3 GET answers with status 206, path /^x/`: the exchanges a passive entry selects, in words. */
function exchanges(w: PassiveWhen): string {
  const parts = [[w.door === 's3' ? 'S3' : w.door, w.method].filter(Boolean).join(' ') || 'any', 'answers'];
  const conditions = [
    w.path && `path matching /${w.path}/`,
    w.query && `query matching /${w.query}/`,
    w.status !== undefined && `status ${JSON.stringify(w.status)}`,
    ...Object.entries(w.requestHeaders ?? {}).map(
      ([name, m]) => `request header ${name} ${JSON.stringify(m)}`,
    ),
  ].filter(Boolean);
  return `${parts.join(' ')}${conditions.length ? ` with ${conditions.join(', ')}` : ''}`;
}
