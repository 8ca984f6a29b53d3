import {
  fc,
  type ObservedView,
  type Observer,
  type PropertyContext,
  type PropertyDef,
  RecentMap,
} from 'edgecheck/kit';
import { createRecords, deleteRecords, listPage, type RecordView, zoneName } from './support/dns-records.ts';
import { type ResultInfo, violation } from './support/envelope.ts';
import { examplesFor } from './support/examples.ts';
import { serialQueue } from './support/serial.ts';

/*
 * Pagination of GET /zones/{zone_id}/dns_records. Other cases add and remove records while these run,
 * so the record-creating properties order by name and give their records names that sort first in
 * the direction asked ("0-..." ascending, "zz-..." descending): the pages that hold them are then
 * unaffected by records added elsewhere. per_page stays within 5..10, which the real service accepts.
 *
 * A live target allows 1,200 management requests per five minutes, so what these send is counted:
 * - a property makes its records once, and every example reads them: an example is a page size (and
 *   a direction), and reads every page that holds the records at that size;
 * - a page is read once per property: a later example, or fast-check shrinking a counterexample,
 *   that asks for a page already read is judged on that answer against the model (the records' ids
 *   in name order), so shrinking costs a request only for a page never read;
 * - the read-only properties take the list's size from the answer before (total_count) instead of
 *   reading page 1 again, and judge one answer per example.
 */

const serial = serialQueue();
let batch = 0;

/** The page sizes the checks ask for, which the real service accepts (see the top of the file). */
const PER_PAGE = { min: 5, max: 10 } as const;

/**
 * How many records a property makes for each direction: more than the smallest page size, so that
 * they span two pages at per_page 5 (quick), or at every size of PER_PAGE (full).
 */
function groupSize(ctx: PropertyContext): number {
  return ctx.profile === 'full' ? 14 : 6;
}

/**
 * The records order-direction makes. In the quick profile only the descending ones span two pages:
 * joining pages is what pages-partition proves, ascending, and a target that pages one direction
 * apart from the other shows it descending; two ascending records show their order on one page.
 * A live target counts requests. The full profile spans pages both ways.
 */
function orderGroupSizes(ctx: PropertyContext): Record<Direction, number> {
  return ctx.profile === 'full'
    ? { ASC: groupSize(ctx), DESC: groupSize(ctx) }
    : { ASC: 2, DESC: groupSize(ctx) };
}

function zoneId(ctx: PropertyContext): string {
  const id = ctx.target.management?.zoneId;
  if (!id) ctx.skip('the target config has no zoneId');
  return id;
}

function info(env: { result_info?: ResultInfo }, what: string): ResultInfo {
  if (!env.result_info || typeof env.result_info !== 'object') violation(`${what}: no result_info`);
  return env.result_info;
}

type Direction = 'ASC' | 'DESC';

/** The lead that sorts a record's name first in the direction (see the top of the file). */
const LEAD: Record<Direction, string> = { ASC: '0', DESC: 'zz' };

/**
 * Makes `count` records for each direction, runs `body` with their ids in the order that direction
 * lists them, and deletes them whatever happened.
 */
async function withRecords<T>(
  ctx: PropertyContext,
  directions: Direction[],
  count: number | Record<Direction, number>,
  body: (listed: Partial<Record<Direction, string[]>>) => Promise<T>,
): Promise<T> {
  const zid = zoneId(ctx);
  const zone = await zoneName(ctx, zid);
  const made: string[][] = [];
  try {
    const listed: Partial<Record<Direction, string[]>> = {};
    for (const direction of directions) {
      // Named <lead>-ec-<run>-<batch>-<nn> and created in name order: ids[i] is the i-th by name.
      const ids: string[] = [];
      made.push(ids);
      const n = typeof count === 'number' ? count : count[direction];
      await createRecords(ctx, zid, zone, `${LEAD[direction]}-ec-${ctx.runId}-${batch++}`, n, ids);
      listed[direction] = direction === 'ASC' ? ids : [...ids].reverse();
    }
    return await body(listed);
  } finally {
    await deleteRecords(ctx, zid, made.flat());
  }
}

/**
 * Pages of the list ordered by name, each read once (see the top of the file): the reader answers a
 * page asked for again with what the target answered the first time.
 */
function pageReader(ctx: PropertyContext) {
  const read = new Map<string, Promise<RecordView[]>>();
  const one = (direction: Direction, perPage: number, page: number): Promise<RecordView[]> => {
    const key = `${direction} ${perPage} ${page}`;
    let answer = read.get(key);
    if (!answer) {
      const query = { per_page: perPage, order: 'name', direction, page };
      answer = listPage(ctx, zoneId(ctx), query).then((env) => env.result);
      read.set(key, answer);
    }
    return answer;
  };
  /** Pages 1..n, in order. */
  return async (direction: Direction, perPage: number, pages: number): Promise<RecordView[][]> => {
    const out: RecordView[][] = [];
    for (let page = 1; page <= pages; page++) out.push(await one(direction, perPage, page));
    return out;
  };
}

const perPage = fc.integer(PER_PAGE);

const pages: PropertyDef = {
  id: 'mgmt.pagination.pages-partition',
  title: 'The pages of a list, read in turn, hold every record exactly once',
  clauses: ['mgmt.pagination.pages'],
  requests: 16,
  run: (ctx) =>
    serial(() =>
      withRecords(ctx, ['ASC'], groupSize(ctx), async ({ ASC: ids = [] }) => {
        const readPages = pageReader(ctx);
        await fc.assert(
          fc.asyncProperty(fc.record({ perPage }), async ({ perPage }) => {
            const needed = Math.ceil(ids.length / perPage);
            const read = await readPages('ASC', perPage, needed);
            read.forEach((items, i) => {
              if (items.length > perPage)
                violation(`page ${i + 1} holds ${items.length} items, per_page is ${perPage}`);
            });
            const seen = read.flat().map((r) => r.id);
            const dup = seen.find((id, i) => seen.indexOf(id) !== i);
            if (dup !== undefined) violation(`record ${dup} appears on more than one page`);
            const mine = seen.filter((id) => ids.includes(id));
            if (mine.length !== ids.length) {
              violation(
                `pages 1..${needed} at per_page ${perPage} hold ${mine.length} of the ${ids.length} records`,
              );
            }
          }),
          // The smallest page size first: the records then span pages in every profile.
          { seed: ctx.fc.seed, numRuns: examplesFor(ctx, 2), examples: [[{ perPage: PER_PAGE.min }]] },
        );
      }),
    ),
};

const order: PropertyDef = {
  id: 'mgmt.pagination.order-direction',
  title: 'order=name with direction ASC or DESC sorts the list across pages',
  clauses: ['mgmt.pagination.order'],
  requests: 21,
  observe: {
    selects: 'list pages answered 200 to GETs asking for order and direction',
    observer: () => observeOrder,
  },
  run: (ctx) =>
    serial(() =>
      withRecords(ctx, ['ASC', 'DESC'], orderGroupSizes(ctx), async (listed) => {
        const readPages = pageReader(ctx);
        await fc.assert(
          fc.asyncProperty(
            fc.record({ perPage, direction: fc.constantFrom<Direction>('DESC', 'ASC') }),
            async ({ perPage, direction }) => {
              // The records sort first in the direction asked: the list starts with them, in that order.
              const expected = listed[direction] ?? [];
              const needed = Math.ceil(expected.length / perPage);
              const first = (await readPages(direction, perPage, needed)).flat().slice(0, expected.length);
              if (first.map((r) => r.id).join() !== expected.join()) {
                const shown = first.map((r) => r.name);
                violation(
                  `order=name direction=${direction} per_page=${perPage}: the list starts ${JSON.stringify(shown)}`,
                );
              }
            },
          ),
          {
            seed: ctx.fc.seed,
            numRuns: examplesFor(ctx, 3),
            // Both directions at the smallest page size, whatever the seed: an implementation that
            // ignores one of them, or misplaces a later page, fails at once.
            examples: [
              [{ perPage: PER_PAGE.min, direction: 'DESC' }],
              [{ perPage: PER_PAGE.min, direction: 'ASC' }],
            ],
          },
        );
      }),
    ),
};

/** Orders a page may be sorted in: code units, letters' case ignored, the locale's collation, numbers by value. */
const COLLATIONS: ((a: string, b: string) => number)[] = [
  (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  (a, b) => {
    const [x, y] = [a.toLowerCase(), b.toLowerCase()];
    return x < y ? -1 : x > y ? 1 : 0;
  },
  (a, b) => a.localeCompare(b),
  // Numbers within names or addresses (9.0.0.1 before 10.0.0.2).
  (a, b) => a.localeCompare(b, undefined, { numeric: true }),
];

/**
 * A page of a list asked for with order and direction must be sorted by that attribute, in that
 * direction; SPEC names no collation, so any of COLLATIONS will do, and items without the attribute
 * as a string leave the page unjudged.
 */
function observeOrder(ex: ObservedView): boolean | undefined {
  const attribute = ex.query.get('order');
  const direction = ex.query.get('direction')?.toUpperCase();
  if (ex.door !== 'management' || ex.method !== 'GET' || ex.status !== 200 || !attribute) return undefined;
  if (direction !== 'ASC' && direction !== 'DESC') return undefined;
  const env = ex.json() as Page;
  if (env?.success !== true || !Array.isArray(env.result)) return undefined;
  const values = env.result.map((r) => (r as unknown as Record<string, unknown>)?.[attribute]);
  if (!values.every((v): v is string => typeof v === 'string')) return undefined;
  const sign = direction === 'ASC' ? 1 : -1;
  const sorted = COLLATIONS.some((cmp) =>
    values.every((v, i) => i === 0 || sign * cmp(values[i - 1], v) <= 0),
  );
  if (!sorted)
    violation(
      `GET ${ex.path}?${ex.query}: the page is not sorted by ${attribute} ${direction}: ${JSON.stringify(values.slice(0, 20))}`,
    );
  return true;
}

const pageQuery = fc.record({ pick: fc.nat(), perPage });

/**
 * A page that exists at `perPage` in a list of `total` items (the total the answer before reported;
 * page 1 while none is known). The last page is left out, since a record another case deletes
 * meanwhile may take it away.
 */
function existingPage(total: number | undefined, pick: number, perPage: number): number {
  if (total === undefined) return 1;
  const pages = Math.ceil(total / perPage);
  return pages > 2 ? 1 + (pick % (pages - 1)) : 1;
}

type Page = Awaited<ReturnType<typeof listPage>>;

interface At {
  page: number;
  perPage: number;
  where: string;
}

/**
 * Runs `judge` on one existing page per example, one example at a time, each page chosen from the
 * total_count of the answer before (see existingPage). `size` may move the generated page size once a
 * total is known. A counterexample is one answer, which the message quotes: it is not shrunk on the
 * target.
 */
function onExistingPages(
  ctx: PropertyContext,
  examples: number,
  judge: (env: Page, ri: ResultInfo, at: At) => void,
  size: (perPage: number, total: number | undefined) => number = (p) => p,
): Promise<void> {
  let total: number | undefined;
  return serial(() =>
    fc.assert(
      fc.asyncProperty(pageQuery, async ({ pick, perPage: generated }) => {
        const perPage = size(generated, total);
        const page = existingPage(total, pick, perPage);
        const env = await listPage(ctx, zoneId(ctx), { page, per_page: perPage });
        const where = `page ${page} per_page ${perPage}`;
        const ri = info(env, where);
        total = Number.isInteger(ri.total_count) && ri.total_count >= 0 ? ri.total_count : undefined;
        judge(env, ri, { page, perPage, where });
      }),
      { seed: ctx.fc.seed, numRuns: examplesFor(ctx, examples), endOnFailure: true },
    ),
  );
}

/** A list page seen in traffic (edgecheck proxy, edgecheck judge). */
interface ObservedPage {
  env: Page;
  ri: ResultInfo;
  where: string;
  /**
   * The page and page size the request asked for (the target's defaults where it asked for none),
   * when result_info says the target used them; a page answered at another size or number is the
   * echo clause's to judge, and says nothing certain of the others.
   */
  at?: At;
}

/**
 * An observer of management list pages: every GET answered 200 with a success envelope holding a
 * result array and a result_info block goes to `judge`, which answers false where it has nothing
 * to judge.
 */
function onObservedPages(judge: (page: ObservedPage) => unknown): Observer {
  return (ex: ObservedView) => {
    if (ex.door !== 'management' || ex.method !== 'GET' || ex.status !== 200) return undefined;
    const env = ex.json() as Page;
    const ri = env?.result_info;
    if (env?.success !== true || !Array.isArray(env.result) || !ri || typeof ri !== 'object')
      return undefined;
    const asked = (name: string, used: unknown) => {
      const v = ex.query.get(name);
      return v === null ? used : Number(v);
    };
    const page = asked('page', ri.page);
    const perPage = asked('per_page', ri.per_page);
    const where = `GET ${ex.path}${ex.query.size ? `?${ex.query}` : ''}`;
    const used = page === ri.page && perPage === ri.per_page;
    const valid =
      Number.isInteger(page) && Number.isInteger(perPage) && Number(page) >= 1 && Number(perPage) >= 1;
    const at = used && valid ? { page: Number(page), perPage: Number(perPage), where } : undefined;
    return judge({ env, ri, where, at }) !== false;
  };
}

function judgeCount(env: Page, ri: ResultInfo, { where }: Pick<At, 'where'>): void {
  if (ri.count !== env.result.length) {
    violation(`${where}: count is ${ri.count}, the page holds ${env.result.length}`);
  }
}

const count: PropertyDef = {
  id: 'mgmt.result-info.count-matches',
  title: 'result_info.count is the number of items on the page',
  clauses: ['mgmt.result-info.count'],
  readOnly: true,
  requests: 2,
  run: (ctx) => onExistingPages(ctx, 2, judgeCount),
  observe: {
    selects: 'list pages answered 200 with result_info',
    // A block without count (cursor-paginated lists) is the fields clause's to judge, not this one's.
    observer: () =>
      onObservedPages((page) =>
        typeof page.ri.count === 'number' ? judgeCount(page.env, page.ri, page) : false,
      ),
  },
};

/**
 * `perPage`, or once the list's size is known and `perPage` divides it, the next size of PER_PAGE that
 * does not: rounding total_count / per_page up and down then differ, which is what the clause is about.
 */
function leavingARemainder(perPage: number, total: number | undefined): number {
  if (total === undefined || total % perPage !== 0) return perPage;
  const span = PER_PAGE.max - PER_PAGE.min + 1;
  for (let step = 1; step < span; step++) {
    const size = PER_PAGE.min + ((perPage - PER_PAGE.min + step) % span);
    if (total % size !== 0) return size;
  }
  return perPage;
}

const totals: PropertyDef = {
  id: 'mgmt.result-info.totals-consistent',
  title: 'total_pages is total_count / per_page rounded up, and the page size follows from them',
  clauses: ['mgmt.result-info.totals'],
  readOnly: true,
  requests: 3,
  run: (ctx) => onExistingPages(ctx, 3, judgeTotals, leavingARemainder),
  observe: {
    selects: 'list pages answered 200 with result_info, at the page and size asked for, up to the last page',
    // Pages past the last are mgmt.pagination.past-end\'s to judge.
    observer: () =>
      onObservedPages(({ env, ri, at }) =>
        at && at.page <= Math.max(1, Math.ceil(ri.total_count / at.perPage))
          ? judgeTotals(env, ri, at)
          : false,
      ),
  },
};

function judgeTotals(env: Page, ri: ResultInfo, { page, perPage, where }: At): void {
  if (!Number.isInteger(ri.total_count) || !Number.isInteger(ri.total_pages)) {
    violation(`${where}: total_count ${ri.total_count} and total_pages ${ri.total_pages} must be integers`);
  }
  const pagesExpected = Math.ceil(ri.total_count / perPage);
  // An empty list may report zero pages or one empty page.
  const pagesOk = ri.total_pages === pagesExpected || (ri.total_count === 0 && ri.total_pages === 1);
  if (!pagesOk)
    violation(
      `${where}: total_pages is ${ri.total_pages}, total_count ${ri.total_count} gives ${pagesExpected}`,
    );
  const size = Math.min(perPage, Math.max(0, ri.total_count - (page - 1) * perPage));
  if (env.result.length !== size) {
    violation(
      `${where}: the page holds ${env.result.length} items, total_count ${ri.total_count} gives ${size}`,
    );
  }
}

/** The list's size at `perPage` by reading its pages up to the first empty one (an answer without result_info). */
async function countByReading(ctx: PropertyContext, perPage: number, first: RecordView[]): Promise<number> {
  let total = first.length;
  for (let page = 2, items = first; items.length > 0; page++) {
    items = (await listPage(ctx, zoneId(ctx), { page, per_page: perPage })).result;
    total += items.length;
  }
  return total;
}

const pastEnd: PropertyDef = {
  id: 'mgmt.pagination.past-end-empty',
  title: 'A page past the last one is a success with an empty result',
  clauses: ['mgmt.pagination.past-end'],
  readOnly: true,
  requests: 3,
  run: (ctx) => {
    // The list's size, from the answer before; the first example reads page 1 to learn it.
    let total: number | undefined;
    const reported = (env: Page) => {
      const n = env.result_info?.total_count;
      return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
    };
    return serial(() =>
      fc.assert(
        fc.asyncProperty(perPage, fc.integer({ min: 1, max: 5 }), async (perPage, beyond) => {
          if (total === undefined) {
            const first = await listPage(ctx, zoneId(ctx), { page: 1, per_page: perPage });
            // Without result_info, count the records by reading the pages.
            total = reported(first) ?? (await countByReading(ctx, perPage, first.result));
          }
          const last = Math.ceil(total / perPage);
          // Records added by other cases meanwhile may add a page; two spare pages absorb that.
          const page = last + 2 + beyond;
          const env = await listPage(ctx, zoneId(ctx), { page, per_page: perPage });
          judgePastEnd(env.result.length, { page, perPage, where: 'GET dns_records' }, last);
          total = reported(env) ?? total;
        }),
        { seed: ctx.fc.seed, numRuns: examplesFor(ctx, 2), endOnFailure: true },
      ),
    );
  },
  observe: {
    selects: 'list pages asked for by number, and errors answered to them',
    observer: () => {
      // A list's total_count as last reported, by the list and its page size (every query parameter
      // but page): an error for a page well past it is then known to be past the end.
      const totals = new RecentMap<string, { total: number; perPage: number }>();
      return (ex) => {
        if (ex.door !== 'management' || ex.method !== 'GET') return undefined;
        const page = Number(ex.query.get('page') ?? 1);
        const rest = new URLSearchParams([...ex.query].filter(([k]) => k !== 'page').sort());
        const list = `${ex.path}?${rest}`;
        const where = `GET ${ex.path}?${ex.query}`;
        const env = ex.json() as Page;
        const ri = env?.result_info;
        if (env?.success === true && Array.isArray(env.result) && ri && typeof ri === 'object') {
          const perPage = Number(ex.query.get('per_page') ?? ri.per_page);
          if (!Number.isInteger(ri.total_count) || !Number.isInteger(perPage) || perPage < 1)
            return undefined;
          totals.set(list, { total: ri.total_count, perPage });
          const last = Math.max(1, Math.ceil(ri.total_count / perPage));
          if (!Number.isInteger(page) || page <= last) return undefined;
          judgePastEnd(env.result.length, { page, perPage, where }, last);
          return true;
        }
        const known = totals.get(list);
        if (env?.success !== false || !known || !Number.isInteger(page)) return undefined;
        // Records added elsewhere meanwhile may add a page; two spare pages absorb that, as in run.
        const last = Math.max(1, Math.ceil(known.total / known.perPage));
        if (page <= last + 2) return undefined;
        violation(
          `${where}: page ${page} (last is ${last}) answered an error, ${JSON.stringify(env.errors)}`,
        );
      };
    },
  },
};

/**
 * The page sizes whose echo traffic is judged on: those the checks of a run ask for (PER_PAGE here,
 * SPEC's example 20 in the case). SPEC states no smallest or largest size, and a service answers
 * another size for one it does not take.
 */
const ECHOED = { min: PER_PAGE.min, max: 20 } as const;

/** result_info says the page size asked for, and the page where one was asked for. */
function judgeEcho(ri: ResultInfo, { page, perPage, where }: Omit<At, 'page'> & { page?: number }): void {
  if (ri.per_page !== perPage)
    violation(
      `${where}: result_info.per_page is ${JSON.stringify(ri.per_page)}, per_page ${perPage} was asked for`,
    );
  if (page !== undefined && ri.page !== page)
    violation(`${where}: result_info.page is ${JSON.stringify(ri.page)}, page ${page} was asked for`);
}

const echo: PropertyDef = {
  id: 'mgmt.pagination.echo-asked',
  title: 'result_info echoes the page and per_page asked for, at any page size from 5 to 10',
  clauses: ['mgmt.pagination.echo'],
  readOnly: true,
  requests: 2,
  run: (ctx) => onExistingPages(ctx, 2, (_env, ri, at) => judgeEcho(ri, at)),
  observe: {
    selects: `list pages answered 200 to GETs asking for a per_page from ${ECHOED.min} to ${ECHOED.max} (the page too, up to the last)`,
    observer: () => observeEcho,
  },
};

/** A query parameter's value as a whole number, else undefined. */
function wholeNumber(value: string | null): number | undefined {
  return value !== null && /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}

function observeEcho(ex: ObservedView): boolean | undefined {
  if (ex.door !== 'management' || ex.method !== 'GET' || ex.status !== 200) return undefined;
  const perPage = wholeNumber(ex.query.get('per_page'));
  if (perPage === undefined || perPage < ECHOED.min || perPage > ECHOED.max) return undefined;
  const env = ex.json() as Page;
  const ri = env?.result_info;
  // A list without result_info, or a block without per_page, is another clause's to judge.
  if (env?.success !== true || !Array.isArray(env.result) || !ri || typeof ri !== 'object') return undefined;
  if (ri.per_page === undefined) return undefined;
  // The page's echo where one was asked for, up to the last: one past it is mgmt.pagination.past-end's.
  let page = wholeNumber(ex.query.get('page'));
  const last = Number.isInteger(ri.total_count) ? Math.max(1, Math.ceil(ri.total_count / perPage)) : 0;
  if (page !== undefined && (page < 1 || page > last)) page = undefined;
  judgeEcho(ri, { page, perPage, where: `GET ${ex.path}?${ex.query}` });
  return true;
}

/** A page past the last one holds nothing. */
function judgePastEnd(items: number, { page, perPage, where }: At, last: number): void {
  if (items !== 0)
    violation(`${where}: page ${page} at per_page ${perPage} (last is ${last}) holds ${items} items`);
}

export default [pages, order, count, totals, pastEnd, echo] satisfies PropertyDef[];
