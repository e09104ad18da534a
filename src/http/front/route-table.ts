// The one route table: every route's method, path, error family, body class, authentication, front — and its
// handler. Both fronts register by iterating it (the text lane its lane rows; Fastify the others, each group in its
// scope: fastify-front.ts), and the body limits, the 405 table, the auth decision, the error family and the
// OpenAPI paths all read it. Adding a route: a row here with its handler (routes/), its document in openapi/.
import { familyOf } from '../../errors/render.ts';
import * as accounts from '../routes/admin/accounts.ts';
import { audit } from '../routes/admin/audit.ts';
import { bills } from '../routes/admin/bills.ts';
import * as channels from '../routes/admin/channels.ts';
import { ADMIN_SCOPE } from '../routes/admin/index.ts';
import { ledger } from '../routes/admin/ledger.ts';
import { logs } from '../routes/admin/logs.ts';
import * as prices from '../routes/admin/prices.ts';
import { reconcile } from '../routes/admin/reconcile.ts';
import { health, stats } from '../routes/admin/stats.ts';
import * as tasks from '../routes/admin/tasks.ts';
import * as tokens from '../routes/admin/tokens.ts';
import * as webhooks from '../routes/admin/webhooks.ts';
import * as consoleApp from '../routes/console/index.ts';
import * as session from '../routes/console/session.ts';
import * as ops from '../routes/ops.ts';
import { chat } from '../routes/v1/chat.ts';
import { countTokens } from '../routes/v1/count-tokens.ts';
import { embeddings } from '../routes/v1/embeddings.ts';
import * as images from '../routes/v1/images.ts';
import { V1_SCOPE } from '../routes/v1/index.ts';
import { messages } from '../routes/v1/messages.ts';
import * as models from '../routes/v1/models.ts';
import { responses } from '../routes/v1/responses.ts';
import { usage } from '../routes/v1/usage.ts';
import * as billing from '../routes/v1/billing-dashboard.ts';
import * as videos from '../routes/v1/videos.ts';
import { CALLBACK_SCOPE, VIDX_SCOPE } from '../routes/vidx/index.ts';
import * as edit from '../routes/vidx/multi-elements.ts';
import { omniVideo } from '../routes/vidx/omni-video.ts';
import type { TaskRoutes } from '../routes/vidx/task-query.ts';
import { text2video } from '../routes/vidx/text2video.ts';
import { klingNotice } from '../routes/vidx/upstream-callback.ts';
import type { BodyClass } from './body-limits.ts';
import type { FastifyRoute, FastifyRow, LaneRoute, LaneRow, Method, RouteInfo, RouteRow, Scope } from './route-row.ts';

export type { Auth, Method, RouteInfo, RouteRow } from './route-row.ts';

type Spec = [Method, string, FastifyRoute, BodyClass?];
type Base = Pick<RouteInfo, 'family' | 'auth' | 'console'> & { scope: Scope };

const join = (prefix: string, path: string) => (prefix + path).replace(/\/$/, '') || '/';

/** Fastify rows, their paths under their scope's prefix. */
function rows(base: Base, specs: Spec[]): FastifyRow[] {
  return specs.map(([method, path, handler, body]) => ({
    ...base,
    front: 'fastify',
    method,
    path: join(base.scope.prefix, path),
    body: body ?? 'control',
    handler,
  }));
}

/** The text lane's rows: POST, token-authenticated. */
function lane(family: RouteInfo['family'], specs: Array<[string, LaneRoute, BodyClass]>): LaneRow[] {
  return specs.map(([path, handler, body]) => {
    const row: LaneRow = { family, auth: 'token', front: 'lane', method: 'POST', path, body, handler };
    return row;
  });
}

const OPS = { family: 'v1', auth: 'none', scope: ops.OPS_SCOPE } as const;
const V1 = { family: 'v1', auth: 'token', scope: V1_SCOPE } as const;
const VIDX = { family: 'vidx', auth: 'token', scope: VIDX_SCOPE } as const;
const ADMIN = { family: 'v1', auth: 'admin', scope: ADMIN_SCOPE } as const;
const CONSOLE = { family: 'v1', auth: 'none', console: true, scope: consoleApp.CONSOLE_SCOPE } as const;

/** A family A task kind's routes: creation, then the caller's own tasks, listed and one. */
const vidxTask = (path: string, r: TaskRoutes): Spec[] => [
  ['POST', path, r.create, 'media'],
  ['GET', path, r.list],
  ['GET', `${path}/:id`, r.one],
];

export const ROUTES: readonly RouteRow[] = [
  ...rows(OPS, [
    ['GET', '/healthz', ops.healthz],
    ['GET', '/readyz', ops.readyz],
    ['GET', '/openapi.json', ops.openApi],
  ]),
  ...rows({ ...OPS, auth: 'metrics' }, [['GET', '/metrics', ops.metrics]]),
  // The legacy billing paths dashboards read, at the root as new-api serves them (and under /v1 below).
  ...rows({ ...OPS, auth: 'token' }, [
    ['GET', '/dashboard/billing/subscription', billing.subscription],
    ['GET', '/dashboard/billing/usage', billing.usage],
  ]),
  ...lane('v1', [
    ['/v1/chat/completions', chat, 'chat'],
    ['/v1/responses', responses, 'chat'],
    ['/v1/embeddings', embeddings, 'text'],
  ]),
  ...lane('messages', [['/v1/messages', messages, 'chat']]),
  ...rows({ ...V1, family: 'messages' }, [['POST', '/messages/count_tokens', countTokens, 'chat']]),
  ...rows(V1, [
    ['GET', '/models', models.list],
    ['GET', '/models/:id', models.one],
    ['GET', '/usage', usage],
    ['GET', '/dashboard/billing/subscription', billing.subscription],
    ['GET', '/dashboard/billing/usage', billing.usage],
    ['POST', '/images/generations', images.generate, 'media'],
    ['POST', '/images/edits', images.edit, 'upload'],
    ['POST', '/videos', videos.create, 'upload'],
    ['GET', '/videos', videos.list],
    ['GET', '/videos/:id', videos.one],
    ['GET', '/videos/:id/content', videos.content],
  ]),
  ...rows(VIDX, [
    ...vidxTask('/videos/text2video', text2video),
    ...vidxTask('/videos/omni-video', omniVideo),
    ...vidxTask('/videos/multi-elements', edit.multiElements),
    ['POST', '/videos/multi-elements/init-selection', edit.init],
    ['POST', '/videos/multi-elements/add-selection', edit.addSelection],
    ['POST', '/videos/multi-elements/delete-selection', edit.deleteSelection],
    ['POST', '/videos/multi-elements/clear-selection', edit.clearSelection],
    ['POST', '/videos/multi-elements/preview-selection', edit.previewSelection],
  ]),
  // Upstream completion notices carry no bearer token: their address holds an HMAC tag instead.
  ...rows({ ...VIDX, auth: 'none', scope: CALLBACK_SCOPE }, [['POST', '/kling/:ref', klingNotice]]),
  ...rows(ADMIN, [
    ['POST', '/tokens', tokens.create],
    ['GET', '/tokens', tokens.list],
    ['GET', '/tokens/:id', tokens.one],
    ['PATCH', '/tokens/:id', tokens.update],
    ['DELETE', '/tokens/:id', tokens.revoke],
    ['GET', '/tokens/:id/usage', tokens.usage],
    ['POST', '/tokens/:id/topup', tokens.topup],
    ['POST', '/tokens/:id/rotate', tokens.rotate],
    ['POST', '/tokens/:id/callback-secret/rotate', tokens.rotateCallback],
    ['POST', '/channels', channels.create],
    ['GET', '/channels', channels.list],
    ['GET', '/channels/:id', channels.one],
    ['PATCH', '/channels/:id', channels.update],
    ['DELETE', '/channels/:id', channels.disable],
    ['GET', '/channels/:id/capacity', channels.capacity],
    ['POST', '/channels/:id/test', channels.test],
    ['POST', '/channels/:id/disable', channels.disable],
    ['POST', '/channels/:id/enable', channels.enable],
    ['GET', '/prices', prices.list],
    ['GET', '/prices/:model', prices.one],
    ['PUT', '/prices/:model', prices.set],
    ['DELETE', '/prices/:model', prices.reset],
    ['GET', '/prices/:model/history', prices.history],
    ['GET', '/audit', audit],
    ['GET', '/ledger', ledger],
    ['GET', '/logs', logs],
    ['GET', '/bills', bills],
    ['GET', '/reconcile', reconcile],
    ['GET', '/health', health],
    ['GET', '/stats', stats],
    ['GET', '/tasks', tasks.list],
    ['GET', '/tasks/:id', tasks.one],
    ['GET', '/tasks/:id/content', tasks.content],
    ['POST', '/tasks/:id/cancel', tasks.cancel],
    ['POST', '/accounts', accounts.create],
    ['GET', '/accounts', accounts.list],
    ['GET', '/accounts/:id', accounts.one],
    ['PATCH', '/accounts/:id', accounts.update],
    ['DELETE', '/accounts/:id', accounts.revoke],
    ['POST', '/accounts/:id/topup', accounts.topup],
    ['GET', '/accounts/:id/usage', accounts.usage],
    ['GET', '/price-groups', accounts.priceGroups],
    ['GET', '/price-groups/:name', accounts.priceGroup],
    ['PUT', '/price-groups/:name', accounts.putGroup],
    ['POST', '/webhooks', webhooks.create],
    ['GET', '/webhooks', webhooks.list],
    ['GET', '/webhooks/:id', webhooks.one],
    ['PATCH', '/webhooks/:id', webhooks.update],
    ['DELETE', '/webhooks/:id', webhooks.remove],
    ['GET', '/webhooks/:id/deliveries', webhooks.deliveries],
  ]),
  ...rows(CONSOLE, [
    ['GET', '/', consoleApp.page],
    ['GET', '/app.js', consoleApp.script],
    ['GET', '/app.css', consoleApp.style],
  ]),
  ...rows({ ...CONSOLE, auth: 'session' }, [
    ['POST', '/api/session', session.signInRoute],
    ['GET', '/api/session', session.current],
    ['DELETE', '/api/session', session.signOutRoute],
  ]),
];

const key = (method: string, path: string) => `${method} ${path}`;

/** Finds the row of a registered route among `rows` (by Fastify's url, trailing slash or not); HEAD is its GET's. */
export function rowFinder(rows: readonly RouteRow[]): (method: string, url: string) => RouteRow | undefined {
  const byKey = new Map(rows.map((r) => [key(r.method, r.path), r]));
  return (method, url) => {
    const path = url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
    return byKey.get(key(method === 'HEAD' ? 'GET' : method, path));
  };
}

/** The rows a server with this configuration registers. */
export const activeRoutes = (consoleOn: boolean): RouteRow[] => ROUTES.filter((r) => consoleOn || !r.console);

/**
 * A path no route has (a 404, a 405): its family and whether its caller is authenticated first (an unknown path
 * under an API family answers 401 to a caller without a token, as its routes do) — by the prefix of the API it is
 * under.
 */
export function unmatched(path: string): { family: RouteInfo['family']; auth: boolean } {
  return {
    family: familyOf(path),
    auth: (path.startsWith('/v1/') || path.startsWith('/vidx/')) && !path.startsWith('/vidx/callbacks/'),
  };
}

/** The body class of a path's route with a body (POST, PUT or PATCH); control for any other. */
export function bodyClassOf(url: string): BodyClass {
  const path = url.replace(/\/+$/, '');
  for (const r of ROUTES) if (r.path === path && r.method !== 'GET' && r.method !== 'DELETE') return r.body;
  return 'control';
}
