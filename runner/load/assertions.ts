import { readFileSync } from 'node:fs';
import type { CaseDef, StepDef } from '../model/case.ts';
import type { Clause } from '../model/clause.ts';
import { checkStatement } from './check-statement.ts';
import type { LoadedProperty } from './properties.ts';

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
  kind: 'check' | 'property';
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
  properties: readonly LoadedProperty[];
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
    cite(p.def.clauses, {
      holder: p.def.id,
      origin: `${p.file}${lineOf(p.file, p.def.id, lines)}`,
      statement: p.def.title,
      kind: 'property',
      titled: true,
    });
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
