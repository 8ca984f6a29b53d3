import type { ReferenceContext } from '../context.ts';
import { badRequest } from './api-error.ts';

/** SPEC: result_info (pagination block). */
export interface ResultInfo {
  page: number;
  per_page: number;
  count: number;
  total_count: number;
  total_pages: number;
}

export interface ListSpec<T> {
  /** Attributes accepted by `order`, with how to read them from an item. */
  orderBy: Record<string, (item: T) => string | number | boolean | undefined>;
  /** Attribute used when `direction` comes without `order`. */
  defaultOrder: string;
  defaultPerPage: number;
  maxPerPage: number;
}

export interface Page<T> {
  items: T[];
  info?: ResultInfo;
}

function positiveInt(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  if (!/^-?\d+$/.test(raw.trim())) throw badRequest(`${name} must be an integer, got '${raw}'`);
  return Number.parseInt(raw, 10);
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}

/** Applies page, per_page, order and direction to a list (SPEC: Endpoints, pagination query parameters). */
export function paginate<T>(
  ctx: ReferenceContext,
  all: T[],
  query: URLSearchParams,
  spec: ListSpec<T>,
): Page<T> {
  const page = positiveInt(query, 'page') ?? 1;
  if (page < 1) throw badRequest(`page must be 1 or more, got ${page}`);
  let perPage = positiveInt(query, 'per_page') ?? spec.defaultPerPage;
  if (perPage < 1 || perPage > spec.maxPerPage) {
    throw badRequest(`per_page must be between 1 and ${spec.maxPerPage}, got ${perPage}`);
  }
  // A page size over 10 not taken: the default one answered instead, and result_info says so.
  if (perPage > 10 && perPage !== spec.defaultPerPage && ctx.faults.has('per-page-over-10-ignored'))
    perPage = spec.defaultPerPage;
  const order = query.get('order');
  if (order !== null && !(order in spec.orderBy)) {
    throw badRequest(`order must be one of ${Object.keys(spec.orderBy).join(', ')}, got '${order}'`);
  }
  const rawDirection = query.get('direction');
  let direction: 'asc' | 'desc' | undefined;
  if (rawDirection !== null) {
    const d = rawDirection.toLowerCase();
    if (d !== 'asc' && d !== 'desc') throw badRequest(`direction must be ASC or DESC, got '${rawDirection}'`);
    direction = d;
  }
  if (ctx.faults.has('ignore-direction')) direction = undefined;

  let sorted = all;
  if (order !== null || direction !== undefined) {
    const key = spec.orderBy[order ?? spec.defaultOrder];
    const sign = direction === 'desc' ? -1 : 1;
    // Stable sort keeps insertion order among equal keys, so pages never overlap.
    sorted = [...all].sort((a, b) => sign * compare(key(a), key(b)));
  }
  const totalCount = sorted.length;
  const totalPages = Math.ceil(totalCount / perPage);
  if (page > totalPages && totalCount > 0 && ctx.faults.has('error-past-last-page')) {
    throw badRequest(`page ${page} is past the last page ${totalPages}`);
  }
  // A page past the end clamped to the last page.
  const clamp = page > totalPages && totalCount > 0 && ctx.faults.has('past-end-last-page');
  let start = ((clamp ? totalPages : page) - 1) * perPage;
  // A page's offset computed with the default per_page, or each later page starting one item early
  // (repeating the last of the page before).
  if (page > 1 && perPage !== spec.defaultPerPage && ctx.faults.has('page-offset-default-per-page'))
    start = (page - 1) * spec.defaultPerPage;
  else if (page > 1 && ctx.faults.has('page-offset-overlap')) start -= 1;
  const items = sorted.slice(start, start + perPage);
  if (ctx.faults.has('drop-result-info')) return { items };
  const info: ResultInfo = {
    page,
    per_page: perPage,
    count: items.length,
    total_count: totalCount,
    total_pages: totalPages,
  };
  // Slips in the block: total_pages rounded down, per_page answered as the default.
  const floor = Math.floor(totalCount / perPage);
  if (floor !== totalPages && ctx.faults.has('total-pages-floor')) info.total_pages = floor;
  if (perPage !== spec.defaultPerPage && ctx.faults.has('echo-default-per-page'))
    info.per_page = spec.defaultPerPage;
  return { items, info };
}
