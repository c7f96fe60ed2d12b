import { fail } from './respond.js';
import type { State } from './state.js';
import type { SimRequest, SimResponse } from './types.js';

export interface RouteContext {
  state: State;
  req: SimRequest;
  params: Record<string, string>;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Segments separated by `/`; `:name` captures one decoded segment. */
  path: string;
  handle(context: RouteContext): SimResponse;
}

/** Finds the route for a request: 404 `Not Found` for an unknown path, 405 for a known path with another method. */
export function dispatch(routes: readonly Route[], state: State, req: SimRequest): SimResponse {
  const allowed: string[] = [];
  for (const route of routes) {
    const params = match(route.path, req.segments);
    if (!params) continue;
    if (route.method === req.method) return route.handle({ state, req, params });
    allowed.push(route.method);
  }
  if (allowed.length > 0) return fail(405, 'Method Not Allowed', { allow: allowed.join(', ') });
  return fail(404, 'Not Found');
}

function match(pattern: string, segments: string[]): Record<string, string> | undefined {
  const parts = pattern.split('/').filter(Boolean);
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of parts.entries()) {
    const segment = segments[index]!;
    if (part.startsWith(':')) params[part.slice(1)] = segment;
    else if (part !== segment) return undefined;
  }
  return params;
}
