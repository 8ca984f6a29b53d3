import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { InputError } from './errors.ts';
import { displayPath } from './paths.ts';
import { formatBytes } from './size.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * What each kind of file edgecheck reads may weigh (README, "Gating releases in CI"), and what
 * to do about one that weighs more. The suites' own files weigh at most a few dozen KiB. The
 * YAML parser needs up to a few seconds and 300 MB for the worst 512 KiB (a flat list of
 * one-character items); JSON.parse about as much for the worst 32 MiB.
 */
export const INPUT_LIMITS = {
  case: { bytes: 512 * KiB, kind: 'a case file', fix: 'split its cases across several files' },
  clauses: { bytes: 512 * KiB, kind: 'a clauses file', fix: 'check that it holds the clauses of one area' },
  sections: {
    bytes: 512 * KiB,
    kind: 'a sections file',
    fix: 'check that it holds the SPEC sections of one area',
  },
  config: { bytes: 512 * KiB, kind: 'a config file', fix: 'check that --config names the target config' },
  baseline: { bytes: 512 * KiB, kind: 'a baseline', fix: 'check that --baseline names the right file' },
  results: {
    bytes: 32 * MiB,
    kind: 'a results document',
    fix: 'give a file written by --reporter json=PATH',
  },
  secret: {
    bytes: 64 * KiB,
    kind: 'a secret file',
    fix: 'name a file that holds only the token or key',
  },
} as const;

export type InputKind = keyof typeof INPUT_LIMITS;

/** Nesting deeper than this is refused in YAML input: the suites' files nest 7 deep. */
export const MAX_NESTING = 64;

/** Results documents carry what targets answered, which may nest deeper than anything written by hand. */
export const MAX_RESULTS_NESTING = 1000;

/**
 * Reads a file the user named, as UTF-8. A regular file over its kind's cap is refused from its
 * size alone, before any of it is read; a pipe or device is read only up to the cap.
 * File-system errors (ENOENT, EISDIR...) are thrown as they come, for the caller to word.
 */
export function readInputFile(file: string, kind: InputKind, shown = displayPath(file)): string {
  const limit = INPUT_LIMITS[kind];
  const tooBig = (size: string) =>
    new InputError(
      shown,
      `${size}, over the ${formatBytes(limit.bytes)} allowed for ${limit.kind}; ${limit.fix}`,
    );
  const fd = openSync(file, 'r');
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() && stat.size > limit.bytes) throw tooBig(formatBytes(stat.size));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      // One byte past the cap tells a file that grew (or a device that never ends) from one that fits.
      const chunk = Buffer.allocUnsafe(Math.min(256 * KiB, limit.bytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
      if (total > limit.bytes) throw tooBig(`more than ${formatBytes(limit.bytes)}`);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The offset in JSON text where nesting first goes deeper than `max`, if it does. JSON.parse
 * itself copes with any depth, but the validators and walkers after it recurse.
 */
export function jsonTooDeep(text: string, max: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return i;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return undefined;
}

/** 1-based line and column of an offset in text. */
export function lineColumn(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}
