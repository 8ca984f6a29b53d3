import { type CheckResult, EXCHANGE_BODY_LIMIT, type Exchange } from '../runner/model/results.ts';
import { type Paint, paint } from './colors.ts';
import { safeJson } from './safe-json.ts';
import { oneLine, printable, truncate } from './text.ts';

export interface FailureOptions {
  /** Colours (console on a terminal); plain text otherwise. */
  paint?: Paint;
  /** Expected and actual values longer than this are cut; the JSON document keeps them whole. */
  valueLimit?: number;
}

/**
 * A failing or erroring check as lines of text, laid out like Hurl's errors: what went wrong,
 * where (`--> file:line:col`), the case file's lines with a caret under the value, expected and
 * actual once, the request and response, and the command that reproduces it. Every report
 * renders failures through this one function so they read the same everywhere.
 */
export function renderFailure(check: CheckResult, options: FailureOptions = {}): string[] {
  const p = options.paint ?? paint(false);
  const limit = options.valueLimit ?? 600;
  const [first = `the check ${check.verdict === 'fail' ? 'failed' : 'errored'}`, ...rest] = (
    check.message ?? ''
  ).split('\n');
  const lines = [`${p.red(p.bold(`${check.verdict}:`))} ${p.bold(printable(first))}`];
  const where = check.source
    ? `${check.source.file}:${check.source.line}:${check.source.column}`
    : check.origin;
  lines.push(`  ${p.cyan('-->')} ${where}`);
  const title = check.title ? `: ${oneLine(check.title)}` : '';
  lines.push(
    `${gutterOf(check)} ${p.cyan('|')} ${p.dim(`${check.caseId}, ${check.step}${title} (${check.clauses.join(', ')})`)}`,
  );
  if (check.step === 'property') {
    // A property has no case file lines: its message carries the seed and the counterexample.
    for (const l of rest) if (l.trim()) lines.push(`  ${printable(l)}`);
    if (check.verdict === 'error' && check.stack) {
      lines.push(p.dim('stack:'));
      for (const l of check.stack.split('\n')) lines.push(`  ${p.dim(printable(l))}`);
    }
  } else {
    lines.push(...sourceExcerpt(check, p));
    for (const l of rest) if (l.trim()) lines.push(`  ${printable(l)}`);
  }
  lines.push(...expectedActual(check, first, p, limit));
  if (check.exchange) lines.push(...exchangeLines(check.exchange, p));
  if (check.latestExchange)
    lines.push(p.dim('the latest exchange that contradicted it:'), ...exchangeLines(check.latestExchange, p));
  if (check.repro) {
    lines.push('reproduce:');
    for (const l of printable(check.repro).split('\n')) lines.push(`  ${p.cyan(l)}`);
  }
  return lines;
}

function gutterOf(check: CheckResult): string {
  const last = check.source?.lines.at(-1)?.n ?? 0;
  return ' '.repeat(Math.max(3, String(last).length + 1));
}

/** The case file's lines around the expectation, a caret under its value, and a closing gutter line. */
export function sourceExcerpt(check: CheckResult, p: Paint = paint(false)): string[] {
  const src = check.source;
  if (!src) return [];
  const width = gutterOf(check).length;
  const bar = p.cyan('|');
  const out: string[] = [];
  for (const { n, text } of src.lines) {
    out.push(`${p.cyan(String(n).padStart(width))} ${bar} ${printable(text)}`);
    if (n === src.line) {
      out.push(
        `${' '.repeat(width)} ${bar} ${' '.repeat(Math.max(0, src.column - 1))}${p.red('^'.repeat(tokenLength(text, src.column)))}`,
      );
    }
  }
  out.push(`${' '.repeat(width)} ${bar}`);
  return out;
}

/** How many characters the value at `column` spans: to the end of its flow item or line. */
function tokenLength(text: string, column: number): number {
  const from = text.slice(column - 1);
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < from.length; i++) {
    const c = from[i];
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) return Math.max(1, from.slice(0, i).trimEnd().length);
      if (--depth === 0) return i + 1;
    } else if (c === ',' && depth === 0) return Math.max(1, from.slice(0, i).trimEnd().length);
    else if (c === '#' && depth === 0 && from[i - 1] === ' ')
      return Math.max(1, from.slice(0, i).trimEnd().length);
  }
  return Math.max(1, from.trimEnd().length);
}

/** Expected and actual, unless the message (its first line) already says both. */
export function expectedActual(check: CheckResult, message: string, p: Paint, limit: number): string[] {
  const has = (v: unknown) => v !== undefined;
  if (!has(check.expected) && !has(check.actual)) return [];
  const shown = (v: unknown) => printable(truncate(safeJson(v), limit));
  const said = (v: unknown) => !has(v) || message.includes(safeJson(v));
  if (said(check.expected) && said(check.actual)) return [];
  const out: string[] = [];
  if (has(check.expected)) out.push(`expected: ${p.green(shown(check.expected))}`);
  if (has(check.actual)) out.push(`actual:   ${p.red(shown(check.actual))}`);
  return out;
}

/** An SDK step's error as the target worded it: its code and message, or that it sent none. */
function errorLine(e: { name: string; message: string }): string {
  const code = e.name || 'no error code';
  return e.message ? `${code}: ${e.message}` : `${code}, no message`;
}

/** The request as sent and the response as received: bodies cut, binary ones as size and digest. */
export function exchangeLines(x: Exchange, p: Paint = paint(false)): string[] {
  const out: string[] = [];
  const headers = (h: Record<string, string>) =>
    Object.entries(h).map(([k, v]) => `  ${p.dim(printable(`${k}: ${v}`))}`);
  if (x.request) {
    out.push(
      'request:',
      `  ${printable(`${x.request.method} ${x.request.url}`)}`,
      ...headers(x.request.headers),
    );
  } else if (x.command) {
    out.push('request:', `  ${printable(x.command)} (SDK command; see the reproduction below)`);
  }
  const r = x.response;
  out.push('response:', `  ${p.bold(`HTTP ${r.status}`)}`, ...headers(r.headers));
  if (r.error) out.push(`  error: ${printable(oneLine(errorLine(r.error)))}`);
  if (r.output !== undefined) out.push(`  output: ${printable(r.output)}`);
  const b = r.body;
  if (b && b.size > 0) {
    if (b.text === undefined) {
      out.push(`  ${p.dim(`<${b.size} bytes of binary data, sha256 ${b.sha256}>`)}`);
    } else {
      out.push('');
      for (const l of b.text.split('\n')) out.push(`  ${printable(l)}`);
      if (b.truncated) {
        out.push(`  ${p.dim(`<${b.size} bytes in all; the first ${EXCHANGE_BODY_LIMIT} are shown>`)}`);
      }
    }
  }
  return out;
}
