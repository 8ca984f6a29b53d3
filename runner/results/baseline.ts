import { existsSync } from 'node:fs';
import { readYaml } from '../load/yaml-source.ts';
import type { BaselineDiff, ClauseResult } from '../model/results.ts';
import { InputError } from '../util/errors.ts';
import { displayPath } from '../util/paths.ts';

/**
 * A per-target list of known failures (`clauses: {id: {verdict, reason}}`). As in test262's
 * expectation files, an expected failure counts only if it fails the same way; a listed
 * clause that now passes is reported too, so the baseline is kept true.
 */
export interface Baseline {
  target?: string;
  clauses: Record<string, { verdict: 'fail' | 'error'; reason: string }>;
}

export function loadBaseline(file: string): Baseline {
  if (!existsSync(file)) throw new InputError(`--baseline ${file}`, 'no such file');
  const src = readYaml(file, 'baseline');
  const doc = src.value as Partial<Baseline> | null;
  if (!doc || typeof doc !== 'object' || !doc.clauses || typeof doc.clauses !== 'object') {
    throw new InputError(
      src.where([]),
      'a baseline has `clauses: { <clause id>: { verdict: fail|error, reason } }`',
    );
  }
  for (const [id, entry] of Object.entries(doc.clauses)) {
    if (
      !entry ||
      (entry.verdict !== 'fail' && entry.verdict !== 'error') ||
      typeof entry.reason !== 'string'
    ) {
      throw new InputError(
        src.where(['clauses', id]),
        `clause ${id}: give verdict fail|error and a one-line reason`,
      );
    }
  }
  return doc as Baseline;
}

export function compareBaseline(file: string, baseline: Baseline, clauses: ClauseResult[]): BaselineDiff {
  const diff: BaselineDiff = { file: displayPath(file), newFailures: [], fixed: [], expected: [] };
  for (const c of clauses) {
    const known = baseline.clauses[c.id];
    const bad = c.verdict === 'fail' || c.verdict === 'error';
    if (bad && known?.verdict === c.verdict) diff.expected.push(c.id);
    else if (bad) diff.newFailures.push(c.id);
    // Only a pass shows the known failure is gone; blocked or skipped says nothing either way.
    else if (known && c.verdict === 'pass') diff.fixed.push(c.id);
  }
  return diff;
}
