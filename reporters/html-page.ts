import { createHash } from 'node:crypto';
import type { ClauseResult, Tally } from '../runner/model/results.ts';
import { CLAUSE_VERDICTS, type ClauseVerdict } from '../runner/model/verdict.ts';
import { topSection } from './clause-checks.ts';
import { printable } from './text.ts';

/**
 * What the HTML reports (html.ts, and compare's --html) share: escaping, the page shell with its
 * inline style and a Content-Security-Policy that forbids every request (the file opens offline
 * and loads nothing, not even what a target's answer might name), and the SPEC sections.
 */

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text for HTML content and attribute values: markup characters escaped, control characters shown as \xNN. */
export function esc(text: unknown): string {
  return printable(String(text)).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/**
 * SPEC.md's headings in order, so sections are listed as SPEC lists them. A clause's section
 * title starts with one of these (the level-3 headings whose titles do not name their parent are
 * listed under it); one that starts with none follows them, in order of first appearance.
 */
const SPEC_ORDER = [
  'What the service does',
  'Resources and their fields',
  'Log-push job',
  'Invitation status update',
  'States and transitions',
  'Endpoints',
  'Custom log fields procedure',
  'Object storage management API',
  'Object storage S3-compatible interface: behaviours',
  'Authentication',
  'Events',
  'Errors',
  'Limits',
  'Versioning',
];

/** The SPEC heading a section title belongs to: `Limits (per_page)` and `Errors / 1` to `Limits`, `Errors`. */
export function specHeading(section: string): string {
  const first = section.split('; ')[0];
  return topSection(first)
    .replace(/\s*\([^()]*\)$/, '')
    .trim();
}

export interface SpecGroup {
  area: string;
  heading: string;
  clauses: ClauseResult[];
}

/** Clauses by area (in order of first appearance), then by SPEC heading in SPEC order. */
export function groupBySpec(clauses: readonly ClauseResult[]): SpecGroup[] {
  const areas: string[] = [];
  const groups = new Map<string, SpecGroup & { first: number }>();
  clauses.forEach((clause, i) => {
    const heading = specHeading(clause.section);
    const key = `${clause.area}\u0000${heading}`;
    let group = groups.get(key);
    if (!group) {
      group = { area: clause.area, heading, clauses: [], first: i };
      groups.set(key, group);
      if (!areas.includes(clause.area)) areas.push(clause.area);
    }
    group.clauses.push(clause);
  });
  const rank = (h: string) => {
    const i = SPEC_ORDER.indexOf(h);
    return i < 0 ? SPEC_ORDER.length : i;
  };
  return [...groups.values()]
    .sort(
      (a, b) =>
        areas.indexOf(a.area) - areas.indexOf(b.area) ||
        rank(a.heading) - rank(b.heading) ||
        a.first - b.first,
    )
    .map(({ first: _, ...group }) => group);
}

export function tallyOf(clauses: readonly ClauseResult[]): Tally<ClauseVerdict> {
  const tally = Object.fromEntries(CLAUSE_VERDICTS.map((v) => [v, 0])) as Tally<ClauseVerdict>;
  for (const c of clauses) tally[c.verdict] += 1;
  return tally;
}

/** A bar of verdict shares (pass, fail, error, blocked, skipped, untested), with the counts as its title. */
export function coverageBar(tally: Tally<ClauseVerdict>): string {
  const total = CLAUSE_VERDICTS.reduce((n, v) => n + tally[v], 0);
  const words = CLAUSE_VERDICTS.filter((v) => tally[v]).map((v) => `${tally[v]} ${v}`);
  const segments = CLAUSE_VERDICTS.filter((v) => tally[v])
    .map((v) => `<i class="${v}" style="flex-grow:${tally[v]}"></i>`)
    .join('');
  return `<span class="bar" role="img" aria-label="${esc(words.join(', ') || 'no clauses')}" title="${esc(
    words.join(', '),
  )}">${total ? segments : ''}</span>`;
}

export function verdictBadge(v: string): string {
  return `<b class="badge ${esc(v)}">${esc(v)}</b>`;
}

const STYLE = `
:root{--fg:#1f2328;--bg:#fff;--muted:#636c76;--line:#d0d7de;--soft:#f6f8fa;--pass:#1a7f37;--fail:#cf222e;--error:#8250df;--blocked:#bf8700;--skipped:#8c959f;--untested:#d0d7de}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--line:#3d444d;--soft:#151b23;--pass:#3fb950;--fail:#f85149;--error:#ab7df8;--blocked:#d29922;--skipped:#6e7681;--untested:#3d444d}}
*{box-sizing:border-box}[hidden]{display:none!important}
body{margin:0 auto;max-width:1200px;padding:16px 24px 48px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}h3{font-size:14px;margin:18px 0 6px}
.muted,.o{color:var(--muted)}code,pre,.o{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{margin:6px 0;padding:8px;background:var(--soft);border:1px solid var(--line);border-radius:4px;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
table{border-collapse:collapse}td,th{padding:3px 10px 3px 0;text-align:left;vertical-align:middle}
table.cost td.n{text-align:right;font-variant-numeric:tabular-nums}table.cost th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:inherit}table.cost th[aria-sort=descending] button::after{content:" ▾"}table.cost th[aria-sort=ascending] button::after{content:" ▴"}
.bar{display:inline-flex;width:220px;height:12px;border-radius:3px;overflow:hidden;background:var(--soft);border:1px solid var(--line);vertical-align:middle}
.bar i{display:block;min-width:2px}.bar i.pass{background:var(--pass)}.bar i.fail{background:var(--fail)}.bar i.error{background:var(--error)}.bar i.blocked{background:var(--blocked)}.bar i.skipped{background:var(--skipped)}.bar i.untested{background:var(--untested)}
.badge{display:inline-block;min-width:62px;padding:0 6px;border-radius:10px;font-size:12px;font-weight:600;text-align:center;color:#fff;background:var(--skipped)}
.badge.pass{background:var(--pass)}.badge.fail{background:var(--fail)}.badge.error{background:var(--error)}.badge.blocked{background:var(--blocked)}.badge.untested{background:var(--untested);color:var(--fg)}.badge.absent{background:none;color:var(--muted)}
.banner{padding:8px 12px;border-radius:4px;border:1px solid var(--blocked);margin:12px 0}.banner.bad{border-color:var(--fail)}
#filters{position:sticky;top:0;z-index:1;display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center;padding:8px 0;background:var(--bg);border-bottom:1px solid var(--line)}
#filters label{white-space:nowrap}#filters [role=group] label{margin-right:10px}#filters input[type=search]{min-width:240px;padding:3px 6px}
.clause{border-left:4px solid var(--skipped);margin:2px 0;padding:0 0 0 8px}
.clause.pass{border-color:var(--pass)}.clause.fail{border-color:var(--fail)}.clause.error{border-color:var(--error)}.clause.blocked{border-color:var(--blocked)}.clause.untested{border-color:var(--untested)}
summary{cursor:pointer;padding:3px 0}summary .why{display:block;margin-left:72px;color:var(--muted);font-size:13px}
.clause>div{padding:4px 0 10px}.k{list-style:none;margin:0;padding:0}.k li{margin:6px 0}
.tag{font-size:12px;padding:0 6px;border:1px solid var(--line);border-radius:10px;color:var(--muted)}.tag.new{border-color:var(--fail);color:var(--fail)}.tag.amazon{border-color:var(--blocked)}
.hd{font-weight:600}.copy{font-size:12px;margin-left:8px}
td.v{text-align:center}table.cmp tr.diff td{background:var(--soft)}table.cmp tr.diff td:first-child{border-left:3px solid var(--fail)}table.cmp tr.sec th{padding-top:14px;border-bottom:1px solid var(--line)}
section.group{scroll-margin-top:90px}
`;

/**
 * A whole document: title, style, body and one inline script. The policy allows that script (by
 * its digest) and inline style, and nothing else: no request of any kind can leave the page.
 */
export function htmlPage(title: string, body: string, script: string): string {
  const digest = createHash('sha256').update(script).digest('base64');
  const policy = [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `script-src 'sha256-${digest}'`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    // No favicon request: the icon is an empty data URL.
    '<link rel="icon" href="data:,">',
    `<title>${esc(title)}</title>`,
    `<style>${STYLE.trim()}</style>`,
    '</head>',
    '<body>',
    body,
    `<script>${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
