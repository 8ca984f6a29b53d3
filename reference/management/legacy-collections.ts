import { badRequest, noRoute, notFound } from './api-error.ts';
import { newId, nowIso } from './ids.ts';
import { type ListSpec, paginate } from './pagination.ts';
import { guardRetired, type Retirement } from './retirement.ts';
import type { ApiRequest, ApiResult, Router } from './router.ts';
import { requireAccount, requireZone } from './scope.ts';
import type { Json } from './store.ts';

/**
 * A plausible minimal implementation of an endpoint that SPEC retires: enough that it works before its
 * end-of-life date (lists list, creates create, reads read what was written), nothing more.
 */
export interface LegacyRoute {
  pattern: string;
  methods: string[];
  /** `collection`: list/create/bulk; `item`: one member of the parent collection; `singleton`: one object;
   *  `action`: POST that returns a new object. */
  shape: 'collection' | 'item' | 'singleton' | 'action';
  /** Members a collection starts with (collections) or the object's initial fields (singletons, actions). */
  seed?: (params: Record<string, string>) => Json[];
}

const LIST: ListSpec<Json> = {
  orderBy: { id: (i) => String(i.id), created_on: (i) => String(i.created_on) },
  defaultOrder: 'created_on',
  defaultPerPage: 25,
  maxPerPage: 1000,
};

function concrete(pattern: string, params: Record<string, string>): string {
  return pattern.replace(/:([a-z_]+)/g, (_, name: string) => params[name] ?? '');
}

function checkParents(req: ApiRequest): void {
  if (req.params.zone_id !== undefined) requireZone(req);
  if (req.params.account_id !== undefined) requireAccount(req);
}

function collection(req: ApiRequest, pattern: string, seed?: LegacyRoute['seed']): Map<string, Json> {
  const key = concrete(pattern, req.params);
  let items = req.state.legacy.get(key);
  if (!items) {
    items = new Map((seed?.(req.params) ?? []).map((i) => [String(i.id), structuredClone(i)]));
    req.state.legacy.set(key, items);
  }
  return items;
}

function bodyItems(req: ApiRequest): Json[] {
  const body = req.body;
  const list = Array.isArray(body) ? body : body === undefined ? [] : [body];
  if (list.some((i) => typeof i !== 'object' || i === null || Array.isArray(i))) {
    throw badRequest('request body must be a JSON object or an array of objects');
  }
  return list as Json[];
}

function handle(req: ApiRequest, route: LegacyRoute, siblings: LegacyRoute[]): ApiResult {
  checkParents(req);
  const now = nowIso();
  switch (route.shape) {
    case 'singleton': {
      const items = collection(req, route.pattern, route.seed);
      const current = items.get('self') ?? structuredClone(route.seed?.(req.params)[0] ?? {});
      if (req.method !== 'GET') Object.assign(current, bodyItems(req)[0] ?? {}, { modified_on: now });
      items.set('self', current);
      return { result: current };
    }
    case 'action':
      return { result: { ...(route.seed?.(req.params)[0] ?? {}), id: newId(), created_on: now } };
    case 'collection': {
      const items = collection(req, route.pattern, route.seed);
      if (req.method === 'GET') {
        const page = paginate(req.ctx, [...items.values()], req.query, LIST);
        return { result: page.items, resultInfo: page.info };
      }
      if (req.method === 'POST') {
        const created = bodyItems(req).map((i) => ({ ...i, id: newId(), created_on: now, modified_on: now }));
        for (const item of created) items.set(item.id as string, item);
        return { result: Array.isArray(req.body) ? created : created[0] };
      }
      if (req.method === 'DELETE') {
        const ids = req.query.getAll('id').concat(bodyItems(req).map((i) => String(i.id)));
        const gone = ids.filter((id) => items.delete(id)).map((id) => ({ id }));
        return { result: gone };
      }
      // PUT and PATCH on a collection update the members named by id.
      const updated = bodyItems(req).map((i) => {
        const current = items.get(String(i.id));
        if (!current) throw notFound(`item ${String(i.id)}`);
        return Object.assign(current, i, { modified_on: now });
      });
      return { result: updated };
    }
    case 'item': {
      const parent = siblings.find(
        (r) => r.shape === 'collection' && route.pattern.startsWith(`${r.pattern}/`),
      );
      const parentPattern = route.pattern.slice(0, route.pattern.lastIndexOf('/'));
      const items = collection(req, parentPattern, parent?.seed);
      const id = req.params[route.pattern.slice(route.pattern.lastIndexOf(':') + 1)];
      const current = items.get(id);
      if (req.method === 'POST') {
        const item = { ...(bodyItems(req)[0] ?? {}), id, created_on: now, modified_on: now };
        items.set(id, item);
        return { result: item };
      }
      if (!current) throw notFound(`item ${id}`);
      if (req.method === 'GET') return { result: current };
      if (req.method === 'DELETE') {
        items.delete(id);
        return { result: { id } };
      }
      const changes = bodyItems(req)[0] ?? {};
      const next =
        req.method === 'PUT'
          ? { ...changes, id, created_on: current.created_on }
          : { ...current, ...changes };
      const stored = Object.assign(next, { id, modified_on: now });
      items.set(id, stored);
      return { result: stored };
    }
  }
}

/** Registers the routes of one retired subject; `retirement` absent means the routes never retire. */
export function registerLegacy(
  router: Router,
  retirement: Retirement | undefined,
  routes: LegacyRoute[],
  /** A fault that removes these routes (for replacements that must exist). */
  missingFault?: string,
  /** Where a fault changes what these routes answer: it gets the request and the result. */
  reshape?: (req: ApiRequest, result: unknown) => unknown,
): void {
  for (const route of routes) {
    router.on(route.methods, route.pattern, (req) => {
      if (missingFault && req.ctx.faults.has(missingFault)) throw noRoute();
      if (retirement) guardRetired(req.ctx, retirement);
      const out = handle(req, route, routes);
      return reshape ? { ...out, result: reshape(req, out.result) } : out;
    });
  }
}
