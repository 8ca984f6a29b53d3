import { UnknownFaultError } from '../reference/faults.ts';
import { ReporterSpecError } from '../reporters/registry.ts';
import { InputError } from '../runner/util/errors.ts';
import { VERSION } from '../runner/version.ts';
import { CLAUSES_HELP, clausesCommand } from './clauses.ts';
import { COMPARE_HELP, compareCommand } from './compare.ts';
import { LINT_HELP, lintCommand } from './lint.ts';
import { RUN_HELP, runCommand } from './run.ts';
import { SERVE_HELP, serveCommand } from './serve.ts';
import { sweepCommand } from './sweep.ts';

const HELP = `edgecheck ${VERSION}: conformance checks for the Edge Platform API v4 and its S3 interface

Usage: edgecheck <command> [options]     (edgecheck <command> --help for its options)

  run        run the suites against a target (default: the embedded reference) and report per clause
  lint       check clause, case and property files; list clauses no check cites
  clauses    list every clause with its checks, dates and (given results) verdict
  serve      start the embedded reference target and print its URLs and credentials
  compare    put the results of several runs side by side
  sweep      list what interrupted runs left on a target; --delete removes it

${RUN_HELP.split('\n').slice(0, 1).join('')}

Exit codes
  0    no clause fails or errors (or the run matches --baseline)
  1    some clause fails or errors, the run does not match --baseline, or the run left
       something on the target
  2    bad input: one line naming the file:line, flag or field, and what to do
  3    internal error: one line (EDGECHECK_DEBUG=1 shows the stack)
  130  interrupted (Ctrl-C, SIGTERM)
`;

const USER_ERRORS = [InputError, ReporterSpecError, UnknownFaultError];

/** The CLI. Returns the exit code: 0 ok, 1 clauses failed, 2 bad input or usage, 3 internal error, 130 interrupted. */
export async function main(argv: string[], out = process.stdout, err = process.stderr): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        out.write(HELP);
        void [CLAUSES_HELP, COMPARE_HELP, LINT_HELP, SERVE_HELP];
        return 0;
      case '--version':
        out.write(`${VERSION}\n`);
        return 0;
      case 'run':
        return await runCommand(rest, out);
      case 'lint':
        return await lintCommand(rest, out, err);
      case 'clauses':
        return await clausesCommand(rest, out);
      case 'serve':
        return await serveCommand(rest, out);
      case 'compare':
        return await compareCommand(rest, out);
      case 'sweep':
        return await sweepCommand(rest, out);
      default:
        err.write(`edgecheck: unknown command '${command}'; run 'edgecheck --help' for the list\n`);
        return 2;
    }
  } catch (e) {
    if (USER_ERRORS.some((cls) => e instanceof cls) || (e as Error)?.name?.endsWith('InputError')) {
      err.write(`edgecheck: ${(e as Error).message}\n`);
      return 2;
    }
    // Not the user's doing: still one line, with the stack only on request.
    err.write(
      `edgecheck: internal error: ${(e as Error)?.message ?? e}${process.env.EDGECHECK_DEBUG ? `\n${(e as Error)?.stack}` : ' (EDGECHECK_DEBUG=1 shows the stack)'}\n`,
    );
    return 3;
  }
}
