import type { CaseResult, CheckResult, ClauseResult, RunResults, Tally } from '../runner/model/results.ts';
import { EXCHANGE_BODY_LIMIT } from '../runner/model/results.ts';
import { CLAUSE_VERDICTS, type ClauseVerdict } from '../runner/model/verdict.ts';
import { checksByClause, clauseReason } from './clause-checks.ts';
import { paint } from './colors.ts';
import { closingLine, SOURCE_MARK } from './console.ts';
import { amazonNote, answerGroups, departsFromAmazon, departureSentence, departures } from './departures.ts';
import { DocumentReporter } from './document-reporter.ts';
import { exchangeLines, expectedActual, sourceExcerpt } from './failure.ts';
import { coverageBar, esc, groupBySpec, htmlPage, tallyOf, verdictBadge } from './html-page.ts';
import { troubleLine } from './trouble.ts';

/** Expected and actual values longer than this are cut; the JSON document keeps them whole. */
const VALUE_LIMIT = 2000;
const PLAIN = paint(false);

/**
 * `--reporter html=FILE`: one self-contained page (inline style and script, a policy that forbids
 * any request) with the totals, a coverage bar per SPEC section, and every clause by section,
 * each opening to the checks that cite it; failures are laid out with failure.ts's parts.
 * It is static HTML: filters and search are a small script, and the page reads without it.
 */
export class HtmlReporter extends DocumentReporter {
  protected render(results: RunResults, complete: boolean): string {
    return renderHtml(results, { complete, cases: this.log.start?.cases });
  }
}

type BaselineStatus = 'new' | 'fixed' | 'expected' | '-';
const BASELINE_WORDS: Record<BaselineStatus, string> = {
  new: 'new failure',
  fixed: 'fixed',
  expected: 'expected failure',
  '-': 'not in the baseline',
};

/** The report of one run; `complete` false (closed before run-end) lists the finished cases instead. */
export function renderHtml(
  results: RunResults,
  options: { complete?: boolean; cases?: number } = {},
): string {
  const complete = options.complete ?? true;
  const parts: string[] = [header(results, complete, options.cases)];
  const groups = groupBySpec(results.clauses);
  if (results.clauses.length) {
    parts.push('<h2>Coverage by SPEC section</h2>', '<table class="cov">');
    groups.forEach((g, i) => {
      const tally = tallyOf(g.clauses);
      parts.push(
        `<tr><td><a href="#s-${i}">${esc(`${g.area}: ${g.heading}`)}</a></td><td>${coverageBar(tally)}</td>` +
          `<td class="muted">${esc(counts(tally))}</td></tr>`,
      );
    });
    parts.push(
      '</table>',
      filters(
        results,
        groups.map((g) => g.area),
      ),
    );
    parts.push(
      '<h2>Clauses by SPEC section</h2>',
      `<p class="muted"><span id="shown">${results.clauses.length} clauses</span>. Each opens to the ` +
        `checks that cite it; bodies are cut at ${EXCHANGE_BODY_LIMIT} bytes, binary ones shown as ` +
        'size and SHA-256, secrets redacted.</p>',
    );
    const byClause = checksByClause(results.cases);
    const cases = new Map(results.cases.map((c) => [c.id, c]));
    const baseline = baselineStatus(results);
    groups.forEach((g, i) => {
      parts.push(
        `<section class="group" id="s-${i}"><h3>${esc(`${g.area}: ${g.heading}`)}</h3>`,
        ...g.clauses.map((c) =>
          clauseBlock(
            c,
            byClause.get(c.id) ?? [],
            cases,
            results.asOf,
            baseline && (baseline.get(c.id) ?? '-'),
          ),
        ),
        '</section>',
      );
    });
  }
  if (!complete && results.cases.length) {
    parts.push('<h2>Finished cases</h2>', ...results.cases.map(caseBlock));
  }
  if (results.cases.some((c) => c.requests !== undefined)) parts.push(costTable(results.cases));
  if (results.leftovers.length) parts.push(leftovers(results.leftovers));
  const title = `edgecheck: ${results.target.name}, ${results.startedAt.slice(0, 10)}`;
  return htmlPage(title, parts.join('\n'), SCRIPT);
}

function header(results: RunResults, complete: boolean, total?: number): string {
  const t = results.target;
  const where = t.embedded ? 'embedded reference' : [t.management, t.s3].filter(Boolean).join(', ');
  const faults = t.faults?.length ? `, faults: ${t.faults.join(', ')}` : '';
  const out = [
    `<h1>edgecheck report: ${esc(t.name)}</h1>`,
    `<p class="muted">${esc(`${where}${faults}`)}<br>${esc(
      [
        results.mode === 'proxy' || results.mode === 'judge'
          ? `${results.mode} ${results.runId}: ${results.observed ?? 0} observed exchanges, no request of edgecheck's own`
          : `run ${results.runId}`,
        `edgecheck ${results.edgecheck}`,
        `started ${results.startedAt}`,
        `${(results.durationMs / 1000).toFixed(1)} s`,
        `as of ${results.asOf}`,
        `profile ${results.profile}`,
        `seed ${results.seed}`,
        `exit code ${results.exitCode}`,
      ].join(' · '),
    )}</p>`,
  ];
  const trouble = troubleLine(results);
  if (trouble) out.push(`<p class="banner">Not judged: ${esc(trouble)}</p>`);
  if (!complete) {
    const of = total === undefined ? '' : ` of ${total}`;
    out.push(
      `<p class="banner bad">Run cut short: ${results.cases.length}${of} cases finished; clause verdicts are unknown.</p>`,
    );
  } else if (results.interrupted) {
    const by = results.stoppedBy ? ` (${esc(results.stoppedBy)})` : '';
    out.push(`<p class="banner">Run interrupted${by}: checks that had not run are blocked.</p>`);
  }
  if (results.leftovers.length) {
    out.push(
      `<p class="banner bad"><a href="#leftovers">${results.leftovers.length} left on the target</a>: ` +
        'teardown could not remove or restore them.</p>',
    );
  }
  out.push('<h2>Totals</h2>', '<table class="totals">');
  if (complete) {
    const c = results.summary.clauses;
    out.push(`<tr><th>clauses</th><td>${coverageBar(c)}</td><td>${esc(counts(c, true))}</td></tr>`);
  }
  out.push(`<tr><th>cases</th><td></td><td>${esc(counts(results.summary.cases, true))}</td></tr>`);
  out.push(`<tr><th>checks</th><td></td><td>${esc(counts(results.summary.checks, true))}</td></tr>`);
  const r = results.requests;
  if (r) {
    const extra = [r.retried && `${r.retried} retried`, r.throttled && `${r.throttled} throttled (429)`]
      .filter(Boolean)
      .join(', ');
    out.push(
      `<tr><th>requests</th><td></td><td>${esc(
        `${r.total} (management ${r.management}, s3 ${r.s3}${extra ? `; ${extra}` : ''})`,
      )}</td></tr>`,
    );
  }
  out.push('</table>');
  if (complete) out.push(`<p><b>${esc(closingLine(results.summary.clauses))}</b></p>`);
  if (complete) out.push(...departuresSection(results));
  const b = results.baseline;
  if (b) {
    const list = (ids: string[]) => esc(ids.length ? ids.join(', ') : 'none');
    out.push(
      `<h3>Baseline ${esc(b.file)}</h3>`,
      '<table class="totals">',
      `<tr><th>new failures</th><td>${list(b.newFailures)}</td></tr>`,
      `<tr><th>fixed</th><td>${list(b.fixed)}</td></tr>`,
      `<tr><th>still expected</th><td>${list(b.expected)}</td></tr>`,
      '</table>',
    );
  }
  return out.join('\n');
}

/**
 * The failing and erroring clauses where SPEC departs from Amazon S3, apart and by the target's
 * answer (departures(), as every report counts them), each with what Amazon S3 does and a link to
 * the clause.
 */
function departuresSection(results: RunResults): string[] {
  const sentence = departureSentence(results);
  const departing = departures(results.clauses);
  if (!sentence || !departing.all.length) return [];
  const item = (c: ClauseResult) =>
    `<li>${verdictBadge(c.verdict)} <a href="#c-${esc(c.id)}"><code>${esc(c.id)}</code></a> ` +
    `<span class="muted">${esc(amazonNote(c) ?? '')}</span></li>`;
  return [
    `<h3>Where SPEC departs from Amazon S3 (${departing.all.length})</h3>`,
    `<p>${esc(sentence)}.</p>`,
    ...answerGroups(departing).flatMap((g) => [
      `<h4>${esc(g.heading)} (${g.clauses.length})</h4>`,
      `<ul class="departures">${g.clauses.map(item).join('\n')}</ul>`,
    ]),
  ];
}

/** `12 pass, 1 fail`: the verdicts that occurred (every one with `all`). */
function counts(tally: Partial<Tally<ClauseVerdict>>, all = false): string {
  return CLAUSE_VERDICTS.filter((v) => (all ? v in tally : tally[v]))
    .map((v) => `${tally[v] ?? 0} ${v}`)
    .join(', ');
}

function baselineStatus(results: RunResults): Map<string, BaselineStatus> | undefined {
  const b = results.baseline;
  if (!b) return undefined;
  const out = new Map<string, BaselineStatus>();
  for (const id of b.newFailures) out.set(id, 'new');
  for (const id of b.fixed) out.set(id, 'fixed');
  for (const id of b.expected) out.set(id, 'expected');
  return out;
}

/** What each clause source is, in the source filter and as a clause's tag (SPEC's clauses have none). */
const SOURCE_WORDS: Record<ClauseResult['source'], string> = {
  spec: 'SPEC',
  s3: 'S3 habit (SPEC silent, S3 documents it)',
  service: 'service (SPEC silent)',
};

/** The filter bar; hidden until the script runs, so a page without scripts shows every clause. */
function filters(results: RunResults, areas: string[]): string {
  const tally = results.summary.clauses;
  const verdicts = CLAUSE_VERDICTS.map(
    (v) =>
      `<label><input type="checkbox" name="v" value="${v}" checked> ${verdictBadge(v)} ${tally[v] ?? 0}</label>`,
  ).join('');
  const select = (id: string, label: string, options: [string, string][]) =>
    `<label>${esc(label)} <select id="${id}"><option value="">any</option>${options
      .map(([value, text]) => `<option value="${esc(value)}">${esc(text)}</option>`)
      .join('')}</select></label>`;
  const features = [...new Set(results.clauses.map((c) => c.feature).filter((f) => f !== undefined))];
  const parts = [
    `<span role="group" aria-label="verdicts">${verdicts}</span>`,
    select(
      'f-area',
      'area',
      [...new Set(areas)].map((a) => [a, a]),
    ),
    select('f-feature', 'feature', [
      ['-', 'none (core)'],
      ...features.sort().map((f): [string, string] => [f, f]),
    ]),
  ];
  // SPEC's clauses apart from those it does not state: Amazon S3's habits clients rely on, the service's own.
  const sources = new Set(results.clauses.map((c) => c.source));
  if (sources.size > 1 || !sources.has('spec')) {
    parts.push(
      select(
        'f-source',
        'source',
        (Object.keys(SOURCE_WORDS) as ClauseResult['source'][])
          .filter((k) => sources.has(k))
          .map((k) => [k, SOURCE_WORDS[k]]),
      ),
    );
  }
  if (results.clauses.some(departsFromAmazon)) {
    parts.push(
      select('f-amazon', 'Amazon S3', [
        ['departs', 'SPEC departs from it'],
        ['shared', 'SPEC agrees or is silent'],
      ]),
    );
  }
  if (results.baseline) {
    parts.push(
      select(
        'f-baseline',
        'baseline',
        (Object.keys(BASELINE_WORDS) as BaselineStatus[]).map((k) => [k, BASELINE_WORDS[k]]),
      ),
    );
  }
  parts.push(
    '<label><input type="search" id="q" placeholder="search ids, titles, cases, messages" aria-label="search"></label>',
  );
  return `<div id="filters" hidden>${parts.join('\n')}</div>`;
}

function clauseBlock(
  clause: ClauseResult,
  checks: CheckResult[],
  cases: ReadonlyMap<string, CaseResult>,
  asOf: string,
  /** Only when the run had a baseline. */
  baseline: BaselineStatus | undefined,
): string {
  const reason = clauseReason(clause, checks, cases, asOf);
  const tags = [
    clause.feature ? `<span class="tag">${esc(clause.feature)}</span>` : '',
    clause.source !== 'spec' ? `<span class="tag source">${esc(SOURCE_MARK[clause.source])}</span>` : '',
    departsFromAmazon(clause) ? '<span class="tag amazon">SPEC departs from Amazon S3</span>' : '',
    baseline && baseline !== '-'
      ? `<span class="tag ${baseline}">${esc(BASELINE_WORDS[baseline])}</span>`
      : '',
  ].join('');
  const data =
    `data-v="${clause.verdict}" data-area="${esc(clause.area)}" data-feature="${esc(clause.feature ?? '-')}"` +
    ` data-baseline="${baseline ?? '-'}" data-amazon="${departsFromAmazon(clause) ? 'departs' : 'shared'}"` +
    ` data-source="${clause.source}"`;
  const facts = [
    `section: ${clause.section}`,
    `source: ${clause.source}`,
    amazonNote(clause),
    clause.since && `since ${clause.since}`,
    clause.until && `until ${clause.until}`,
    `${clause.checks} ${clause.checks === 1 ? 'check cites' : 'checks cite'} it`,
    clause.requests !== undefined && `${clause.requests} requests by its cases`,
  ].filter(Boolean);
  return [
    `<details class="clause ${clause.verdict}" id="c-${esc(clause.id)}" ${data}>`,
    `<summary>${verdictBadge(clause.verdict)} <code>${esc(clause.id)}</code> ${esc(clause.title)} ${tags}` +
      `${reason ? `<span class="why">${esc(reason)}</span>` : ''}</summary>`,
    `<div><div class="muted">${esc(facts.join(' · '))}</div>`,
    checks.length ? `<ul class="k">${checks.map(checkItem).join('\n')}</ul>` : '',
    '</div></details>',
  ].join('\n');
}

function caseBlock(c: CaseResult): string {
  return [
    `<details class="clause ${c.verdict}" data-v="${c.verdict}">`,
    `<summary>${verdictBadge(c.verdict)} <code>${esc(c.id)}</code> ${esc(c.title)}` +
      `${c.reason ? `<span class="why">${esc(c.reason)}</span>` : ''}</summary>`,
    `<div><div class="muted">${esc(`${c.file} · ${c.durationMs} ms`)}</div>`,
    `<ul class="k">${c.checks.map(checkItem).join('\n')}</ul>`,
    '</div></details>',
  ].join('\n');
}

/** One check: a line (case, step, title, where), and for a failure or error its details. */
function checkItem(check: CheckResult): string {
  const title = check.title ? `: ${check.title}` : '';
  const line =
    `${verdictBadge(check.verdict)} <code>${esc(check.caseId)}</code> ${esc(`${check.step}${title}`)} ` +
    `<span class="o">${esc(check.origin)}</span>`;
  if (check.verdict === 'fail' || check.verdict === 'error') return `<li>${line}${failure(check)}</li>`;
  const why =
    check.verdict !== 'pass' && check.message ? `<div class="muted">${esc(check.message)}</div>` : '';
  return `<li>${line}${why}</li>`;
}

/** A failing or erroring check in blocks, from the same parts renderFailure prints. */
function failure(check: CheckResult): string {
  const [first = `the check ${check.verdict === 'fail' ? 'failed' : 'errored'}`, ...rest] = (
    check.message ?? ''
  ).split('\n');
  const pre = (lines: string[], cls = '') =>
    lines.length ? `<pre${cls ? ` class="${cls}"` : ''}>${esc(lines.join('\n'))}</pre>` : '';
  const where = check.source
    ? `${check.source.file}:${check.source.line}:${check.source.column}`
    : check.origin;
  const out = [
    `<div class="f"><div class="hd">${esc(`${check.verdict}: ${first}`)}</div>`,
    `<div class="o">--&gt; ${esc(where)}</div>`,
  ];
  if (check.step !== 'property') out.push(pre(sourceExcerpt(check, PLAIN)));
  // A property's message goes on with its seed and shrunk counterexample.
  out.push(pre(rest.filter((l) => l.trim())));
  if (check.step === 'property' && check.verdict === 'error' && check.stack) {
    out.push('<div class="hd">stack</div>', pre(check.stack.split('\n'), 'muted'));
  }
  out.push(pre(expectedActual(check, first, PLAIN, VALUE_LIMIT)));
  if (check.exchange) out.push('<div class="hd">exchange</div>', pre(exchangeLines(check.exchange, PLAIN)));
  if (check.latestExchange)
    out.push(
      '<div class="hd">latest contradicting exchange</div>',
      pre(exchangeLines(check.latestExchange, PLAIN)),
    );
  if (check.repro) {
    out.push(
      '<div class="hd">reproduce<button type="button" class="copy">copy</button></div>',
      pre(check.repro.split('\n'), 'repro'),
    );
  }
  out.push('</div>');
  return out.join('');
}

/**
 * What each case cost, costliest first: a table whose column headings sort it (the script), so a
 * user who pays per request sees where a run's requests went.
 */
function costTable(cases: CaseResult[]): string {
  const rows = [...cases]
    .sort((a, b) => (b.requests ?? 0) - (a.requests ?? 0) || a.id.localeCompare(b.id))
    .map(
      (c) =>
        `<tr><td data-sort="${esc(c.id)}"><code>${esc(c.id)}</code></td>` +
        `<td data-sort="${c.verdict}">${verdictBadge(c.verdict)}</td>` +
        `<td class="n" data-sort="${c.requests ?? 0}">${c.requests ?? 0}</td>` +
        `<td class="n" data-sort="${c.durationMs}">${c.durationMs}</td></tr>`,
    );
  const heading = (label: string, type: 'text' | 'number', sorted?: 'descending') =>
    `<th data-type="${type}"${sorted ? ` aria-sort="${sorted}"` : ''}><button type="button">${esc(label)}</button></th>`;
  return [
    '<h2 id="cost">Requests by case</h2>',
    '<p class="muted">Requests each case sent, tries and teardown included. A heading sorts the table.</p>',
    '<table class="cost sortable">',
    `<thead><tr>${heading('case', 'text')}${heading('verdict', 'text')}${heading('requests', 'number', 'descending')}${heading('ms', 'number')}</tr></thead>`,
    `<tbody>${rows.join('\n')}</tbody>`,
    '</table>',
  ].join('\n');
}

function leftovers(list: RunResults['leftovers']): string {
  const items = list.map(
    (l) =>
      `<li><b>${esc(l.what)}</b> <span class="muted">(${esc(`${l.caseId}: ${l.error}`)})</span>` +
      `${l.undo ? `<pre>${esc(l.undo)}</pre>` : ''}</li>`,
  );
  return [
    `<h2 id="leftovers">Left on the target (${list.length})</h2>`,
    '<p>Teardown could not remove or restore these. <code>edgecheck sweep</code> lists what runs left; <code>--delete</code> removes it.</p>',
    `<ul>${items.join('\n')}</ul>`,
  ].join('\n');
}

/** Filters and search (the page reads without it); a copy button for reproductions. */
const SCRIPT = String.raw`(() => {
  const d = document, $ = (s, r = d) => [...r.querySelectorAll(s)];
  const bar = d.getElementById('filters');
  if (bar) {
    bar.hidden = false;
    const clauses = $('.clause[data-area]'), groups = $('section.group'), shown = d.getElementById('shown');
    const text = new Map(clauses.map((c) => [c, c.textContent.toLowerCase()]));
    const value = (id) => (d.getElementById(id) || {}).value || '';
    const apply = () => {
      const on = new Set($('input[name=v]:checked', bar).map((i) => i.value));
      const area = value('f-area'), feature = value('f-feature'), base = value('f-baseline'), amazon = value('f-amazon'), source = value('f-source');
      const words = value('q').toLowerCase().split(/\s+/).filter(Boolean);
      let n = 0;
      for (const c of clauses) {
        const x = c.dataset;
        const ok = on.has(x.v) && (!area || x.area === area) && (!feature || x.feature === feature) &&
          (!base || x.baseline === base) && (!amazon || x.amazon === amazon) && (!source || x.source === source) &&
          words.every((w) => text.get(c).includes(w));
        c.hidden = !ok;
        if (ok) n++;
      }
      for (const g of groups) g.hidden = !g.querySelector('.clause:not([hidden])');
      shown.textContent = n + ' of ' + clauses.length + ' clauses shown';
    };
    bar.addEventListener('input', apply);
    bar.addEventListener('change', apply);
    apply();
  }
  // Sortable tables: a heading's button sorts by its column, again the other way.
  for (const table of $('table.sortable')) {
    const heads = $('th', table);
    heads.forEach((th, col) => {
      th.querySelector('button').addEventListener('click', () => {
        const down = th.getAttribute('aria-sort') !== 'descending';
        for (const h of heads) h.removeAttribute('aria-sort');
        th.setAttribute('aria-sort', down ? 'descending' : 'ascending');
        const key = (tr) => tr.children[col].dataset.sort;
        const number = th.dataset.type === 'number';
        const body = table.tBodies[0];
        const rows = [...body.rows].sort((a, b) => {
          const c = number ? Number(key(a)) - Number(key(b)) : key(a).localeCompare(key(b));
          return down ? -c : c;
        });
        body.append(...rows);
      });
    });
  }
  for (const b of $('button.copy')) {
    b.addEventListener('click', () => {
      const text = b.parentElement.nextElementSibling.textContent;
      if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => { b.textContent = 'copied'; }, () => {});
    });
  }
})();`;
