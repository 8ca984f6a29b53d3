import { generatedDigest } from '../data/generate.ts';
import type { BodyExpect, CheckDef } from '../model/case.ts';
import { schemas } from '../schema/registry.ts';
import type { StepResponse } from '../transports/response.ts';
import { CheckFailure, errorMessage, TargetError } from '../util/errors.ts';
import { parseSize } from '../util/size.ts';
import { getPointer, whatIsThereJson } from './pointer.ts';
import { ABSENT, type Mismatch, match } from './value.ts';
import { getXmlPath, whatIsThere } from './xml.ts';

function failWith(what: string, m: Mismatch, key: readonly string[]): never {
  const where = m.at ? ` at ${m.at}` : '';
  throw new CheckFailure(`${what}${where}: ${m.message}`, m.expected, m.actual, key);
}

/**
 * Judges one check against a response. Returns normally when every matcher holds; throws
 * CheckFailure (fail) or TargetError (the answer could not be read: error).
 */
export function evaluateCheck(check: CheckDef, res: StepResponse): void {
  if (check.status !== undefined) {
    const m = match(check.status, res.status);
    if (m)
      // The whole expectation, not the one operator that missed: the message names it, so it is shown once.
      failWith(
        'status',
        {
          ...m,
          expected: check.status,
          actual: res.status,
          message: `expected ${JSON.stringify(check.status)}, got ${res.status}`,
        },
        ['status'],
      );
  }
  for (const [name, want] of Object.entries(check.headers ?? {})) {
    const key = name.toLowerCase();
    const have = Object.hasOwn(res.headers, key) ? res.headers[key] : ABSENT;
    const m = match(typeof want === 'number' ? String(want) : want, have);
    if (m) failWith(`header ${key}`, m, ['headers', name]);
  }
  if (check.error !== undefined) checkError(check.error, res);
  for (const [pointer, want] of Object.entries(check.output ?? {})) {
    if (!res.output)
      throw new CheckFailure(`output: the command failed: ${res.describe()}`, undefined, undefined, [
        'output',
        pointer,
      ]);
    const have = getPointer(res.output, pointer);
    const m = match(want, have, pointer);
    if (m) {
      // What the SDK made of an answer it found nothing in: another operation's document, say.
      const there = have === ABSENT && res.root ? ` (the answer is <${res.root}>)` : '';
      failWith('output', { ...m, message: `${m.message}${there}` }, ['output', pointer]);
    }
  }
  if (check.schema !== undefined || check.json !== undefined) {
    const body = res.json();
    if (check.schema !== undefined) {
      const problem = schemas().check(check.schema, body);
      if (problem)
        throw new CheckFailure(`body does not match ${check.schema}: ${problem}`, check.schema, body, [
          'schema',
        ]);
    }
    for (const [pointer, want] of Object.entries(check.json ?? {})) {
      const m = match(want, getPointer(body, pointer), pointer);
      if (!m) continue;
      // Where the value sought is missing (here or deeper in a subset), what the answer held instead.
      const at = m.at || pointer;
      const there = whatIsThereJson(body, at);
      failWith('json', { ...m, message: there ? `${m.message}: ${there}` : m.message }, ['json', pointer]);
    }
  }
  if (check.xml !== undefined) {
    // An empty body holds no element: a path into it finds nothing, as the target sent it.
    const doc = res.body.size === 0 ? {} : res.xml();
    for (const [path, want] of Object.entries(check.xml)) {
      const have = getXmlPath(doc, path);
      const m = match(want, have, path);
      if (!m) continue;
      const there = have === ABSENT ? whatIsThere(doc, path) : undefined;
      failWith('xml', { ...m, at: path, message: there ? `${m.message}: ${there}` : m.message }, [
        'xml',
        path,
      ]);
    }
  }
  if (check.body) checkBody(check.body, res);
}

/**
 * Why the answer lacks what the check needs in order to be judged (its `requires`), or undefined.
 * Another clause's statement, or something to read, is no verdict of this check's clauses: the
 * check is blocked.
 */
export function preconditionUnmet(check: CheckDef, res: StepResponse): string | undefined {
  if (!check.requires) return undefined;
  try {
    evaluateCheck({ ...check.requires, clauses: check.clauses, origin: check.origin }, res);
    return undefined;
  } catch (err) {
    if (err instanceof CheckFailure || err instanceof TargetError)
      return `not judged: the answer lacks what the check needs (${errorMessage(err)})`;
    throw err;
  }
}

/**
 * `error:` judges the target's own <Code> (an SDK step's error name is the code the target sent,
 * empty when it sent none), and a mismatch says what the target answered.
 */
function checkError(want: unknown, res: StepResponse): void {
  const code = res.error ? res.error.name : ABSENT;
  const m = match(want, code);
  if (!m) return;
  const said = res.error?.message ? `${res.status}: ${res.error.message}` : `${res.status}, no message`;
  const message =
    code === ''
      ? `expected ${JSON.stringify(want)}, but the answer has no error code (${res.describe()})`
      : res.error
        ? `${m.message} (${said})`
        : m.message;
  failWith('error', { ...m, message }, ['error']);
}

function checkBody(want: BodyExpect, res: StepResponse): void {
  const b = res.body;
  const preview = () => JSON.stringify(res.text().slice(0, 80));
  if (want.empty !== undefined && (b.size === 0) !== want.empty) {
    throw new CheckFailure(
      want.empty ? `body: expected empty, got ${b.size} bytes` : 'body: expected content, got none',
      undefined,
      undefined,
      ['body', 'empty'],
    );
  }
  if (want.size !== undefined) {
    const size = parseSize(want.size, 'body.size');
    if (b.size !== size)
      throw new CheckFailure(`body: expected ${size} bytes, got ${b.size}`, size, b.size, ['body', 'size']);
  }
  if (want.equals !== undefined) {
    if (b.truncated || res.text() !== want.equals) {
      throw new CheckFailure(
        `body: expected ${JSON.stringify(want.equals)}, got ${preview()}`,
        want.equals,
        res.text(),
        ['body', 'equals'],
      );
    }
  }
  if (want.contains !== undefined && !res.text().includes(want.contains)) {
    throw new CheckFailure(
      `body: expected to contain ${JSON.stringify(want.contains)}, got ${preview()}`,
      undefined,
      undefined,
      ['body', 'contains'],
    );
  }
  if (want.sha256 !== undefined && b.sha256 !== want.sha256.toLowerCase()) {
    throw new CheckFailure(`body: sha256 ${b.sha256}, expected ${want.sha256}`, undefined, undefined, [
      'body',
      'sha256',
    ]);
  }
  if (want.md5 !== undefined && b.md5 !== want.md5.toLowerCase()) {
    throw new CheckFailure(`body: md5 ${b.md5}, expected ${want.md5}`, undefined, undefined, ['body', 'md5']);
  }
  if (want.generated) {
    const size = parseSize(want.generated.size, 'body.generated.size');
    const [first, last] = want.generated.range ?? [0, size - 1];
    const length = Math.max(0, last - first + 1);
    if (b.size !== length) {
      throw new CheckFailure(
        `body: expected bytes ${first}-${last} (${length} bytes), got ${b.size} bytes`,
        length,
        b.size,
        ['body', 'generated'],
      );
    }
    if (b.sha256 !== generatedDigest('sha256', want.generated.seed, first, last + 1)) {
      throw new CheckFailure(
        `body: ${b.size} bytes, but not bytes ${first}-${last} of the object (content differs)`,
        undefined,
        undefined,
        ['body', 'generated'],
      );
    }
  }
}
