// The one route table: every route's method, path, error family, body class, authentication, front — and its
// handler. Both fronts register by iterating it (the text lane its lane rows; Fastify the others, each group in its
// scope: fastify-front.ts), and the body limits, the 405 table, the auth decision, the error family and the
// OpenAPI paths all read it, and an admin row's rule is its staff role check. Adding a route: a row here with its
// handler (routes/), its document in openapi/; an admin route in an admin(area, …) group of admin-rows.ts, and its
// line in test/http/staff/route-roles.test.ts.
import { familyOf } from '../../errors/render.ts';
import * as consoleApp from '../routes/console/index.ts';
import * as session from '../routes/console/session.ts';
import * as sso from '../routes/console/sso.ts';
import * as ssoPortal from '../routes/console/sso-portal.ts';
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
import * as billing from '../routes/v1/billing-dashboard.ts';
import * as videos from '../routes/v1/videos.ts';
import { CALLBACK_SCOPE, VIDX_SCOPE } from '../routes/vidx/index.ts';
import * as edit from '../routes/vidx/multi-elements.ts';
import { omniVideo } from '../routes/vidx/omni-video.ts';
import type { TaskRoutes } from '../routes/vidx/task-query.ts';
import { text2video } from '../routes/vidx/text2video.ts';
import { klingNotice } from '../routes/vidx/upstream-callback.ts';
import * as paymentHooks from '../routes/webhooks/stripe.ts';
import type { BodyClass } from './body-limits.ts';
import { ADMIN_ROWS } from './admin-rows.ts';
import { lane, rows, type Spec } from './row-builders.ts';
import type { RouteInfo, RouteRow } from './route-row.ts';

export type { Auth, Method, RouteInfo, RouteRow } from './route-row.ts';

const OPS = { family: 'v1', auth: 'none', scope: ops.OPS_SCOPE } as const;
const V1 = { family: 'v1', auth: 'token', scope: V1_SCOPE } as const;
const VIDX = { family: 'vidx', auth: 'token', scope: VIDX_SCOPE } as const;
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
    ['POST', '/credit/redeem', redeem],
    ['GET', '/dashboard/billing/subscription', billing.subscription],
    ['GET', '/dashboard/billing/usage', billing.usage],
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
  ...ADMIN_ROWS,
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
    // A member's sign-in through the console's single sign-on issuer (its callback: /console/sso/callback).
    ['GET', '/sso/start', ssoPortal.portalStart],
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
