import { InputError } from '../runner/util/errors.ts';
import { VERSION } from '../runner/version.ts';

const HELP = `edgecheck ${VERSION}: conformance checks for the Edge Platform API v4 and its S3 interface

Usage: edgecheck <command> [options]     (edgecheck <command> --help for its options)

  run        run the suites against a target (default: the embedded reference) and report per clause
  lint       check clause, case and property files; list clauses no check cites
  clauses    list every clause with its checks, dates and (given results) verdict
  serve      start the embedded reference target and print its URLs and credentials
  compare    put the results of several runs side by side
  diff       send generated S3 request sequences to two targets and report where they differ
  merge      join the JSON results of the shards of one run (--shard I/N) into one
  sweep      list what interrupted runs left on a target; --delete removes it
  proxy      forward traffic to a target unchanged and judge every exchange per clause
  judge      judge recorded traffic (a HAR file) per clause, sending nothing

Usage: edgecheck run [options]

Exit codes
  0    no clause fails or errors (or the run matches --baseline)
  1    some clause fails or errors, the run does not match --baseline, or the run left
       something on the target
  2    bad input: one line naming the file:line, flag or field, and what to do
  3    internal error: one line (EDGECHECK_DEBUG=1 shows the stack)
  130  interrupted (Ctrl-C, SIGTERM)
`;

/**
 * The user's doing: bad input (ReporterSpecError is one) or a fault the reference does not know,
 * the latter by name, so that catching it does not load the reference.
 */
const isUserError = (e: unknown) =>
  e instanceof InputError ||
  (e as Error)?.constructor?.name === 'UnknownFaultError' ||
  (e as Error)?.name?.endsWith('InputError');

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
        return 0;
      case '--version':
        out.write(`${VERSION}\n`);
        return 0;
      // Each command's module is imported when that command runs: the AWS SDK, undici, Ajv and the
      // reference load only with the commands that use them, so --help and --version start at once.
      case 'run':
        return await (await import('./run.ts')).runCommand(rest, out, err);
      case 'lint':
        return await (await import('./lint.ts')).lintCommand(rest, out, err);
      case 'clauses':
        return await (await import('./clauses.ts')).clausesCommand(rest, out);
      case 'serve':
        return await (await import('./serve.ts')).serveCommand(rest, out);
      case 'merge':
        return await (await import('./merge.ts')).mergeCommand(rest, out);
      case 'compare':
        return await (await import('./compare.ts')).compareCommand(rest, out);
      case 'diff':
        return await (await import('./diff.ts')).diffCommand(rest, out);
      case 'sweep':
        return await (await import('./sweep.ts')).sweepCommand(rest, out);
      case 'proxy':
        return await (await import('./proxy.ts')).proxyCommand(rest, out);
      case 'judge':
        return await (await import('./judge.ts')).judgeCommand(rest, out);
      default:
        err.write(`edgecheck: unknown command '${command}'; run 'edgecheck --help' for the list\n`);
        return 2;
    }
  } catch (e) {
    if (isUserError(e)) {
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
