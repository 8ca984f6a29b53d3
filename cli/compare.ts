import { compareResults } from '../reporters/compare.ts';
import { readForCompare } from '../reporters/results-document.ts';
import { InputError } from '../runner/util/errors.ts';
import { parse } from './args.ts';

export const COMPARE_HELP = `Usage: edgecheck compare RESULTS.json RESULTS.json... [--all]

Puts the JSON results documents of several runs side by side (one column per target):
the clauses whose verdicts differ, or every clause with --all, and totals.
A file may be given as label=path to name its column.
`;

export async function compareCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parse(
    'compare',
    argv,
    { all: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    true,
  );
  if (values.help) {
    out.write(COMPARE_HELP);
    return 0;
  }
  if (positionals.length < 2)
    throw new InputError('compare', 'give two or more JSON results documents (--reporter json=FILE)');
  out.write(`${compareResults(readForCompare(positionals), { all: values.all })}\n`);
  return 0;
}
