import { type ClauseAssertions, caseWaits, clauseAssertions, listAreas, loadSuites } from '../runner/api.ts';
import {
  isJudged,
  type PassiveStanding,
  passiveStandingProblems,
  passiveStandings,
} from '../runner/passive/index.ts';
import { parse } from './args.ts';

export const LINT_HELP = `Usage: edgecheck lint [--strict] [--suite NAME]...

Checks every clause, case and property file: YAML syntax, unknown keys, unknown or duplicate
ids, unresolvable placeholders, missing schema $refs, checks that cannot fail, clauses that say
neither how observed traffic judges them nor why it cannot (unobservable); and lists the clauses
no check cites. One line per problem, as file:line:column: what to do.
  --strict     clauses no check cites are errors too
  --suite N    lint one suite (repeatable; default all)
  --suites-dir DIR  lint the suites in DIR instead of the project's suites/
  --passive    list the clauses that observed traffic can judge (edgecheck proxy, edgecheck judge),
               and then those it cannot, each with why
  --assertions list every clause with the assertions citing it (case and step, file:line) and the
               statement each proves: its title, else its matchers in words; and why a clause
               no check cites is untested or untestable
  --waits      list, for every step holding checks, what its checks wait on: the case's given,
               the earlier steps whose captures they use or whose writes reach what they read
               (a step that did not pass blocks them), and the valid twins whose refusal
               blocks their passes
Exit code: 0 when clean, 2 when there are errors.
`;

export async function lintCommand(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream) {
  const { values } = parse('lint', argv, {
    strict: { type: 'boolean' },
    suite: { type: 'string', multiple: true },
    'suites-dir': { type: 'string' },
    passive: { type: 'boolean' },
    assertions: { type: 'boolean' },
    waits: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    out.write(LINT_HELP);
    return 0;
  }
  const dir = values['suites-dir'];
  const all = listAreas(dir);
  const loaded = await loadSuites(values.suite?.length ? values.suite : all, all, dir);
  // The clauses of the suites linted: the others load only so that citations resolve, and their
  // properties, which may observe them, are not loaded.
  const areas = new Set(values.suite?.length ? values.suite : all);
  const standings = passiveStandings({
    clauses: [...loaded.clauses.values()].filter((c) => areas.has(c.area)),
    properties: loaded.properties,
  });
  // Only of suites that load: a clause's passive checks are whole only once every check is read.
  const problems = loaded.problems.some((p) => p.level === 'error')
    ? loaded.problems
    : [...loaded.problems, ...passiveStandingProblems(standings)];
  let errors = 0;
  for (const p of problems) {
    const level = p.level === 'warning' && values.strict ? 'error' : p.level;
    if (level === 'error') errors++;
    err.write(`${p.where}: ${level}: ${p.what}\n`);
  }
  const checks = loaded.cases.reduce(
    (n, c) => n + [...c.given, ...c.steps].reduce((m, s) => m + (s.expect?.length ?? 0), 0),
    loaded.properties.length,
  );
  if (values.passive) out.write(passiveLines(standings));
  if (values.assertions) {
    for (const entry of clauseAssertions(loaded))
      if (areas.has(entry.clause.area)) out.write(assertionLines(entry));
  }
  if (values.waits) {
    for (const c of loaded.cases) if (areas.has(c.area)) out.write(waitLines(c.id, caseWaits(c)));
  }
  const judged = standings.filter(isJudged).length;
  const reasoned = standings.filter((s) => !isJudged(s) && s.reason).length;
  const neither = standings.length - judged - reasoned;
  out.write(
    `edgecheck lint: ${standings.length} clauses (${judged} judgeable from observed traffic, ` +
      `${reasoned} not, with reasons${neither ? `, ${neither} saying neither` : ''}), ` +
      `${loaded.cases.length} cases, ${loaded.properties.length} properties, ` +
      `${checks} checks; ${errors} error(s), ${problems.length - errors} warning(s)\n`,
  );
  return errors ? 2 : 0;
}

/**
 * The clauses observed traffic judges, each with what judges it, then those it cannot judge, each
 * with why (a clause saying neither is lint's error, and in neither list).
 */
function passiveLines(standings: PassiveStanding[]): string {
  const judged = standings.filter(isJudged);
  const not = standings.filter((s) => !isJudged(s) && s.reason);
  const lines = [`judged from observed traffic (${judged.length}):`];
  for (const { clause, declared, observers } of judged) {
    const by = [...(declared ? ['clauses.yaml'] : []), ...observers].join(', ');
    lines.push(`  ${clause.id}  ${clause.title}  (by ${by})`);
  }
  lines.push(`not judgeable from observed traffic (${not.length}):`);
  for (const { clause, reason } of not) lines.push(`  ${clause.id}  ${reason}`);
  return `${lines.join('\n')}\n`;
}

/** A clause, then each assertion citing it (where, then what it proves), or why none does. */
function assertionLines({ clause, assertions }: ClauseAssertions): string {
  const lines = [`${clause.id}  ${clause.title}`];
  if (clause.amazon !== undefined)
    lines.push(`  SPEC departs from Amazon S3 here; Amazon S3: ${clause.amazon.says}`);
  if (clause.untestable) lines.push(`  untestable: ${clause.untestable}`);
  else if (!assertions.length) lines.push('  untested: no check cites it');
  for (const a of assertions) {
    const who =
      a.kind === 'property'
        ? `${a.holder} (property)`
        : a.kind === 'traffic'
          ? `${a.holder} (traffic)`
          : `${a.holder}/${a.step}`;
    lines.push(`  ${who}  ${a.origin}`, `    ${a.statement}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A case, then each step holding checks with what they wait on (nothing: judged whatever came before). */
function waitLines(id: string, steps: ReturnType<typeof caseWaits>): string {
  const lines = [id];
  for (const s of steps) {
    const n = `${s.checks} check${s.checks > 1 ? 's' : ''}`;
    lines.push(`  ${s.step} (${n}, ${s.origin}) waits on: ${s.waits.join('; ') || 'nothing'}`);
    if (s.twins.length)
      lines.push(
        `    its passes wait on its valid twin${s.twins.length > 1 ? 's' : ''}: ${s.twins.join(', ')}`,
      );
  }
  return `${lines.join('\n')}\n`;
}
