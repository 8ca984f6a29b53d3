import { isUtf8 } from 'node:buffer';
import { readFileSync, statSync } from 'node:fs';
import type { Document, LineCounter, Node } from 'yaml';
import {
  EXCHANGE_BODY_LIMIT,
  type Exchange,
  type ExchangeBody,
  type SourceExcerpt,
} from '../model/results.ts';
import type { OutgoingRequest } from '../transports/http.ts';
import type { StepResponse } from '../transports/response.ts';
import { yaml } from '../util/packages.ts';
import { displayPath } from '../util/paths.ts';
import { redactDeep, redactText } from '../util/redact.ts';

/** Lines shown before and after the mismatching one. */
const BEFORE = 3;
const AFTER = 1;

/**
 * Case files parsed for excerpts, while unchanged (size, modification time, inode): a target that
 * is down errs every check of a run, and each would otherwise parse its file again.
 */
const caseFiles = new Map<string, { stamp: string; text: string; doc: Document; counter: LineCounter }>();

function parsedCaseFile(file: string): { text: string; doc: Document; counter: LineCounter } | undefined {
  let stamp: string;
  let text: string;
  try {
    const st = statSync(file);
    stamp = `${st.size} ${st.mtimeMs} ${st.ino}`;
    const hit = caseFiles.get(file);
    if (hit?.stamp === stamp) return hit;
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const counter = new (yaml().LineCounter)();
  const doc = yaml().parseDocument(text, { lineCounter: counter, uniqueKeys: false });
  const entry = { stamp, text, doc, counter };
  caseFiles.set(file, entry);
  return entry;
}

/**
 * The case file's lines around a check, with the line and column of the matcher that did not
 * hold (`key`, e.g. `['json', '/result/status']`), else of the check itself. Built only for
 * failing and erroring checks: the file is read again then, so passing runs pay nothing.
 */
export function sourceExcerpt(
  file: string,
  origin: string,
  key: readonly string[] = [],
): SourceExcerpt | undefined {
  const at = /:(\d+):(\d+)$/.exec(origin);
  if (!at) return undefined;
  const parsed = parsedCaseFile(file);
  if (!parsed) return undefined;
  const { text, doc, counter } = parsed;
  const want = { line: Number(at[1]), col: Number(at[2]) };
  let check: Node | undefined;
  yaml().visit(doc, {
    Map(_, map) {
      if (!map.range) return undefined;
      const pos = counter.linePos(map.range[0]);
      if (pos.line === want.line && pos.col === want.col) {
        check = map;
        return yaml().visit.BREAK;
      }
      return undefined;
    },
  });
  let pos = want;
  let node: unknown = check;
  for (const k of key) {
    if (!yaml().isMap(node)) break;
    const pair = node.items.find((p) => yaml().isScalar(p.key) && String(p.key.value) === k);
    if (!pair) break;
    const target = yaml().isNode(pair.value) && pair.value.range ? pair.value : pair.key;
    if (yaml().isNode(target) && target.range) pos = counter.linePos(target.range[0]);
    node = pair.value;
  }
  const all = text.split(/\r?\n/);
  const first = Math.max(1, pos.line - BEFORE);
  const last = Math.min(all.length, pos.line + AFTER);
  const lines: SourceExcerpt['lines'] = [];
  for (let n = first; n <= last; n++) lines.push({ n, text: redactText(all[n - 1]) });
  while (lines.length > 1 && !lines[lines.length - 1].text.trim() && lines[lines.length - 1].n > pos.line)
    lines.pop();
  return { file: displayPath(file), line: pos.line, column: pos.col, lines };
}

/** What was sent, as far as a step has a request. */
export type SentRequest =
  | { kind: 'http'; request: OutgoingRequest }
  | { kind: 'wire'; method: string; url: string; headers: [string, string][] }
  | { kind: 'sdk'; command: string };

/** The redacted request and response of a step, bodies cut at EXCHANGE_BODY_LIMIT. */
export function exchangeOf(sent: SentRequest | undefined, res: StepResponse): Exchange {
  const exchange: Exchange = {
    response: { status: res.status, headers: { ...res.headers }, body: bodyOf(res) },
  };
  if (sent?.kind === 'http') {
    const { method, url, headers } = sent.request;
    exchange.request = { method, url, headers: { ...headers } };
  } else if (sent?.kind === 'wire') {
    const headers: Record<string, string> = {};
    for (const [k, v] of sent.headers) headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
    exchange.request = { method: sent.method, url: sent.url, headers };
  } else if (sent?.kind === 'sdk') {
    exchange.command = sent.command;
  }
  if (res.output !== undefined) exchange.response.output = cut(JSON.stringify(res.output) ?? '');
  if (res.error) exchange.response.error = { ...res.error };
  if (sent?.kind === 'sdk' && res.body.size === 0) delete exchange.response.body;
  // Header maps are masked by name (authorization, cookies), everything else by known secrets.
  return redactDeep(exchange);
}

function cut(text: string): string {
  return text.length > EXCHANGE_BODY_LIMIT ? `${text.slice(0, EXCHANGE_BODY_LIMIT)}…` : text;
}

/** Text up to the limit; a binary body (or one too large to have kept) only by size and SHA-256. */
function bodyOf(res: StepResponse): ExchangeBody {
  const b = res.body;
  if (b.size === 0) return { size: 0, text: '' };
  const head = b.bytes.subarray(0, EXCHANGE_BODY_LIMIT);
  // A body cut at the cap has no digest: its kept head is shown as text when it is text.
  const valid = b.truncated && !b.cut ? undefined : utf8Prefix(head);
  if (valid === undefined && b.cut) return { size: b.size, truncated: true };
  if (valid === undefined) return { size: b.size, sha256: b.sha256 };
  const out: ExchangeBody = { size: b.size, text: redactText(valid.toString('utf8')) };
  if (b.size > valid.length) out.truncated = true;
  return out;
}

/** The bytes as UTF-8 text, allowing a character cut at the limit; undefined if they are binary. */
function utf8Prefix(head: Buffer): Buffer | undefined {
  if (head.includes(0)) return undefined;
  for (let drop = 0; drop < 4 && drop < head.length; drop++) {
    const part = head.subarray(0, head.length - drop);
    if (isUtf8(part)) return part;
  }
  return undefined;
}
