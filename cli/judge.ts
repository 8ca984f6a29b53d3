import { existsSync } from 'node:fs';
import { createReporter } from '../reporters/registry.ts';
import { listAreas, loadSuites, today } from '../runner/api.ts';
import type { Reporter } from '../runner/model/results.ts';
import { PassiveJudge, passiveResults, readHar } from '../runner/passive/index.ts';
import { InputError } from '../runner/util/errors.ts';
import { date, parse } from './args.ts';
import { reportDocument } from './report-document.ts';

export const JUDGE_HELP = `Usage: edgecheck judge FILE.har [FILE.har ...] [options]

Judges recorded traffic, HAR files (browser devtools, intercepting proxies, or
edgecheck proxy --record, rotated files included), in the order given, as one stream of traffic,
against every clause that can be judged from what passes: each
request under /client/v4 as the management API's, any other as the S3 endpoint's. Sends nothing.
A clause the traffic shows and never contradicts passes with the number of exchanges; one
contradicted fails with the first and latest such exchange (redacted); one never shown is untested.
Each file is read as it streams: a file larger than memory is judged.
'edgecheck lint --passive' lists the clauses that can be judged this way.

Options
  --as-of YYYY-MM-DD   the date whose rules the traffic is judged by (default today)
  --reporter SPEC      console (default), json[=FILE], junit[=FILE], markdown[=FILE], html[=FILE]
                       (repeatable)

Exit code: 0 when no observed clause fails, 1 otherwise, 2 for bad input.
`;

export async function judgeCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parse(
    'judge',
    argv,
    {
      'as-of': { type: 'string' },
      reporter: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (values.help) {
    out.write(JUDGE_HELP);
    return 0;
  }
  if (!positionals.length)
    throw new InputError('judge', 'give a HAR file: edgecheck judge FILE.har [FILE.har ...]');
  const asOf = date('--as-of', values['as-of']) ?? today();
  const reporters: Reporter[] = (values.reporter?.length ? values.reporter : ['console']).map((spec) =>
    createReporter(spec, { stream: out }),
  );
  const startedAt = new Date();
  for (const file of positionals)
    if (!existsSync(file)) throw new InputError(file, 'cannot read: no such file');
  const areas = listAreas();
  const suites = await loadSuites(areas, areas);
  const clauses = [...suites.clauses.values()];
  const judge = new PassiveJudge({ clauses, properties: suites.properties }, asOf);
  for (const file of positionals) for await (const ex of readHar(file)) judge.observe(ex);
  const results = passiveResults({
    judge,
    clauses,
    mode: 'judge',
    target: {
      name: positionals.length === 1 ? positionals[0] : `${positionals.length} recordings`,
      embedded: false,
    },
    asOf,
    startedAt,
  });
  return reportDocument(results, reporters);
}
