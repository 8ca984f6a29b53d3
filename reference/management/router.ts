import type http from 'node:http';
import type { ReferenceContext } from '../context.ts';
import { methodNotAllowed, noRoute } from './api-error.ts';
import type { ResultInfo } from './pagination.ts';
import type { State } from './store.ts';

export interface ApiRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  headers: http.IncomingHttpHeaders;
  ctx: ReferenceContext;
  state: State;
}

export interface ApiResult {
  status?: number;
  result: unknown;
  resultInfo?: ResultInfo;
  /** Set only by faults: what a success envelope carries in errors instead of []. */
  errors?: unknown;
}

/**
 * Handlers run synchronously once the body is read: every read-modify-write of the in-memory state
 * happens in one turn of the event loop, so parallel writers never lose an update.
 */
export type RouteHandler = (req: ApiRequest) => ApiResult;

interface Route {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

export class Router {
  private readonly routes: Route[] = [];

  /** Pattern segments starting with ':' are parameters, e.g. '/zones/:zone_id/dns_records'. */
  on(methods: string | string[], pattern: string, handler: RouteHandler): this {
    for (const method of Array.isArray(methods) ? methods : [methods]) {
      this.routes.push({ method, segments: split(pattern), handler });
    }
    return this;
  }

  /** Finds the handler; unknown paths and unknown methods on known paths get distinct no-route errors. */
  match(method: string, path: string): { handler: RouteHandler; params: Record<string, string> } {
    const parts = split(path);
    let pathKnown = false;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      pathKnown = true;
      if (route.method === method) return { handler: route.handler, params };
    }
    if (pathKnown) {
      throw methodNotAllowed(method);
    }
    throw noRoute();
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.startsWith(':')) {
      let value: string;
      try {
        value = decodeURIComponent(parts[i]);
      } catch {
        return undefined;
      }
      params[p.slice(1)] = value;
    } else if (p !== parts[i]) {
      return undefined;
    }
  }
  return params;
}
