// The one route table: every route's method, path, error family, body class, authentication, front — and its
// handler. Both fronts register by iterating it (the text lane its lane rows; Fastify the others, each group in its
// scope: fastify-front.ts), and the body limits, the 405 table, the auth decision, the error family and the
// OpenAPI paths all read it, and an admin row's rule is its staff role check. Adding a route: a row here with its
// handler (routes/), its document in openapi/; an admin route in an admin(area, …) group, and its line in
// test/http/staff/route-roles.test.ts.
import type { Area } from '../../core/staff/roles.ts';
import { familyOf } from '../../errors/render.ts';
import * as accounts from '../routes/admin/accounts.ts';
import { audit } from '../routes/admin/audit.ts';
import { bills } from '../routes/admin/bills.ts';
import * as channels from '../routes/admin/channels.ts';
import * as credit from '../routes/admin/credit.ts';
import * as members from '../routes/admin/members.ts';
import { ADMIN_SCOPE } from '../routes/admin/index.ts';
import { ledger } from '../routes/admin/ledger.ts';
import { logs } from '../routes/admin/logs.ts';
import * as prices from '../routes/admin/prices.ts';
import { reconcile } from '../routes/admin/reconcile.ts';
import { health, stats } from '../routes/admin/stats.ts';
import * as tasks from '../routes/admin/tasks.ts';
import * as tokens from '../routes/admin/tokens.ts';
import * as users from '../routes/admin/users.ts';
import * as webhooks from '../routes/admin/webhooks.ts';
import * as consoleApp from '../routes/console/index.ts';
import * as session from '../routes/console/session.ts';
import * as sso from '../routes/console/sso.ts';
import * as portal from '../routes/portal/index.ts';
import * as portalApi from '../routes/portal/api.ts';
import * as portalSession from '../routes/portal/session.ts';
import * as ops from '../routes/ops.ts';
import { chat } from '../routes/v1/chat.ts';
import { redeem } from '../routes/v1/credit.ts';
import { countTokens } from '../routes/v1/count-tokens.ts';
import { embeddings } from '../routes/v1/embeddings.ts';
import * as images from '../routes/v1/images.ts';
import { V1_SCOPE } from '../routes/v1/index.ts';
import { messages } from '../routes/v1/messages.ts';
import * as models from '../routes/v1/models.ts';
import { responses } from '../routes/v1/responses.ts';
import { usage } from '../routes/v1/usage.ts';
import * as videos from '../routes/v1/videos.ts';
import { CALLBACK_SCOPE, VIDX_SCOPE } from '../routes/vidx/index.ts';
import * as edit from '../routes/vidx/multi-elements.ts';
import { omniVideo } from '../routes/vidx/omni-video.ts';
import type { TaskRoutes } from '../routes/vidx/task-query.ts';
import { text2video } from '../routes/vidx/text2video.ts';
import { klingNotice } from '../routes/vidx/upstream-callback.ts';
import * as paymentHooks from '../routes/webhooks/stripe.ts';
import type { BodyClass } from './body-limits.ts';
import type { FastifyRoute, FastifyRow, LaneRoute, LaneRow, Method, RouteInfo, RouteRow, Scope } from './route-row.ts';

export type { Auth, Method, RouteInfo, RouteRow } from './route-row.ts';

type Spec = [Method, string, FastifyRoute, BodyClass?];
type Base = Pick<RouteInfo, 'family' | 'auth' | 'console' | 'rule'> & { scope: Scope };

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
/** Admin rows: each carries its rule (the area its role check reads). */
const admin = (area: Area, specs: Spec[]): FastifyRow[] => rows({ ...ADMIN, rule: { area } }, specs);
/** The customer portal: its page and bundle, its sign-in, and its API (a member's session: routes/portal/). */
const PORTAL = { family: 'v1', auth: 'none', console: true, scope: portal.PORTAL_SCOPE } as const;
/** A portal API route of one account: every path names the account (`:account`), so another's answers 404. */
const ACCOUNT = '/api/accounts/:account';
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
    ['POST', '/credit/redeem', redeem],
    ['POST', '/images/generations', images.generate, 'media'],
    ['POST', '/images/edits', images.edit, 'upload'],
    ['POST', '/videos', videos.create, 'upload'],
    ['GET', '/videos/models', models.videos],
    ['GET', '/videos', videos.list],
    ['GET', '/videos/:id', videos.one],
    ['GET', '/videos/:id/content', videos.content],
    ['DELETE', '/videos/:id', videos.remove],
  ]),
  // Reference media the upstream fetches carry no bearer token: their address is signed (core/video-inputs.ts).
  ...rows({ ...V1, auth: 'none' }, [['GET', '/videos/inputs/:name', videos.input]]),
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
  // The staff role check reads each admin row's area (core/staff/roles.ts): a GET reads it, anything else writes it.
  ...admin('tokens', [
    ['POST', '/tokens', tokens.create],
    ['GET', '/tokens', tokens.list],
    ['GET', '/tokens/:id', tokens.one],
    ['PATCH', '/tokens/:id', tokens.update],
    ['DELETE', '/tokens/:id', tokens.revoke],
    ['GET', '/tokens/:id/usage', tokens.usage],
    ['POST', '/tokens/:id/rotate', tokens.rotate],
    ['POST', '/tokens/:id/callback-secret/rotate', tokens.rotateCallback],
  ]),
  ...admin('credit', [
    ['POST', '/tokens/:id/topup', tokens.topup],
    ['POST', '/accounts/:id/topup', accounts.topup],
    ['POST', '/credit/batches', credit.createBatchRoute],
    ['GET', '/credit/batches', credit.batches],
    ['GET', '/credit/batches/:id', credit.batch],
    ['DELETE', '/credit/batches/:id', credit.revokeBatchRoute],
    ['GET', '/credit/redemptions', credit.redemptions],
    ['GET', '/credit/payments', credit.payments],
  ]),
  // A channel's creation and edits carry the gateway's own upstream keys; its health actions do not.
  ...admin('upstream-keys', [
    ['POST', '/channels', channels.create],
    ['PATCH', '/channels/:id', channels.update],
  ]),
  ...admin('channels', [
    ['GET', '/channels', channels.list],
    ['GET', '/channels/:id', channels.one],
    ['DELETE', '/channels/:id', channels.disable],
    ['GET', '/channels/:id/capacity', channels.capacity],
    ['POST', '/channels/:id/test', channels.test],
    ['POST', '/channels/:id/disable', channels.disable],
    ['POST', '/channels/:id/enable', channels.enable],
  ]),
  ...admin('prices', [
    ['GET', '/prices', prices.list],
    ['GET', '/prices/:model', prices.one],
    ['PUT', '/prices/:model', prices.set],
    ['DELETE', '/prices/:model', prices.reset],
    ['GET', '/prices/:model/history', prices.history],
    ['GET', '/price-groups', accounts.priceGroups],
    ['GET', '/price-groups/:name', accounts.priceGroup],
    ['PUT', '/price-groups/:name', accounts.putGroup],
  ]),
  ...admin('reports', [
    ['GET', '/audit', audit],
    ['GET', '/ledger', ledger],
    ['GET', '/logs', logs],
    ['GET', '/bills', bills],
    ['GET', '/reconcile', reconcile],
    ['GET', '/health', health],
    ['GET', '/stats', stats],
  ]),
  ...admin('tasks', [
    ['GET', '/tasks', tasks.list],
    ['GET', '/tasks/:id', tasks.one],
    ['GET', '/tasks/:id/content', tasks.content],
    ['POST', '/tasks/:id/cancel', tasks.cancel],
  ]),
  ...admin('accounts', [
    ['POST', '/accounts', accounts.create],
    ['GET', '/accounts', accounts.list],
    ['GET', '/accounts/:id', accounts.one],
    ['PATCH', '/accounts/:id', accounts.update],
    ['DELETE', '/accounts/:id', accounts.revoke],
    ['GET', '/accounts/:id/usage', accounts.usage],
    ['POST', '/accounts/:id/members', members.create],
    ['GET', '/accounts/:id/members', members.list],
    ['DELETE', '/accounts/:id/members/:member', members.revoke],
  ]),
  ...admin('webhooks', [
    ['POST', '/webhooks', webhooks.create],
    ['GET', '/webhooks', webhooks.list],
    ['GET', '/webhooks/:id', webhooks.one],
    ['PATCH', '/webhooks/:id', webhooks.update],
    ['DELETE', '/webhooks/:id', webhooks.remove],
    ['GET', '/webhooks/:id/deliveries', webhooks.deliveries],
  ]),
  ...admin('users', [
    ['POST', '/users', users.create],
    ['GET', '/users', users.list],
    ['GET', '/users/:id', users.one],
    ['PATCH', '/users/:id', users.update],
    ['DELETE', '/users/:id', users.disable],
    ['POST', '/users/:id/keys', users.addKey],
    ['POST', '/users/:id/keys/:key/rotate', users.rotateKey],
    ['DELETE', '/users/:id/keys/:key', users.revokeKey],
  ]),
  // Payment providers' deliveries carry no bearer token: their signature over the raw body is checked instead.
  ...rows({ ...OPS, scope: paymentHooks.WEBHOOKS_SCOPE }, [['POST', '/stripe', paymentHooks.stripe]]),
  ...rows(CONSOLE, [
    ['GET', '/', consoleApp.page],
    ['GET', '/app.js', consoleApp.script],
    ['GET', '/app.css', consoleApp.style],
    // Single sign-on (TOLLWAY_OIDC_*): the issuer's redirect and its answer, the issuer's sign-out.
    ['GET', '/sso', sso.info],
    ['GET', '/sso/start', sso.start],
    ['GET', '/sso/callback', sso.callback],
    ['GET', '/sso/logout', sso.logout],
  ]),
  ...rows({ ...CONSOLE, auth: 'session' }, [
    ['POST', '/api/session', session.signInRoute],
    ['GET', '/api/session', session.current],
    ['DELETE', '/api/session', session.signOutRoute],
  ]),
  ...rows(PORTAL, [
    ['GET', '/', portal.page],
    ['GET', '/app.js', portal.script],
    ['GET', '/app.css', portal.style],
  ]),
  ...rows({ ...PORTAL, auth: 'member-signin' }, [
    ['POST', '/api/session', portalSession.signIn],
    ['GET', '/api/session', portalSession.current],
    ['DELETE', '/api/session', portalSession.signOut],
  ]),
  ...rows({ ...PORTAL, auth: 'member' }, [
    ['POST', '/api/key/rotate', portalSession.rotateKey],
    ['GET', ACCOUNT, portalApi.overview],
    ['GET', `${ACCOUNT}/usage`, portalApi.usage],
    ['GET', `${ACCOUNT}/bills`, portalApi.bills],
    ['GET', `${ACCOUNT}/logs`, portalApi.logs],
    ['GET', `${ACCOUNT}/tokens`, portalApi.tokens],
    ['POST', `${ACCOUNT}/tokens`, portalApi.createToken],
    ['GET', `${ACCOUNT}/tokens/:token`, portalApi.token],
    ['DELETE', `${ACCOUNT}/tokens/:token`, portalApi.revokeToken],
    ['POST', `${ACCOUNT}/tokens/:token/rotate`, portalApi.rotateToken],
    ['GET', `${ACCOUNT}/tokens/:token/callback-secret`, portalApi.callbackSecret],
    ['POST', `${ACCOUNT}/redeem`, portalApi.redeem],
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
