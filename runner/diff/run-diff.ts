import fc from 'fast-check';
import type { HttpRequest } from '../model/case.ts';
import type { S3Target } from '../model/target.ts';
import { createAgent } from '../transports/agent.ts';
import { sendHttp } from '../transports/http.ts';
import { bufferBody, StepResponse } from '../transports/response.ts';
import { buildS3Request } from '../transports/s3-raw.ts';
import { TargetError } from '../util/errors.ts';
import { type Difference, differences, type Normalized, normalize } from './normalize.ts';
import { clausesFor } from './s3-clauses.ts';
import { describeCommand, type Etags, KEYS, requestsFor, type S3Command, s3Command } from './s3-commands.ts';

export interface DiffSide {
  name: string;
  s3: S3Target;
}

/** A difference already known (a baseline entry): reported as such, not as a finding. */
export interface KnownDifference {
  signature: string;
  reason: string;
}

export interface DiffOptions {
  runId: string;
  seed: number;
  /** Sequences tried per search for a new difference. */
  runs: number;
  /** The most commands in one sequence. */
  maxLength: number;
  /** Stop after this many distinct differences. */
  maxDifferences: number;
  known?: KnownDifference[];
  /** Replays one counterexample: fast-check's seed and path, as a finding prints them. */
  replay?: { seed: number; path: string };
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** One distinct difference: the shortest sequence found that shows it, and both answers. */
export interface Finding {
  /** Command, aspect and deciding clauses: how findings are told apart and matched to a baseline. */
  signature: string;
  sequence: string[];
  /** Index in `sequence` of the command answered differently. */
  at: number;
  difference: Difference;
  /** The clauses that decide the command's answer; empty: no clause does. */
  clauses: string[];
  answers: [Normalized, Normalized];
  seed: number;
  path: string;
  /** Set when a baseline lists it. */
  known?: string;
}

export interface DiffReport {
  sides: [string, string];
  sequences: number;
  findings: Finding[];
  /** Baseline entries that no sequence showed this time. */
  unseen: KnownDifference[];
  /** What could not be removed from a target, with the command that removes it. */
  leftovers: string[];
  /** Set when a target stopped answering and the search ended early. */
  stopped?: string;
}

interface Shown {
  at: number;
  difference: Difference;
  clauses: string[];
  signature: string;
  answers: [Normalized, Normalized];
}

/**
 * Differential mode: sequences of S3 commands generated from a model (s3-commands.ts), sent to
 * two targets in lockstep under a fresh key prefix each, every answer compared after
 * normalisation (normalize.ts). fast-check shrinks a sequence that shows a difference to the
 * shortest it finds; then the search starts again with that difference set aside, until no new
 * one appears in `runs` sequences or `maxDifferences` are found.
 */
export async function runDiff(sides: [DiffSide, DiffSide], options: DiffOptions): Promise<DiffReport> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const signal = options.signal ?? new AbortController().signal;
  const agent = createAgent(8, timeoutMs);
  const bucket = `ec-${options.runId}-diff`;
  const known = new Map((options.known ?? []).map((k) => [k.signature, k.reason]));
  const setAside = new Set<string>();
  const findings: Finding[] = [];
  const leftovers: string[] = [];
  let sequences = 0;

  const send = async (side: DiffSide, http: HttpRequest): Promise<StepResponse> =>
    sendHttp(agent, await buildS3Request(side.s3, http), { signal, timeoutMs, door: 's3' });
  /** A side that refuses connections: the search stops there, keeping what it found. */
  let down: string | undefined;
  /** A request of a sequence: a connection the target closes or a timeout is its answer (status 0). */
  const ask = async (side: DiffSide, http: HttpRequest): Promise<StepResponse> => {
    if (down) throw new TargetError(down);
    return send(side, http).catch((err: unknown) => {
      if (!(err instanceof TargetError) || signal.aborted) throw err;
      if (/ECONNREFUSED/.test(err.message)) {
        down = `${side.name} stopped answering (${err.message})`;
        throw new TargetError(down);
      }
      return new StepResponse(0, {}, bufferBody(Buffer.from(`(no answer: ${err.message})`)));
    });
  };

  /** Runs the sequence on both sides; the first difference not set aside, with the ones a baseline knows. */
  const runSequence = async (cmds: S3Command[]): Promise<{ shown?: Shown; knownSeen: Shown[] }> => {
    const prefix = `s${sequences++}/`;
    const etags: [Etags, Etags] = [new Map(), new Map()];
    const uploads: [string[], string[]] = [[], []];
    const knownSeen: Shown[] = [];
    try {
      for (let i = 0; i < cmds.length; i++) {
        const cmd = cmds[i];
        const answers = await Promise.all(
          sides.map((side, s) => perform(side, cmd, prefix, etags[s], uploads[s])),
        );
        for (let step = 0; step < Math.max(answers[0].length, answers[1].length); step++) {
          const a = answers[0][step];
          const b = answers[1][step];
          const method = cmd.op === 'head' ? 'HEAD' : 'GET';
          const pair: [Normalized, Normalized] = [
            a ? normalize(a, method) : missing(),
            b ? normalize(b, method) : missing(),
          ];
          for (const difference of differences(pair[0], pair[1])) {
            const clauses = clausesFor(cmd, difference);
            const signature = signatureOf(cmd, difference);
            const shown = { at: i, difference, clauses, signature, answers: pair };
            if (known.has(signature)) knownSeen.push(shown);
            else if (!setAside.has(signature)) return { shown, knownSeen };
          }
        }
      }
      return { knownSeen };
    } finally {
      await Promise.all(sides.map((side, s) => clearPrefix(side, prefix, uploads[s])));
    }
  };

  const perform = async (
    side: DiffSide,
    cmd: S3Command,
    prefix: string,
    etags: Etags,
    uploads: string[],
  ): Promise<StepResponse[]> => {
    const [first] = requestsFor(cmd, bucket, prefix, etags);
    const res = await ask(side, first);
    const out = [res];
    if (cmd.op === 'put' && res.status === 200 && res.headers.etag) etags.set(cmd.key, res.headers.etag);
    if (cmd.op === 'delete' && res.status < 300) etags.delete(cmd.key);
    if (cmd.op === 'copy' && res.status === 200) {
      const etag = /<ETag>([^<]+)<\/ETag>/.exec(res.text())?.[1]?.replace(/&quot;/g, '"');
      if (etag) etags.set(cmd.to, etag);
    }
    if (cmd.op === 'multipart' && res.status === 200) {
      const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(res.text())?.[1];
      if (!uploadId) return out;
      uploads.push(uploadId);
      const key = `${prefix}${cmd.key}`;
      const part = await ask(side, {
        method: 'PUT',
        bucket,
        key,
        query: { partNumber: '1', uploadId },
        body: cmd.body,
      });
      out.push(part);
      if (part.status !== 200) return out;
      const complete = await ask(side, {
        method: 'POST',
        bucket,
        key,
        query: { uploadId },
        body: `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${part.headers.etag ?? ''}</ETag></Part></CompleteMultipartUpload>`,
      });
      out.push(complete);
      const etag = /<ETag>([^<]+)<\/ETag>/.exec(complete.text())?.[1]?.replace(/&quot;/g, '"');
      if (complete.status === 200 && etag) etags.set(cmd.key, etag);
    }
    return out;
  };

  /** A sequence's keys and uploads removed, so that the next one starts from nothing. */
  const clearPrefix = async (side: DiffSide, prefix: string, uploads: string[]): Promise<void> => {
    await Promise.all(KEYS.map((k) => ask(side, { method: 'DELETE', bucket, key: `${prefix}${k}` })));
    for (const uploadId of uploads) {
      for (const k of KEYS) {
        await ask(side, { method: 'DELETE', bucket, key: `${prefix}${k}`, query: { uploadId } });
      }
    }
  };

  const knownAt = new Map<string, Finding>();
  const record = (cmds: S3Command[], shown: Shown, seed: number, path: string, reason?: string): Finding => ({
    signature: shown.signature,
    sequence: cmds.slice(0, shown.at + 1).map(describeCommand),
    at: shown.at,
    difference: shown.difference,
    clauses: shown.clauses,
    answers: shown.answers,
    seed,
    path,
    known: reason,
  });
  let currentSeed = options.seed;
  const property = fc.asyncProperty(
    fc.array(s3Command, { minLength: 1, maxLength: options.maxLength }),
    async (cmds) => {
      const { shown, knownSeen } = await runSequence(cmds);
      // A known difference is reported once, with the sequence that first showed it (not shrunk).
      for (const k of knownSeen) {
        if (!knownAt.has(k.signature))
          knownAt.set(k.signature, record(cmds, k, currentSeed, '', known.get(k.signature)));
      }
      return shown === undefined;
    },
  );

  try {
    for (const side of sides) {
      const made = await send(side, { method: 'PUT', bucket });
      if (made.status !== 200) {
        throw new TargetError(`${side.name}: could not create bucket ${bucket} (status ${made.status})`);
      }
    }
    for (let round = 0; round < options.maxDifferences; round++) {
      const seed = options.replay?.seed ?? options.seed + round;
      currentSeed = seed;
      const details = await fc.check(property, {
        seed,
        numRuns: options.replay ? 1 : options.runs,
        ...(options.replay ? { path: options.replay.path } : {}),
      });
      if (!details.failed || !details.counterexample) break;
      if (down) break;
      const [cmds] = details.counterexample;
      // The shrunk sequence once more, to keep what it shows (fast-check keeps only the input).
      const again = await runSequence(cmds).catch((err: unknown) => {
        if (down) return { shown: undefined, knownSeen: [] };
        throw err;
      });
      if (!again.shown) continue;
      setAside.add(again.shown.signature);
      findings.push(record(cmds, again.shown, seed, details.counterexamplePath ?? ''));
      if (options.replay) break;
    }
    findings.push(...knownAt.values());
    const seen = new Set(findings.map((f) => f.signature));
    return {
      sides: [sides[0].name, sides[1].name],
      sequences,
      findings,
      unseen: (options.known ?? []).filter((k) => !seen.has(k.signature)),
      leftovers,
      stopped: down,
    };
  } finally {
    for (const side of sides) {
      if (down?.startsWith(`${side.name} `)) {
        leftovers.push(
          `${side.name}: bucket ${bucket} may remain (the target stopped answering); remove it with: aws s3 rb s3://${bucket} --force --endpoint-url ${side.s3.endpoint}`,
        );
        continue;
      }
      const gone = await send(side, { method: 'DELETE', bucket }).catch((err: Error) => err);
      if (gone instanceof Error || (gone.status >= 300 && gone.status !== 404)) {
        leftovers.push(
          `${side.name}: bucket ${bucket} (${gone instanceof Error ? gone.message : `DELETE answered ${gone.status}`}); remove it with: aws s3 rb s3://${bucket} --force --endpoint-url ${side.s3.endpoint}`,
        );
      }
    }
    await agent.close();
  }
}

function missing(): Normalized {
  return { status: 0, headers: {}, body: ['(not sent: an earlier request of the command failed)'] };
}

/**
 * What tells one difference from another: the command, where it differs and, for a status, the two
 * statuses; for a body, the elements that differ (their values aside). The same departure seen
 * through other commands' options is then one finding.
 */
export function signatureOf(cmd: S3Command, d: Difference): string {
  if (d.aspect === 'status') return `${cmd.op} status ${d.a} / ${d.b}`;
  if (d.aspect !== 'body') return `${cmd.op} ${d.aspect}`;
  const paths = new Set(
    `${d.a}; ${d.b}`
      .split(/; (?=\/|\()/)
      .map((l) => l.replace(/=.*$/, ''))
      .filter((l) => l.startsWith('/')),
  );
  return `${cmd.op} body ${[...paths].sort().join(' ')}`;
}
