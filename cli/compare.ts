import path from 'node:path';
import { compareHtml, compareResults } from '../reporters/compare.ts';
import { writeOutput } from '../reporters/output.ts';
import { readForCompare } from '../reporters/results-document.ts';
import { writableDir } from '../runner/util/dirs.ts';
import { InputError } from '../runner/util/errors.ts';
import { parse } from './args.ts';

export const COMPARE_HELP = `Usage: edgecheck compare RESULTS.json RESULTS.json... [--all] [--html FILE]

Puts the JSON results documents of several runs side by side (one column per target):
the clauses whose verdicts differ, or every clause with --all, and totals.
A file may be given as label=path to name its column.
--html FILE also writes a self-contained HTML page: every clause by SPEC section, one
column per target, the rows that differ marked (the others shown on demand, or with --all).
Clauses where SPEC departs from Amazon S3 are listed apart, with what Amazon S3 does, and their
failures totalled per run: a target that does as Amazon S3 does fails those.
`;

export async function compareCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parse(
    'compare',
    argv,
    { all: { type: 'boolean' }, html: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    true,
  );
  if (values.help) {
    out.write(COMPARE_HELP);
    return 0;
  }
  if (positionals.length < 2)
    throw new InputError('compare', 'give two or more JSON results documents (--reporter json=FILE)');
  const html = values.html;
  if (html !== undefined && (!html.trim() || !writableDir(path.dirname(path.resolve(html)))))
    throw new InputError(
      `--html ${html}`.trim(),
      'give a file in a writable folder, e.g. --html out/compare.html',
    );
  const docs = readForCompare(positionals);
  out.write(`${compareResults(docs, { all: values.all })}\n`);
  if (html !== undefined) await writeOutput(compareHtml(docs, { all: values.all }), html);
  return 0;
}
