import { fc, type PropertyContext, type PropertyDef } from 'edgecheck/kit';
import { createRecords, deleteRecords, listPage, type RecordView, zoneName } from './support/dns-records.ts';
import { type ResultInfo, violation } from './support/envelope.ts';
import { serialQueue } from './support/serial.ts';

/*
 * Pagination of GET /zones/{zone_id}/dns_records. Other cases add and remove records while these run,
 * so the record-creating properties order by name and give their records names that sort first in
 * the direction asked ("0-..." ascending, "zz-..." descending): the pages that hold them are then
 * unaffected by records added elsewhere. per_page stays within 5..10, which the real service accepts.
 */

const serial = serialQueue();
let batch = 0;

function zoneId(ctx: PropertyContext): string {
  const id = ctx.target.management?.zoneId;
  if (!id) ctx.skip('the target config has no zoneId');
  return id;
}

function info(env: { result_info?: ResultInfo }, what: string): ResultInfo {
  if (!env.result_info || typeof env.result_info !== 'object') violation(`${what}: no result_info`);
  return env.result_info;
}

/** Creates `count` records, runs `body` with them, deletes them whatever happened. */
async function withRecords<T>(
  ctx: PropertyContext,
  lead: string,
  count: number,
  body: (ids: string[]) => Promise<T>,
): Promise<T> {
  const zid = zoneId(ctx);
  const zone = await zoneName(ctx, zid);
  const prefix = `${lead}-ec-${ctx.runId}-${batch++}`;
  const ids: string[] = [];
  try {
    await createRecords(ctx, zid, zone, prefix, count, ids);
    return await body(ids);
  } finally {
    await deleteRecords(ctx, zid, ids);
  }
}

/** Reads pages 1..n in order and returns them. */
async function readPages(
  ctx: PropertyContext,
  pages: number,
  query: Record<string, string | number>,
): Promise<RecordView[][]> {
  const out: RecordView[][] = [];
  for (let page = 1; page <= pages; page++) {
    const env = await listPage(ctx, zoneId(ctx), { ...query, page });
    out.push(env.result);
  }
  return out;
}

const sizes = fc.record({ count: fc.integer({ min: 0, max: 14 }), perPage: fc.integer({ min: 5, max: 10 }) });

const pages: PropertyDef = {
  id: 'mgmt.pagination.pages-partition',
  title: 'The pages of a list, read in turn, hold every record exactly once',
  clauses: ['mgmt.pagination.pages'],
  run: (ctx) =>
    serial(() =>
      fc.assert(
        fc.asyncProperty(sizes, ({ count, perPage }) =>
          withRecords(ctx, '0', count, async (ids) => {
            const needed = Math.ceil(count / perPage);
            const read = await readPages(ctx, needed, { per_page: perPage, order: 'name', direction: 'ASC' });
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
        ),
        { seed: ctx.fc.seed, numRuns: ctx.fc.numRuns },
      ),
    ),
};

const order: PropertyDef = {
  id: 'mgmt.pagination.order-direction',
  title: 'order=name with direction ASC or DESC sorts the list across pages',
  clauses: ['mgmt.pagination.order'],
  run: (ctx) =>
    serial(() =>
      fc.assert(
        fc.asyncProperty(
          sizes.filter((s) => s.count > 1),
          async ({ count, perPage }) => {
            // Both directions for every size: an implementation that ignores one of them fails at once.
            for (const direction of ['DESC', 'ASC'] as const) {
              await withRecords(ctx, direction === 'ASC' ? '0' : 'zz', count, async (ids) => {
                // The records sort first in the direction asked, and were created in name order.
                const needed = Math.ceil(count / perPage);
                const read = (
                  await readPages(ctx, needed, { per_page: perPage, order: 'name', direction })
                ).flat();
                const first = read.slice(0, count);
                const expected = direction === 'ASC' ? ids : [...ids].reverse();
                if (first.map((r) => r.id).join() !== expected.join()) {
                  const shown = first.map((r) => r.name);
                  violation(`order=name direction=${direction}: the list starts ${JSON.stringify(shown)}`);
                }
              });
            }
          },
        ),
        { seed: ctx.fc.seed, numRuns: ctx.fc.numRuns },
      ),
    ),
};

const pageQuery = fc.record({ pick: fc.nat(), perPage: fc.integer({ min: 5, max: 10 }) });

/**
 * A page that exists: total_pages comes from page 1 (past-end pages are a clause of their own). The last
 * page is left out, since a record another case deletes meanwhile may take it away.
 */
async function existingPage(ctx: PropertyContext, pick: number, perPage: number): Promise<number> {
  const first = await listPage(ctx, zoneId(ctx), { page: 1, per_page: perPage });
  const pages = info(first, `page 1 per_page ${perPage}`).total_pages;
  return Number.isInteger(pages) && pages > 2 ? 1 + (pick % (pages - 1)) : 1;
}

type Page = Awaited<ReturnType<typeof listPage>>;

/** Runs `judge` on existing pages of seeded sizes, one at a time (see existingPage). */
function onExistingPages(
  ctx: PropertyContext,
  judge: (
    env: Page,
    ri: ReturnType<typeof info>,
    at: { page: number; perPage: number; where: string },
  ) => void,
): Promise<void> {
  return serial(() =>
    fc.assert(
      fc.asyncProperty(pageQuery, async ({ pick, perPage }) => {
        const page = await existingPage(ctx, pick, perPage);
        const env = await listPage(ctx, zoneId(ctx), { page, per_page: perPage });
        const where = `page ${page} per_page ${perPage}`;
        judge(env, info(env, where), { page, perPage, where });
      }),
      { seed: ctx.fc.seed, numRuns: ctx.fc.numRuns },
    ),
  );
}

const count: PropertyDef = {
  id: 'mgmt.result-info.count-matches',
  title: 'result_info.count is the number of items on the page',
  clauses: ['mgmt.result-info.count'],
  readOnly: true,
  run: (ctx) =>
    onExistingPages(ctx, (env, ri, { where }) => {
      if (ri.count !== env.result.length) {
        violation(`${where}: count is ${ri.count}, the page holds ${env.result.length}`);
      }
    }),
};

const totals: PropertyDef = {
  id: 'mgmt.result-info.totals-consistent',
  title: 'total_pages is total_count / per_page rounded up, and the page size follows from them',
  clauses: ['mgmt.result-info.totals'],
  readOnly: true,
  run: (ctx) =>
    onExistingPages(ctx, (env, ri, { page, perPage, where }) => {
      if (!Number.isInteger(ri.total_count) || !Number.isInteger(ri.total_pages)) {
        violation(
          `${where}: total_count ${ri.total_count} and total_pages ${ri.total_pages} must be integers`,
        );
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
    }),
};

const pastEnd: PropertyDef = {
  id: 'mgmt.pagination.past-end-empty',
  title: 'A page past the last one is a success with an empty result',
  clauses: ['mgmt.pagination.past-end'],
  readOnly: true,
  run: (ctx) =>
    serial(() =>
      fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 5, max: 10 }),
          fc.integer({ min: 1, max: 5 }),
          async (perPage, beyond) => {
            const first = await listPage(ctx, zoneId(ctx), { page: 1, per_page: perPage });
            const total = first.result_info?.total_count;
            // Without result_info, count the pages by reading them.
            let last = typeof total === 'number' ? Math.ceil(total / perPage) : undefined;
            if (last === undefined) {
              last = 1;
              while (
                (await listPage(ctx, zoneId(ctx), { page: last + 1, per_page: perPage })).result.length > 0
              )
                last++;
            }
            // Records added by other cases meanwhile may add a page; two spare pages absorb that.
            const page = last + 2 + beyond;
            const env = await listPage(ctx, zoneId(ctx), { page, per_page: perPage });
            if (env.result.length !== 0)
              violation(`page ${page} (last is ${last}) holds ${env.result.length} items`);
          },
        ),
        { seed: ctx.fc.seed, numRuns: ctx.fc.numRuns },
      ),
    ),
};

export default [pages, order, count, totals, pastEnd] satisfies PropertyDef[];
