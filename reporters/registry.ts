import type { Reporter, ReporterOptions } from '../runner/model/results.ts';
import { InputError } from '../runner/util/errors.ts';
import { ConsoleReporter } from './console.ts';
import { HtmlReporter } from './html.ts';
import { JsonReporter } from './json.ts';
import { JunitReporter } from './junit.ts';
import { MarkdownReporter } from './markdown.ts';

type Factory = (options: ReporterOptions) => Reporter;

const REPORTERS: Record<string, Factory> = {
  console: (o) => new ConsoleReporter(o),
  json: (o) => new JsonReporter(o),
  junit: (o) => new JunitReporter(o),
  markdown: (o) => new MarkdownReporter(o),
  html: (o) => new HtmlReporter(o),
};

export const REPORTER_NAMES: readonly string[] = Object.keys(REPORTERS);

/** Bad `--reporter` value; the message is one line that says what to write instead. */
export class ReporterSpecError extends InputError {
  override name = 'ReporterSpecError';
}

/**
 * `console`, `json`, `json=out/results.json`, `junit`, `junit=out/junit.xml`: a file reporter
 * without a path writes to standard output. The part after `=` becomes options.dest.
 */
export function createReporter(spec: string, options: ReporterOptions = {}): Reporter {
  const eq = spec.indexOf('=');
  const name = (eq < 0 ? spec : spec.slice(0, eq)).trim();
  const dest = eq < 0 ? undefined : spec.slice(eq + 1).trim();
  const factory = Object.hasOwn(REPORTERS, name) ? REPORTERS[name] : undefined;
  const where = `--reporter ${spec}`;
  if (!factory) {
    throw new ReporterSpecError(
      where,
      `unknown reporter '${name}': use one of ${REPORTER_NAMES.join(', ')} ` +
        `(json, junit, markdown and html take an optional =path, e.g. html=out/report.html)`,
    );
  }
  if (dest !== undefined && !dest) {
    throw new ReporterSpecError(where, `the path after '=' is empty; write ${name}=path or ${name}`);
  }
  if (name === 'console' && dest) {
    throw new ReporterSpecError(
      where,
      'console writes to the terminal; use json=path or junit=path for files',
    );
  }
  return factory({ ...options, dest: dest ?? options.dest });
}
