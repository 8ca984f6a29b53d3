import { existsSync } from 'node:fs';
import { readResultsDocument } from '../reporters/results-document.ts';
import { listAreas, loadSuites } from '../runner/api.ts';
import type { ClauseVerdict } from '../runner/model/verdict.ts';
import { errorMessage } from '../runner/util/errors.ts';
import { parse } from './args.ts';
import { LAST_RUN } from './run.ts';

export const CLAUSES_HELP = `Usage: edgecheck clauses [--json] [--results FILE] [--suite NAME]...

Lists every clause: id, SPEC section, how many checks cite it, dates, feature, what Amazon S3
does where SPEC departs from it, and its verdict in a run: the results document given with
--results (--reporter json=FILE), else the last run in this folder (.edgecheck/last-run.json),
if any; the last line says which, or why there are none. Clauses no check cites show
'untested'; clauses no API call can observe show 'untestable' with the reason.
`;

export async function clausesCommand(argv: string[], out: NodeJS.WritableStream) {
  const { values } = parse('clauses', argv, {
    json: { type: 'boolean' },
    results: { type: 'string' },
    suite: { type: 'string', multiple: true },
    'suites-dir': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    out.write(CLAUSES_HELP);
    return 0;
  }
  const dir = values['suites-dir'];
  const all = listAreas(dir);
  const areas = values.suite?.length ? values.suite : all;
  const loaded = await loadSuites(areas, all, dir);
  const cites = new Map<string, number>();
  const cite = (id: string) => cites.set(id, (cites.get(id) ?? 0) + 1);
  for (const c of loaded.cases)
    for (const s of [...c.given, ...c.steps]) for (const k of s.expect ?? []) k.clauses.forEach(cite);
  for (const p of loaded.properties) if (p.def.run) p.def.clauses.forEach(cite);
  const verdicts = new Map<string, ClauseVerdict>();
  let resultsFile: string | undefined;
  /** Why no verdicts are shown, when none are. */
  let noVerdicts: string | undefined;
  if (values.results) {
    resultsFile = values.results;
    for (const c of readResultsDocument(values.results).clauses) verdicts.set(c.id, c.verdict);
  } else if (existsSync(LAST_RUN)) {
    // The last run is a convenience: one this version cannot read shows no verdicts, and no error.
    try {
      for (const c of readResultsDocument(LAST_RUN).clauses) verdicts.set(c.id, c.verdict);
      resultsFile = LAST_RUN;
    } catch (err) {
      verdicts.clear();
      noVerdicts = `no verdicts: ${LAST_RUN} cannot be read (${errorMessage(err)}); give --results FILE`;
    }
  } else {
    noVerdicts = `no verdicts: no run wrote ${LAST_RUN} in this folder (or it ran with --no-last-run); give --results FILE`;
  }
  const rows = [...loaded.clauses.values()]
    .filter((c) => areas.includes(c.area))
    .map((c) => ({
      id: c.id,
      area: c.area,
      section: c.section,
      title: c.title,
      source: c.source,
      since: c.since,
      until: c.until,
      feature: c.feature,
      untestable: c.untestable,
      amazon: c.amazon,
      checks: cites.get(c.id) ?? 0,
      status: c.untestable ? 'untestable' : (cites.get(c.id) ?? 0) === 0 ? 'untested' : 'checked',
      verdict: verdicts.get(c.id),
    }));
  if (values.json) {
    out.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(...rows.map((r) => r.id.length), 10);
  for (const r of rows) {
    const dates = [r.since && `since ${r.since}`, r.until && `until ${r.until}`].filter(Boolean).join(', ');
    const status = r.untestable
      ? 'untestable'
      : (r.verdict ?? (r.status === 'checked' ? `${r.checks} check${r.checks === 1 ? '' : 's'}` : r.status));
    const extra = [
      dates,
      r.feature && `feature ${r.feature}`,
      r.source !== 'spec' && `from ${r.source}`,
      r.amazon && `SPEC departs from Amazon S3 here; Amazon S3: ${r.amazon.says}`,
      r.untestable,
    ]
      .filter(Boolean)
      .join('; ');
    out.write(`${r.id.padEnd(width)}  ${status.padEnd(10)}  ${r.title}${extra ? `  (${extra})` : ''}\n`);
  }
  const count = (s: string) => rows.filter((r) => r.status === s).length;
  const departing = rows.filter((r) => r.amazon !== undefined).length;
  out.write(
    `${rows.length} clauses: ${count('checked')} checked, ${count('untested')} untested, ${count('untestable')} untestable` +
      `${departing ? `; ${departing} where SPEC departs from Amazon S3` : ''}\n`,
  );
  if (resultsFile) out.write(`verdicts from ${resultsFile}\n`);
  else if (noVerdicts) out.write(`${noVerdicts}\n`);
  return 0;
}
