import type { Clause } from '../model/clause.ts';
import type {
  BaselineDiff,
  CaseResult,
  ClauseResult,
  MergedRun,
  RunResults,
  RunSelection,
} from '../model/results.ts';
import { InputError } from '../util/errors.ts';
import { clauseResults, summarize } from './aggregate.ts';
import { joinAmazonMatch } from './amazon.ts';
import { exitCodeOf } from './exit-code.ts';

/** Documents that cannot be joined into one run; the message is one line. */
export class MergeInputError extends InputError {
  override name = 'MergeInputError';
}

export interface LabelledResults {
  /** How messages name the document (its path). */
  label: string;
  results: RunResults;
}

function refuse(what: string): never {
  throw new MergeInputError('merge', what);
}

function selectionText(s: RunSelection): string {
  const flags = [
    ...[...s.suites].sort().map((v) => `--suite ${v}`),
    ...(s.cases ?? []).map((v) => `--case ${v}`),
    ...(s.clauses ?? []).map((v) => `--clause ${v}`),
    ...(s.tags ?? []).map((v) => `--tag ${v}`),
    ...(s.readOnly ? ['--read-only'] : []),
  ];
  return flags.join(' ');
}

const list = (values: readonly string[] | undefined) => [...(values ?? [])].sort().join(', ') || 'none';

/** Refuses when a setting differs between documents: `different WHAT: a.json X, b.json Y`. */
function same(docs: LabelledResults[], what: string, value: (r: RunResults) => string, hint: string): void {
  const first = value(docs[0].results);
  const other = docs.find((d) => value(d.results) !== first);
  if (other) {
    refuse(`different ${what}: ${docs[0].label} ${first}, ${other.label} ${value(other.results)}; ${hint}`);
  }
}

/** `i/n` as numbers. */
function shardOf(text: string): [number, number] {
  const [i, n] = text.split('/').map(Number);
  return [i, n];
}

/**
 * The cases in the order one unsharded run lists them: shard i of n holds the items numbered
 * i-1, i-1+n, ... of the whole selection, in that order, so taking one from each shard in turn
 * restores the numbering. Runs that are not shards keep the order given.
 */
function caseOrder(docs: LabelledResults[]): CaseResult[] {
  if (docs.some((d) => !d.results.selection?.shard)) return docs.flatMap((d) => d.results.cases);
  const n = shardOf(docs[0].results.selection!.shard!)[1];
  const byIndex = new Map(docs.map((d) => [shardOf(d.results.selection!.shard!)[0] - 1, d.results.cases]));
  const longest = Math.max(...docs.map((d) => d.results.cases.length));
  const out: CaseResult[] = [];
  // Item k of the whole run is item floor(k / n) of shard k mod n.
  for (let p = 0; p < longest; p++) {
    for (let i = 0; i < n; i++) {
      const item = byIndex.get(i)?.[p];
      if (item) out.push(item);
    }
  }
  return out;
}

/**
 * A clause failing or erroring in the merge did so in the shard whose verdict it takes, and that
 * shard classified it against the baseline; a passing clause is fixed if a shard that judged it
 * (and so passed it) says so.
 */
function mergeBaseline(docs: LabelledResults[], clauses: ClauseResult[]): BaselineDiff | undefined {
  const withBaseline = docs.filter((d) => d.results.baseline);
  if (!withBaseline.length) return undefined;
  const without = docs.find((d) => !d.results.baseline);
  if (without) {
    refuse(
      `${withBaseline[0].label} was run with --baseline and ${without.label} without; run every shard alike`,
    );
  }
  same(docs, 'baselines', (r) => r.baseline!.file, 'run every shard with the same --baseline');
  const diff: BaselineDiff = {
    file: docs[0].results.baseline!.file,
    newFailures: [],
    fixed: [],
    expected: [],
  };
  for (const clause of clauses) {
    if (clause.verdict === 'fail' || clause.verdict === 'error') {
      const judged = docs.find(
        (d) => d.results.clauses.find((c) => c.id === clause.id)?.verdict === clause.verdict,
      );
      if (judged?.results.baseline?.expected.includes(clause.id)) diff.expected.push(clause.id);
      else diff.newFailures.push(clause.id);
    } else if (clause.verdict === 'pass' && docs.some((d) => d.results.baseline!.fixed.includes(clause.id))) {
      diff.fixed.push(clause.id);
    }
  }
  return diff;
}

/**
 * Joins the results of the shards of one run (`--shard I/N`, or runs of disjoint cases with the
 * same settings) into one document of the same schema. Clause verdicts are computed again from
 * every check: a clause's verdict comes from the checks citing it in every shard, so one a
 * shard left untested is judged by the shard that tested it. Refuses (MergeInputError) documents
 * of different runs: another date, selection, profile, target or baseline, the same case twice, or
 * some but not all shards of one --shard I/N.
 */
export function mergeResults(docs: LabelledResults[]): RunResults {
  refuseOtherRuns(docs);
  const first = docs[0].results;
  const cases = caseOrder(docs);
  const clauses = mergedClauses(docs, cases);
  const baseline = mergeBaseline(docs, clauses);
  const leftovers = docs.flatMap((d) => d.results.leftovers);
  const interrupted = docs.some((d) => d.results.interrupted);
  const exitCode = exitCodeOf({
    bySignal: docs.some((d) => d.results.exitCode === 130),
    interrupted,
    leftovers: leftovers.length,
    failing: clauses.some((c) => c.verdict === 'fail' || c.verdict === 'error'),
    baseline,
  });
  const starts = docs.map((d) => Date.parse(d.results.startedAt));
  const ends = docs.map((d, i) => starts[i] + d.results.durationMs);
  const runs: MergedRun[] = docs.map((d) => ({
    runId: d.results.runId,
    shard: d.results.selection!.shard,
    seed: d.results.seed,
    startedAt: d.results.startedAt,
    durationMs: d.results.durationMs,
  }));
  const requests = totalRequests(docs);
  const urls = (key: 'management' | 's3') =>
    docs.every((d) => d.results.target[key] === first.target[key]) ? first.target[key] : undefined;
  const { shard: _shard, ...selection } = first.selection!;
  return {
    edgecheck: first.edgecheck,
    runId: docs.map((d) => d.results.runId).join('+'),
    target: {
      name: first.target.name,
      // Each shard's embedded reference listened on its own port: a URL is kept only if shared.
      management: urls('management'),
      s3: urls('s3'),
      embedded: first.target.embedded,
      faults: first.target.faults,
      features: first.target.features,
    },
    asOf: first.asOf,
    profile: first.profile,
    // Property failures name their own seed; each run's is in mergedFrom.
    seed: first.seed,
    selection,
    mergedFrom: runs,
    startedAt: new Date(Math.min(...starts)).toISOString(),
    durationMs: Math.max(...ends) - Math.min(...starts),
    summary: summarize(clauses, cases),
    clauses,
    cases,
    baseline,
    requests,
    leftovers,
    interrupted,
    stoppedBy: docs.find((d) => d.results.stoppedBy)?.results.stoppedBy,
    exitCode,
  };
}

/**
 * Refuses (MergeInputError) documents that are not shards of one run: another edgecheck, date,
 * selection, profile, target, faults or features; some but not all shards of one --shard I/N; the
 * same case twice.
 */
function refuseOtherRuns(docs: LabelledResults[]): void {
  if (!docs.length) refuse('give the JSON results of one or more shards');
  for (const d of docs) {
    if (!d.results.selection || !d.results.target.features) {
      refuse(
        `${d.label} does not say what its run selected (a run cut short, or an edgecheck before merge); run it again`,
      );
    }
  }
  same(docs, 'edgecheck versions', (r) => r.edgecheck, 'run every shard with the same edgecheck');
  same(docs, 'as-of dates', (r) => r.asOf, 'run every shard with the same --as-of');
  same(
    docs,
    'suites selection',
    (r) => `'${selectionText(r.selection!)}'`,
    'shards of one run differ only in --shard',
  );
  same(docs, 'profiles', (r) => r.profile, 'run every shard with the same --profile');
  same(docs, 'targets', (r) => r.target.name, 'merge shards run against one target');
  same(docs, 'faults', (r) => `(${list(r.target.faults)})`, 'run every shard with the same --fault');
  same(docs, 'target features', (r) => `(${list(r.target.features)})`, 'give every shard the same features');
  const sharded = docs.filter((d) => d.results.selection!.shard);
  if (sharded.length) {
    const plain = docs.find((d) => !d.results.selection!.shard);
    if (plain) refuse(`${plain.label} is not a shard, ${sharded[0].label} is; merge the shards of one run`);
    same(
      docs,
      'shard counts',
      (r) => `--shard ${r.selection!.shard}`.replace(/ \d+\//, ' I/'),
      'merge the shards of one --shard I/N',
    );
    const seen = new Map<string, string>();
    for (const d of docs) {
      const shard = d.results.selection!.shard!;
      const twice = seen.get(shard);
      if (twice) refuse(`overlapping cases: shard ${shard} is both ${twice} and ${d.label}`);
      seen.set(shard, d.label);
    }
    // A shard that did not finish would leave the clauses only it judges untested: not a pass.
    const n = shardOf(docs[0].results.selection!.shard!)[1];
    const missing = Array.from({ length: n }, (_, i) => `${i + 1}/${n}`).filter((k) => !seen.has(k));
    if (missing.length) refuse(`missing shards: ${missing.join(', ')}; merge every shard of the run`);
  }
  const owner = new Map<string, string>();
  for (const d of docs) {
    for (const c of d.results.cases) {
      const other = owner.get(c.id);
      if (other) refuse(`overlapping cases: ${c.id} is in both ${other} and ${d.label}`);
      owner.set(c.id, d.label);
    }
  }
}

/** Every clause of the documents, judged again from the checks of every shard's cases. */
function mergedClauses(docs: LabelledResults[], cases: CaseResult[]): ClauseResult[] {
  const definitions = new Map<string, Clause>();
  for (const d of docs) {
    for (const c of d.results.clauses) {
      if (!definitions.has(c.id)) {
        const { verdict: _v, checks: _c, message: _m, amazon, amazonMatch: _a, ...definition } = c;
        // A document keeps what Amazon S3 does in words only.
        definitions.set(c.id, {
          ...definition,
          ...(amazon === undefined ? {} : { amazon: { says: amazon } }),
          origin: c.id,
        });
      }
    }
  }
  // A document keeps Amazon S3's answer only as each shard compared its own failing checks with it.
  return clauseResults(
    [...definitions.values()],
    cases,
    docs[0].results.asOf,
    docs[0].results.target.features ?? [],
  ).map((c) => {
    if (c.verdict !== 'fail' && c.verdict !== 'error') return c;
    const match = joinAmazonMatch(
      docs.map((d) => d.results.clauses.find((k) => k.id === c.id && k.verdict === c.verdict)?.amazonMatch),
    );
    return match === undefined ? c : { ...c, amazonMatch: match };
  });
}

/** The requests of every shard added up; none when a shard did not count them. */
function totalRequests(docs: LabelledResults[]): RunResults['requests'] {
  return docs.every((d) => d.results.requests)
    ? docs.reduce(
        (sum, d) => {
          const r = d.results.requests!;
          return {
            total: sum.total + r.total,
            management: sum.management + r.management,
            s3: sum.s3 + r.s3,
            retried: sum.retried + r.retried,
            throttled: sum.throttled + r.throttled,
          };
        },
        { total: 0, management: 0, s3: 0, retried: 0, throttled: 0 },
      )
    : undefined;
}
