import path from 'node:path';
import { MarkdownReporter } from '../reporters/markdown.ts';
import { createReporter } from '../reporters/registry.ts';
import { readResultsDocument } from '../reporters/results-document.ts';
import { eventsOf, mergeResults } from '../runner/api.ts';
import type { Reporter } from '../runner/model/results.ts';
import { writableDir } from '../runner/util/dirs.ts';
import { errorMessage, InputError } from '../runner/util/errors.ts';
import { parse } from './args.ts';
import { githubStepSummary } from './step-summary.ts';

export const MERGE_HELP = `Usage: edgecheck merge RESULTS.json... [-o MERGED.json] [--reporter SPEC]...

Joins the JSON results of the shards of one run (edgecheck run --shard I/N --reporter json=FILE,
one document per shard) into one results document of the same schema.
Clause verdicts are computed again from every check: a clause's verdict comes from the checks
citing it in every shard, so a clause one shard left untested is judged by the shard that
tested it. Documents of different runs are refused in one line: another --as-of, suites
selection (--suite, --case, --clause, --tag, --read-only), --profile, target, --fault or
--baseline, the same case (or shard) twice, or a shard missing.

Options
  -o, --output FILE        the merged document (default: standard output)
  --reporter SPEC          also report the merged run (repeatable): console, junit=FILE,
                           markdown=FILE, or any reporter of edgecheck run
With GITHUB_STEP_SUMMARY set, the markdown summary of the merged run is appended to that file.

Exit code: the merged run's: 0 when no clause fails or errors (or it matches its baseline) and
nothing was left on the target, 1 otherwise; 2 when the documents cannot be merged.
`;

function writable(flag: string, dest: string): void {
  if (!writableDir(path.dirname(path.resolve(dest)))) {
    throw new InputError(
      `${flag} ${dest}`,
      `cannot write to ${path.dirname(dest)}; choose a writable folder`,
    );
  }
}

export async function mergeCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parse(
    'merge',
    argv,
    {
      output: { type: 'string', short: 'o' },
      reporter: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (values.help) {
    out.write(MERGE_HELP);
    return 0;
  }
  if (!positionals.length) {
    throw new InputError(
      'merge',
      'give the JSON results of the shards (edgecheck run --shard I/N --reporter json=FILE)',
    );
  }
  const specs = values.reporter ?? [];
  if (values.output) writable('-o', values.output);
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq >= 0 && spec.slice(eq + 1).trim()) writable('--reporter', spec.slice(eq + 1).trim());
  }
  const merged = mergeResults(positionals.map((p) => ({ label: p, results: readResultsDocument(p) })));
  const reporters: Reporter[] = [
    createReporter(values.output ? `json=${values.output}` : 'json', { stream: out }),
    ...specs.map((spec) => createReporter(spec, { stream: out })),
  ];
  const summary = githubStepSummary(specs);
  if (summary) {
    // As for run: the step summary is a courtesy that never fails the command.
    const md = new MarkdownReporter({ dest: summary, append: true });
    reporters.push({ onEvent: (e) => md.onEvent(e), close: () => md.close().catch(() => undefined) });
  }
  for (const event of eventsOf(merged)) for (const r of reporters) r.onEvent(event);
  const closing = await Promise.allSettled(reporters.map((r) => r.close()));
  const failed = closing.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw new InputError('merge', `could not write the results: ${errorMessage(failed.reason)}`);
  // A shard stopped by a signal makes the merged run interrupted; merging itself was not.
  return merged.exitCode === 0 ? 0 : 1;
}
