import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startReferenceWorker } from '../reference/worker.ts';
import { writeOutput } from '../reporters/output.ts';
import { listAreas, loadClauses, today } from '../runner/api.ts';
import {
  type DiffModel,
  type DiffReport,
  type DiffSide,
  dnsModel,
  type Finding,
  type KnownDifference,
  rulesetModel,
  runDiff,
  s3Model,
} from '../runner/diff/index.ts';
import { newRunId } from '../runner/model/run-id.ts';
import { InputError, TargetError } from '../runner/util/errors.ts';
import { redactText } from '../runner/util/redact.ts';
import { date, int, parse } from './args.ts';
import { type NamedTarget, parseTargets } from './several-targets.ts';

export const DIFF_HELP = `Usage: edgecheck diff A B [options]

Differential mode: sequences of requests generated from a model, seeded, sent to both targets
in lockstep, every answer compared after normalising what may differ (request ids, dates, ETag
values, record ids, element order, whitespace). The S3 model: objects and multipart uploads in a
bucket the run creates (puts, ranged and conditional reads, lists, copies, deletes). The dns
model: DNS records of the zone, under names of the run's own (create, read, patch, replace,
list, delete). The rulesets model: account rulesets of the run's own (create, replace, add and
patch rules, list). What a sequence makes is removed at its end. Each difference is shrunk to the shortest
sequence that shows it, printed with both answers, the command that replays it and the clause
that decides it ("no clause": a candidate for a new clause). Where that clause is one on which
SPEC departs from Amazon S3, the finding says what Amazon S3 does: one target may do as it does.

A and B: NAME=CONFIG.yaml (a target config with an s3 section), or NAME=embedded (the reference;
embedded:FAULT,FAULT with faults on); NAME= may be left out.

  --area AREA            s3, dns, rulesets, or management (dns and rulesets); repeatable;
                         default: every one both targets describe (dns needs a zone id,
                         rulesets an account id)
  --seed N               seed (printed; the same seed sends the same sequences)
  --runs N               sequences tried per search for a new difference (default 100)
  --length N             the most commands in a sequence (default 6)
  --max-differences N    stop after this many distinct differences a clause decides or a
                         status, body or header value shows (default 10); a header one side
                         sends that no clause names is listed too, after them, and takes no slot
  --headers named|all    compare a header's value only where a clause names it (default
                         named: any other header by presence); all: every header's value.
                         Request ids and dates, under any header name, are never compared
  --baseline FILE        known differences (YAML: differences: [{signature, reason}]): shown as
                         known, and not counted against the exit code
  --replay SEED:PATH     replay one shrunk sequence, as a finding prints it
  --json FILE            also write the findings as JSON
  --as-of YYYY-MM-DD     the date the embedded reference serves (default today)
  --timeout MS           bounds each request (default 30000)

Exit code: 0 when no difference outside the baseline is found; 1 when one is; 2 for bad input.
`;

/** The models, in the order a run searches them. */
const AREAS = ['s3', 'dns', 'rulesets'] as const;
type Area = (typeof AREAS)[number];
/** The model of each area, named by the run's id (its resources carry it). */
const MODELS: Record<Area, (runId: string, headers: 'named' | 'all') => DiffModel<any, any>> = {
  s3: s3Model,
  dns: dnsModel,
  rulesets: rulesetModel,
};

const OPTIONS = {
  area: { type: 'string', multiple: true },
  seed: { type: 'string' },
  runs: { type: 'string' },
  length: { type: 'string' },
  'max-differences': { type: 'string' },
  headers: { type: 'string' },
  baseline: { type: 'string' },
  replay: { type: 'string' },
  json: { type: 'string' },
  'as-of': { type: 'string' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `embedded` or `x.yaml` without NAME= gets a name of its own. */
function named(spec: string, i: number): string {
  if (/^[A-Za-z0-9][A-Za-z0-9_.-]*=/.test(spec)) return spec;
  const base = spec.startsWith('embedded')
    ? spec === 'embedded'
      ? 'reference'
      : 'reference-faulty'
    : path.basename(spec).replace(/\.ya?ml$/, '');
  return `${base}${i === 1 ? '-b' : ''}=${spec}`;
}

function readBaseline(file: string): KnownDifference[] {
  if (!existsSync(file)) throw new InputError(`--baseline ${file}`, 'no such file');
  const doc = parseYaml(readFileSync(file, 'utf8')) as { differences?: unknown } | null;
  const list = doc?.differences;
  if (
    !Array.isArray(list) ||
    list.some((d) => typeof d?.signature !== 'string' || typeof d?.reason !== 'string')
  ) {
    throw new InputError(`--baseline ${file}`, 'write differences: [{signature: "...", reason: "..."}]');
  }
  return list as KnownDifference[];
}

export async function diffCommand(argv: string[], out: NodeJS.WritableStream): Promise<number> {
  const { values: v, positionals } = parse('diff', argv, OPTIONS, true);
  if (v.help) {
    out.write(DIFF_HELP);
    return 0;
  }
  if (positionals.length !== 2)
    throw new InputError('diff', 'give two targets: edgecheck diff A B (see --help)');
  const specs = positionals.map(named);
  // Two bare specs of one kind would get one name.
  if (specs[0].split('=')[0] === specs[1].split('=')[0]) specs[1] = `b-${specs[1]}`;
  const targets = parseTargets(specs);
  const replay = v.replay ? /^(\d+):([\d:]+)$/.exec(v.replay) : undefined;
  if (v.replay && !replay)
    throw new InputError(`--replay ${v.replay}`, 'write SEED:PATH as a finding prints it');
  const asOf = date('--as-of', v['as-of']) ?? today();
  const headers = v.headers ?? 'named';
  if (headers !== 'named' && headers !== 'all')
    throw new InputError(`--headers ${headers}`, 'write --headers named or --headers all');
  const options = {
    runId: newRunId(),
    seed: int('--seed', v.seed, 0, 2 ** 31 - 1) ?? Math.floor(Math.random() * 2 ** 31),
    runs: int('--runs', v.runs, 1, 100_000) ?? 100,
    maxLength: int('--length', v.length, 1, 50) ?? 6,
    maxDifferences: int('--max-differences', v['max-differences'], 1, 1000) ?? 10,
    known: v.baseline ? readBaseline(v.baseline) : undefined,
    replay: replay ? { seed: Number(replay[1]), path: replay[2] } : undefined,
    timeoutMs: int('--timeout', v.timeout, 100, 3_600_000),
  };
  const started: { close(): Promise<void> }[] = [];
  try {
    const sides = (await Promise.all(targets.map((t) => sideOf(t, asOf, started)))) as [DiffSide, DiffSide];
    out.write(
      `edgecheck diff ${options.runId}: ${sides[0].name} vs ${sides[1].name}, seed ${options.seed}, ` +
        `up to ${options.runs} sequences of up to ${options.maxLength} commands per search\n\n`,
    );
    const needs: Record<Area, [(side: DiffSide) => unknown, string]> = {
      s3: [(side) => side.s3, 'an s3 section'],
      dns: [(side) => side.management?.zoneId, 'a management section with a zone id'],
      rulesets: [(side) => side.management?.accountId, 'a management section with an account id'],
    };
    const both = (a: Area) => sides.every((side) => needs[a][0](side));
    const areas: Area[] = v.area?.length
      ? [
          ...new Set(
            v.area.flatMap((a): Area[] => {
              if (a === 'management') return ['dns', 'rulesets'];
              if ((AREAS as readonly string[]).includes(a)) return [a as Area];
              throw new InputError(`--area ${a}`, 'use s3, dns, rulesets or management');
            }),
          ),
        ]
      : AREAS.filter(both);
    for (const a of areas) {
      if (!both(a)) throw new InputError(`--area ${a}`, `both targets need ${needs[a][1]}`);
    }
    if (!areas.length) {
      throw new InputError(
        'diff',
        'the two targets share no interface: give both an s3 or a management section',
      );
    }
    const reports: DiffReport[] = [];
    for (const a of areas) {
      try {
        const report = await runDiff(sides, options, MODELS[a](options.runId, headers));
        // A replay is of one model's sequence: the finding says which.
        reports.push({ ...report, findings: report.findings.map((f) => ({ ...f, area: a })) });
      } catch (err) {
        // A target that stops answering ends the search: said in one line, not as an internal error.
        if (!(err instanceof TargetError)) throw err;
        out.write(`edgecheck diff: a target stopped answering: ${redactText(err.message)}\n`);
        return 1;
      }
    }
    const amazon = amazonTags();
    const tagged = (f: Finding): Finding => {
      const own = Object.fromEntries(f.clauses.filter((c) => amazon.has(c)).map((c) => [c, amazon.get(c)!]));
      return Object.keys(own).length ? { ...f, amazon: own } : f;
    };
    const seen = new Set(reports.flatMap((r) => r.findings.map((f) => f.signature)));
    const report: DiffReport = {
      sides: reports[0].sides,
      sequences: reports.reduce((n, r) => n + r.sequences, 0),
      findings: reports.flatMap((r) => r.findings.map(tagged)),
      unseen: (options.known ?? []).filter((k) => !seen.has(k.signature)),
      leftovers: reports.flatMap((r) => r.leftovers),
      stopped: reports.find((r) => r.stopped)?.stopped,
    };
    out.write(redactText(render(report, argv)));
    if (v.json) await writeOutput(`${JSON.stringify(report, null, 2)}\n`, v.json);
    const fresh = report.findings.filter((f) => !f.known);
    return fresh.length || report.leftovers.length || report.stopped ? 1 : 0;
  } finally {
    await Promise.all(started.map((s) => s.close()));
  }
}

/** What Amazon S3 does, by clause, where SPEC departs from it (the catalog's `amazon`). */
function amazonTags(): Map<string, string> {
  const clauses = loadClauses(listAreas());
  return new Map(
    [...clauses.values()].flatMap((c) => (c.amazon === undefined ? [] : [[c.id, c.amazon.says] as const])),
  );
}

async function sideOf(
  t: NamedTarget,
  asOf: string,
  started: { close(): Promise<void> }[],
): Promise<DiffSide> {
  if (t.embedded) {
    const reference = await startReferenceWorker({ asOf, faults: t.embedded.faults });
    started.push(reference);
    const target = reference.target();
    return { name: t.name, s3: target.s3, management: target.management };
  }
  return { name: t.name, s3: t.target?.s3, management: t.target?.management };
}

function render(report: DiffReport, argv: string[]): string {
  const [a, b] = report.sides;
  const width = Math.max(a.length, b.length) + 1;
  const lines: string[] = [];
  const dropped = (x: string, i: number) =>
    /^--(replay|area)(=|$)/.test(x) || argv[i - 1] === '--replay' || argv[i - 1] === '--area';
  const base = argv.filter((x, i) => !dropped(x, i));
  report.findings.forEach((f, n) => {
    const label = f.clauses.length ? f.clauses.join(', ') : 'no clause';
    lines.push(
      `${n + 1}) ${f.known ? '(known) ' : ''}${f.difference.aspect} differs at command ${f.at + 1} of ${f.sequence.length} [${label}]`,
    );
    for (const [id, amazon] of Object.entries(f.amazon ?? {}))
      lines.push(`   SPEC departs from Amazon S3 in ${id}; Amazon S3: ${amazon}`);
    for (const [i, c] of f.sequence.entries()) lines.push(`     ${i + 1}. ${c}`);
    lines.push(`   ${`${a}:`.padEnd(width)} ${f.difference.a}`);
    lines.push(`   ${`${b}:`.padEnd(width)} ${f.difference.b}`);
    if (f.known) lines.push(`   known: ${f.known}`);
    if (f.path) {
      const area = f.area ? ` --area ${f.area}` : '';
      lines.push(`   replay: edgecheck diff ${base.join(' ')}${area} --replay ${f.seed}:${f.path}`);
    }
    lines.push(`   signature: ${f.signature}`, '');
  });
  for (const k of report.unseen) lines.push(`baseline entry not seen this time: ${k.signature}`);
  for (const l of report.leftovers) lines.push(`left on the target: ${l}`);
  if (report.stopped) lines.push(`the search ended early: ${report.stopped}`);
  const fresh = report.findings.filter((f) => !f.known);
  const noClause = fresh.filter((f) => !f.clauses.length).length;
  const departing = fresh.filter((f) => f.amazon).length;
  lines.push(
    `${fresh.length} ${fresh.length === 1 ? 'difference' : 'differences'}` +
      (noClause ? ` (${noClause} with no clause: candidates for new clauses)` : '') +
      (departing
        ? ` (${departing} where SPEC departs from Amazon S3: there a target may be doing as Amazon S3 does)`
        : '') +
      `, ${report.findings.length - fresh.length} known; ${report.sequences} sequences sent to both`,
  );
  return `${lines.join('\n')}\n`;
}
