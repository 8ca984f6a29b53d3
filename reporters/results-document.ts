import { existsSync, readFileSync } from 'node:fs';
import path, { basename } from 'node:path';
import type { Ajv, ValidateFunction } from 'ajv';
import type { RunResults } from '../runner/model/results.ts';
import { InputError } from '../runner/util/errors.ts';
import { jsonTooDeep, lineColumn, MAX_RESULTS_NESTING, readInputFile } from '../runner/util/input-file.ts';
import { onFirstUse } from '../runner/util/packages.ts';
import { SCHEMAS_DIR } from '../runner/util/paths.ts';

// Loaded when a document is read: a run imports this module for --failed, which most runs do not give.
const ajvPackage = onFirstUse<typeof import('ajv')>('ajv');
// ajv-formats is CommonJS: its callable is the module itself.
const addFormats = onFirstUse<(ajv: Ajv) => Ajv>('ajv-formats');

/** A results file that cannot be read or is not a results document; the message is one line. */
export class ResultsDocumentError extends InputError {
  override name = 'ResultsDocumentError';
}

let validator: ValidateFunction | undefined;

function validate(doc: unknown): string | undefined {
  if (!validator) {
    const schema = JSON.parse(readFileSync(path.join(SCHEMAS_DIR, 'results.schema.json'), 'utf8'));
    const ajv = new (ajvPackage().Ajv)({ allErrors: false, strict: true });
    addFormats()(ajv);
    validator = ajv.compile(schema);
  }
  if (validator(doc)) return undefined;
  const e = validator.errors?.[0];
  return e ? `${e.instancePath || '/'} ${e.message}` : 'invalid';
}

/** Reads a document written by `--reporter json=path`, checked against schemas/results.schema.json. */
export function readResultsDocument(path: string): RunResults {
  let text: string;
  try {
    text = readInputFile(path, 'results', path);
  } catch (err) {
    if (err instanceof InputError) throw new ResultsDocumentError(err.where, err.what);
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (code ?? 'unreadable');
    throw new ResultsDocumentError(path, `${why}; give a file written by --reporter json=PATH`);
  }
  const deep = jsonTooDeep(text, MAX_RESULTS_NESTING);
  if (deep !== undefined) {
    const { line, col } = lineColumn(text, deep);
    throw new ResultsDocumentError(
      `${path}:${line}:${col}`,
      `nested more than ${MAX_RESULTS_NESTING} levels deep; give a file written by --reporter json=PATH`,
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ResultsDocumentError(path, `not JSON (${(err as Error).message.split('\n')[0]})`);
  }
  const problem = validate(doc);
  if (problem) {
    throw new ResultsDocumentError(
      path,
      `not an edgecheck results document (${problem}); write one with --reporter json=PATH`,
    );
  }
  return doc as RunResults;
}

/**
 * Documents labelled for compare. `label=path` names a column; otherwise the label is the
 * target name, or the file name where two runs share a target name (two builds both called
 * "staging", the same target on two dates).
 */
export function readForCompare(args: string[]): { label: string; results: RunResults }[] {
  const docs = args.map((arg) => {
    const named = /^([^=/\\]+)=(.+)$/.exec(arg);
    // A file whose name holds '=' still reads as a path.
    const [label, path] = named && !existsSync(arg) ? [named[1], named[2]] : [undefined, arg];
    return { label, path, results: readResultsDocument(path) };
  });
  const names = docs.map((d) => d.results.target.name);
  return docs.map((d, i) => {
    const shared = names.filter((n) => n === names[i]).length > 1;
    const label = d.label ?? (shared ? basename(d.path).replace(/\.json$/, '') : names[i]);
    return { label, results: d.results };
  });
}
