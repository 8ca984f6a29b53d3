import type { CaseResult, CheckResult, ClauseResult, RunResults } from '../runner/model/results.ts';
import { fastXml } from '../runner/util/packages.ts';
import { checksByClause, clauseDurationMs, clauseReason, topSection } from './clause-checks.ts';
import { amazonAnswer, amazonNote, isFailure } from './departures.ts';
import { DocumentReporter } from './document-reporter.ts';
import { renderFailure } from './failure.ts';
import { xmlAttr, xmlSafe } from './xml-text.ts';

type Node = Record<string, unknown>;

/** Long values stay readable in CI pages; the JSON document keeps them whole. */
const VALUE_LIMIT = 4000;

/**
 * JUnit XML as Jenkins, GitLab and GitHub test reporters read it: one <testsuite> per area and
 * one <testcase> per clause, since clauses are what users gate on.
 */
export class JunitReporter extends DocumentReporter {
  protected render(results: RunResults, complete: boolean): string {
    return renderJunit(results, complete);
  }
}

/** The JUnit document for a run; `complete` false adds an error test case saying the run was cut short. */
export function renderJunit(results: RunResults, complete = true): string {
  const cases = new Map(results.cases.map((c) => [c.id, c]));
  const byClause = checksByClause(results.cases);
  const areas = new Map<string, ClauseResult[]>();
  for (const clause of results.clauses) {
    const list = areas.get(clause.area);
    if (list) list.push(clause);
    else areas.set(clause.area, [clause]);
  }
  const suites: Node[] = [];
  for (const [area, clauses] of areas) {
    const testcases = clauses.map((clause) =>
      testcase(clause, byClause.get(clause.id) ?? [], cases, results.asOf),
    );
    const areaCases = results.cases.filter((c) => c.area === area);
    suites.push(suite(area, testcases, areaCases, results.startedAt));
  }
  // The run's own health: cut short, or something left on the target. Each fails CI like a clause.
  const run: Node[] = [];
  if (!complete || results.interrupted) {
    run.push({
      '@_classname': 'edgecheck.run',
      '@_name': 'run completed',
      '@_time': seconds(results.durationMs),
      error: {
        '@_message': complete
          ? `run interrupted: checks that had not run are blocked; exit code ${results.exitCode}`
          : `run cut short: ${results.cases.length} cases finished; clause verdicts are unknown`,
        '@_type': 'interrupted',
      },
    });
  }
  for (const left of results.leftovers ?? []) {
    run.push({
      '@_classname': 'edgecheck.teardown',
      '@_name': xmlAttr(`left on the target: ${left.what}`),
      '@_time': 0,
      failure: {
        '@_message': xmlAttr(`${left.caseId}: ${left.error}`),
        '@_type': 'leftover',
        '#text': xmlSafe(
          left.undo ? `remove or restore it with:\n${left.undo}` : 'no command known; see the case',
        ),
      },
    });
  }
  if (run.length) suites.push(suite('edgecheck', run, [], results.startedAt));
  const count = (key: string) => suites.reduce((n, s) => n + Number(s[`@_${key}`]), 0);
  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    testsuites: {
      '@_name': xmlAttr(
        `edgecheck ${results.mode && results.mode !== 'run' ? `${results.mode} ` : ''}${results.target.name} as of ${results.asOf}`,
      ),
      '@_tests': count('tests'),
      '@_failures': count('failures'),
      '@_errors': count('errors'),
      '@_skipped': count('skipped'),
      '@_time': seconds(results.durationMs),
      '@_timestamp': timestamp(results.startedAt),
      testsuite: suites,
    },
  };
  const builder = new (fastXml().XMLBuilder)({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    format: true,
    suppressEmptyNode: true,
  });
  return builder.build(doc);
}

function suite(name: string, testcases: Node[], cases: CaseResult[], startedAt: string): Node {
  const has = (key: string) => testcases.filter((t) => key in t).length;
  return {
    '@_name': xmlAttr(name),
    '@_tests': testcases.length,
    '@_failures': has('failure'),
    '@_errors': has('error'),
    '@_skipped': has('skipped'),
    '@_time': seconds(cases.reduce((ms, c) => ms + c.durationMs, 0)),
    '@_timestamp': timestamp(startedAt),
    testcase: testcases,
  };
}

function testcase(
  clause: ClauseResult,
  checks: CheckResult[],
  cases: ReadonlyMap<string, CaseResult>,
  asOf: string,
): Node {
  // Dots would split the SPEC heading into package levels in Jenkins.
  const section = topSection(clause.section).replace(/\./g, ' ');
  const node: Node = {
    '@_classname': xmlAttr(`${clause.area}.${section}`),
    '@_name': xmlAttr(`${clause.id}: ${clause.title}`),
    '@_time': seconds(clauseDurationMs(checks, cases)),
  };
  // What Amazon S3 does where SPEC departs from it, as a property CI pages group by (first, as
  // pytest writes them); for a failure, also what the target's answer was (as every report splits it).
  const departing = clause.amazon !== undefined && isFailure(clause);
  if (clause.amazon !== undefined) {
    const amazon = { '@_name': 'amazon', '@_value': xmlAttr(clause.amazon) };
    node.properties = {
      property: departing ? [amazon, { '@_name': 'amazonAnswer', '@_value': amazonAnswer(clause) }] : amazon,
    };
  }
  // A failure where SPEC departs from Amazon S3 says so first: the target may do as Amazon S3 does.
  const why = clauseReason(clause, checks, cases, asOf) ?? '';
  const amazon = departing ? `where SPEC departs from Amazon S3 (${amazonNote(clause)}): ` : '';
  const reason = xmlAttr(why && `${amazon}${why}`);
  const details = xmlSafe(checkDetails(clause, checks));
  switch (clause.verdict) {
    case 'fail':
      node.failure = {
        '@_message': reason || `${amazon}a check failed`,
        '@_type': 'fail',
        '#text': failing(checks),
      };
      break;
    case 'error':
      node.error = {
        '@_message': reason || `${amazon}a check could not be judged`,
        '@_type': 'error',
        '#text': failing(checks),
      };
      break;
    case 'blocked':
      node.skipped = { '@_message': `blocked: ${reason || 'a prerequisite failed'}` };
      break;
    case 'skipped':
      node.skipped = { '@_message': `skipped: ${reason || 'not applicable to this run'}` };
      break;
    case 'untested':
      node.skipped = {
        '@_message': clause.untestable ? reason : 'untested: no check cites this clause',
      };
      break;
  }
  if (details) node['system-out'] = details;
  return node;
}

/** The failing and erroring checks of a clause: what a CI page shows as the failure body. */
function failing(checks: CheckResult[]): string {
  return xmlSafe(
    checks
      .filter((c) => c.verdict === 'fail' || c.verdict === 'error')
      .map((c) => describe(c, true))
      .join('\n\n'),
  );
}

function checkDetails(clause: ClauseResult, checks: CheckResult[]): string {
  const head = [`${clause.id} (${clause.section}), source: ${clause.source}, verdict: ${clause.verdict}`];
  if (clause.amazon !== undefined) head.push(`SPEC departs from Amazon S3 here; Amazon S3: ${clause.amazon}`);
  // A pass resting on part of its checks: how many were exercised, and why the first other was not.
  if (clause.unexercised?.length && clause.message) head.push(clause.message);
  if (!checks.length) return head.join('\n');
  return [...head, ...checks.map((c) => describe(c, false))].join('\n');
}

function describe(c: CheckResult, full: boolean): string {
  // The failure body carries the details, laid out as in the console; system-out keeps one entry per check.
  if (full) return renderFailure(c, { valueLimit: VALUE_LIMIT }).join('\n');
  const title = c.title ? `: ${c.title}` : '';
  const lines = [`[${c.verdict}] ${c.caseId}, ${c.step}${title} (${c.origin})`];
  if (c.message) lines.push(`  ${c.message}`);
  return lines.join('\n');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** The JUnit schema's timestamp has no zone and no fraction; startedAt is UTC. */
function timestamp(iso: string): string {
  return iso.slice(0, 19);
}
