// The one route table: every route's method, path, error family, body class, authentication and front. Fastify's
// registration is checked against it (a route not in it, or a row not registered, stops the start: fastify-front.ts),
// and the body limits, the lane's routes, the 405 table, the auth decision, the error family and the OpenAPI paths
// all read it. Adding a route: a row here, its handler in routes/, its document in openapi/.
import type { Family } from '../../errors/render.ts';
import { familyOf } from '../../errors/render.ts';
import type { BodyClass } from './body-limits.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/**
 * token: a client token, admitted by the front; admin: the admin key or a console session (routes/admin/admin-auth.ts);
 * metrics: GET /metrics's bearer (routes/ops.ts); session: the console's sign-in (the admin key in the body) and its
 * session cookie (routes/console/session.ts); none.
 */
export type Auth = 'token' | 'admin' | 'metrics' | 'session' | 'none';

export interface RouteRow {
  method: Method;
  /** Fastify's syntax (`:id`), no trailing slash. */
  path: string;
  family: Family;
  body: BodyClass;
  auth: Auth;
  /** lane: served by the text lane, straight from node:http; fastify: registered on Fastify. */
  front: 'lane' | 'fastify';
  /** Registered only with the console on (TOLLWAY_CONSOLE). */
  console?: true;
}

type Spec = [Method, string, BodyClass?];

function rows(base: Omit<RouteRow, 'method' | 'path' | 'body'>, prefix: string, specs: Spec[]): RouteRow[] {
  return specs.map(([method, path, body]) => ({ ...base, method, path: (prefix + path).replace(/\/$/, '') || '/', body: body ?? 'control' }));
}

const V1 = { family: 'v1', auth: 'token', front: 'fastify' } as const;
const VIDX = { family: 'vidx', auth: 'token', front: 'fastify' } as const;
const ADMIN = { family: 'v1', auth: 'admin', front: 'fastify' } as const;
const OPS = { family: 'v1', auth: 'none', front: 'fastify' } as const;
const CONSOLE = { family: 'v1', auth: 'none', front: 'fastify', console: true } as const;

/** A family A task kind's routes: creation, then the caller's own tasks, one and listed. */
const vidxTask = (path: string, create: BodyClass): Spec[] => [
  ['POST', path, create],
  ['GET', path],
  ['GET', `${path}/:id`],
];

export const ROUTES: readonly RouteRow[] = [
  ...rows(OPS, '', [
    ['GET', '/healthz'],
    ['GET', '/readyz'],
    ['GET', '/openapi.json'],
  ]),
  ...rows({ ...OPS, auth: 'metrics' }, '', [['GET', '/metrics']]),
  ...rows({ ...V1, front: 'lane' }, '/v1', [
    ['POST', '/chat/completions', 'chat'],
    ['POST', '/responses', 'chat'],
    ['POST', '/embeddings', 'text'],
  ]),
  ...rows({ ...V1, front: 'lane', family: 'messages' }, '/v1', [['POST', '/messages', 'chat']]),
  ...rows({ ...V1, family: 'messages' }, '/v1', [['POST', '/messages/count_tokens', 'chat']]),
  ...rows(V1, '/v1', [
    ['GET', '/models'],
    ['GET', '/models/:id'],
    ['GET', '/usage'],
    ['POST', '/images/generations', 'media'],
    ['POST', '/images/edits', 'upload'],
    ['POST', '/videos', 'upload'],
    ['GET', '/videos'],
    ['GET', '/videos/:id'],
    ['GET', '/videos/:id/content'],
  ]),
  ...rows(VIDX, '/vidx/v1/videos', [
    ...vidxTask('/text2video', 'media'),
    ...vidxTask('/omni-video', 'media'),
    ...vidxTask('/multi-elements', 'media'),
    ...(['init', 'add', 'delete', 'clear', 'preview'] as const).map((s): Spec => ['POST', `/multi-elements/${s}-selection`]),
  ]),
  // Upstream completion notices carry no bearer token: their address holds an HMAC tag instead.
  ...rows({ ...VIDX, auth: 'none' }, '/vidx/callbacks', [['POST', '/kling/:ref']]),
  ...rows(ADMIN, '/admin', [
    ['POST', '/tokens'],
    ['GET', '/tokens'],
    ['GET', '/tokens/:id'],
    ['PATCH', '/tokens/:id'],
    ['DELETE', '/tokens/:id'],
    ['GET', '/tokens/:id/usage'],
    ['POST', '/tokens/:id/topup'],
    ['POST', '/tokens/:id/rotate'],
    ['POST', '/tokens/:id/callback-secret/rotate'],
    ['POST', '/channels'],
    ['GET', '/channels'],
    ['GET', '/channels/:id'],
    ['PATCH', '/channels/:id'],
    ['DELETE', '/channels/:id'],
    ['GET', '/channels/:id/capacity'],
    ['POST', '/channels/:id/test'],
    ['POST', '/channels/:id/disable'],
    ['POST', '/channels/:id/enable'],
    ['GET', '/prices'],
    ['GET', '/prices/:model'],
    ['PUT', '/prices/:model'],
    ['DELETE', '/prices/:model'],
    ['GET', '/prices/:model/history'],
    ['GET', '/audit'],
    ['GET', '/ledger'],
    ['GET', '/logs'],
    ['GET', '/bills'],
    ['GET', '/reconcile'],
    ['GET', '/health'],
    ['GET', '/stats'],
    ['GET', '/tasks'],
    ['GET', '/tasks/:id'],
    ['GET', '/tasks/:id/content'],
    ['POST', '/tasks/:id/cancel'],
    ['POST', '/accounts'],
    ['GET', '/accounts'],
    ['GET', '/accounts/:id'],
    ['PATCH', '/accounts/:id'],
    ['DELETE', '/accounts/:id'],
    ['POST', '/accounts/:id/topup'],
    ['GET', '/accounts/:id/usage'],
    ['GET', '/price-groups'],
    ['GET', '/price-groups/:name'],
    ['PUT', '/price-groups/:name'],
    ['POST', '/webhooks'],
    ['GET', '/webhooks'],
    ['GET', '/webhooks/:id'],
    ['PATCH', '/webhooks/:id'],
    ['DELETE', '/webhooks/:id'],
    ['GET', '/webhooks/:id/deliveries'],
  ]),
  ...rows(CONSOLE, '/console', [
    ['GET', '/'],
    ['GET', '/app.js'],
    ['GET', '/app.css'],
  ]),
  ...rows({ ...CONSOLE, auth: 'session' }, '/console', [
    ['POST', '/api/session'],
    ['GET', '/api/session'],
    ['DELETE', '/api/session'],
  ]),
];

const key = (method: string, path: string) => `${method} ${path}`;
const byKey = new Map(ROUTES.map((r) => [key(r.method, r.path), r]));

/** The row of a registered route (Fastify's url, trailing slash or not); HEAD is its GET's. */
export function rowOf(method: string, url: string): RouteRow | undefined {
  const path = url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
  return byKey.get(key(method === 'HEAD' ? 'GET' : method, path));
}

/** The rows a server with this configuration registers. */
export const activeRoutes = (consoleOn: boolean): RouteRow[] => ROUTES.filter((r) => consoleOn || !r.console);

/**
 * A path no route has (a 404, a 405): its family and whether its caller is authenticated first (an unknown path
 * under an API family answers 401 to a caller without a token, as its routes do) — by the prefix of the API it is under.
 */
export function unmatched(path: string): { family: Family; auth: boolean } {
  return { family: familyOf(path), auth: (path.startsWith('/v1/') || path.startsWith('/vidx/')) && !path.startsWith('/vidx/callbacks/') };
}

/** The body class of a path's route with a body (POST, PUT or PATCH); control for any other. */
export function bodyClassOf(url: string): BodyClass {
  const path = url.replace(/\/+$/, '');
  for (const r of ROUTES) if (r.path === path && r.method !== 'GET' && r.method !== 'DELETE') return r.body;
  return 'control';
}
