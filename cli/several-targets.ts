import { existsSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { compareHtml, compareResults } from '../reporters/compare.ts';
import { writeOutput } from '../reporters/output.ts';
import { createReporter } from '../reporters/registry.ts';
import { type RunOptions, runEdgecheck, severalTargetsExitCode } from '../runner/api.ts';
import type { Reporter, RunResults } from '../runner/model/results.ts';
import type { Target } from '../runner/model/target.ts';
import { InputError } from '../runner/util/errors.ts';
import { type ConfigFile, readConfigFile, resolveTarget } from './config/load-config.ts';
import { runAgainstEmbedded } from './embedded.ts';

/** One `--target NAME=SPEC`: a config file, or the embedded reference (`embedded`, `embedded:FAULT,FAULT`). */
export interface NamedTarget {
  name: string;
  target?: Target;
  /** The target's own config file, whose run settings (concurrency, timeoutMs, …) apply to it. */
  config?: ConfigFile;
  embedded?: { faults: string[] };
}

/** One target as written: `NAME=SPEC`, where it was written (flag or file:line), and the folder paths are relative to. */
export interface TargetSpec {
  spec: string;
  where: string;
  base?: string;
}

/** The `targets:` of a config file as specs, each path relative to the config's folder. */
export function configTargets(config: ConfigFile, file: string): TargetSpec[] {
  return Object.entries(config.targets ?? {}).map(([name, spec]) => ({
    spec: `${name}=${spec}`,
    where: `${file} targets.${name}`,
    base: path.dirname(file),
  }));
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Parses the `--target` flags (or a config's `targets:`): unique names, each a config file that exists or the embedded reference. */
export function parseTargets(specs: (string | TargetSpec)[]): NamedTarget[] {
  const seen = new Set<string>();
  return specs.map((given) => {
    const { spec, where, base } =
      typeof given === 'string' ? { spec: given, where: `--target ${given}` } : given;
    const eq = spec.indexOf('=');
    const name = eq < 0 ? '' : spec.slice(0, eq).trim();
    const what = eq < 0 ? '' : spec.slice(eq + 1).trim();
    if (!NAME.test(name) || !what) {
      throw new InputError(where, 'write NAME=CONFIG.yaml or NAME=embedded (NAME: letters, digits, . _ -)');
    }
    if (seen.has(name))
      throw new InputError(where, `the name '${name}' is used twice; give each target its own`);
    seen.add(name);
    const embedded = /^embedded(?::(.*))?$/.exec(what);
    if (embedded) {
      const faults = (embedded[1] ?? '')
        .split(',')
        .map((f) => f.trim())
        .filter(Boolean);
      return { name, embedded: { faults } };
    }
    const file = base ? path.resolve(base, what) : what;
    if (!existsSync(file)) throw new InputError(where, `no such config file '${what}'`);
    const config = readConfigFile(file);
    if (config.targets)
      throw new InputError(where, `'${what}' names targets of its own; name a target's file`);
    const target = resolveTarget(config, file, { name });
    if (!target) throw new InputError(where, `'${what}' names no management.baseUrl and no s3.endpoint`);
    return { name, target: { ...target, name }, config };
  });
}

/** `out/results.json` for target `s3rver` is `out/results.s3rver.json`. */
export function perTargetPath(dest: string, name: string): string {
  const ext = path.extname(dest);
  return `${dest.slice(0, dest.length - ext.length)}.${name}${ext}`;
}

/** A stream that writes each line of a target's console with its name in front, whole lines only. */
function prefixed(out: NodeJS.WritableStream, name: string): NodeJS.WritableStream {
  let partial = '';
  return new Writable({
    write(chunk, _enc, done) {
      const lines = (partial + String(chunk)).split('\n');
      partial = lines.pop() ?? '';
      if (lines.length) out.write(lines.map((l) => `[${name}] ${l}\n`).join(''));
      done();
    },
    final(done) {
      if (partial) out.write(`[${name}] ${partial}\n`);
      done();
    },
  });
}

/** The reporters of one target: the console's lines carry its name; each file reporter writes its own file. */
function reportersFor(
  specs: string[],
  name: string,
  out: NodeJS.WritableStream,
  verbose?: boolean,
): Reporter[] {
  return specs.map((spec) => {
    const eq = spec.indexOf('=');
    if (eq < 0 && spec.trim() !== 'console') {
      throw new InputError(
        `--reporter ${spec}`,
        `with several targets, give ${spec.trim()}=PATH: one file per target is written beside PATH`,
      );
    }
    if (eq < 0) return createReporter('console', { stream: prefixed(out, name), verbose, live: false });
    return createReporter(`${spec.slice(0, eq)}=${perTargetPath(spec.slice(eq + 1).trim(), name)}`);
  });
}

export interface SeveralOptions extends Omit<RunOptions, 'target' | 'reporters' | 'ownedTarget'> {
  targets: NamedTarget[];
  reporterSpecs: string[];
  verbose?: boolean;
  /** The target whose exit code is the run's; by default the worst of all. */
  exitFrom?: string;
  /** Settings of one target's own (its config file's concurrency, timeout, rate cap, …). */
  settingsFor?: (t: NamedTarget) => Partial<RunOptions>;
}

/**
 * Runs the selected cases against every target at once, each with its own concurrency, traffic
 * rules and teardown, and the same seed so that properties send the same inputs; then prints the
 * side-by-side table that `edgecheck compare` prints, and writes the HTML comparison where an
 * html reporter was given a path.
 */
export async function runSeveral(options: SeveralOptions, out: NodeJS.WritableStream): Promise<number> {
  const { targets, reporterSpecs, verbose, exitFrom, settingsFor, ...run } = options;
  if (exitFrom !== undefined && !targets.some((t) => t.name === exitFrom)) {
    throw new InputError(
      `--exit-from ${exitFrom}`,
      `no target is named '${exitFrom}'; use one of ${targets.map((t) => t.name).join(', ')}`,
    );
  }
  const seed = run.seed ?? Math.floor(Math.random() * 2 ** 31);
  const perTarget = targets.map((t) => ({ t, reporters: reportersFor(reporterSpecs, t.name, out, verbose) }));
  const results: RunResults[] = await Promise.all(
    perTarget.map(({ t, reporters }) => {
      const common = { ...run, ...settingsFor?.(t), seed, reporters };
      return t.embedded
        ? runAgainstEmbedded({ ...common, reference: { faults: t.embedded.faults, name: t.name } })
        : runEdgecheck({ ...common, target: t.target! });
    }),
  );
  const docs = targets.map((t, i) => ({ label: t.name, results: results[i] }));
  out.write(`\n${compareResults(docs)}`);
  for (const spec of reporterSpecs) {
    const m = /^\s*html\s*=(.+)$/.exec(spec);
    if (m) await writeOutput(compareHtml(docs), m[1].trim());
  }
  return severalTargetsExitCode(
    results,
    exitFrom === undefined ? undefined : targets.findIndex((t) => t.name === exitFrom),
  );
}
