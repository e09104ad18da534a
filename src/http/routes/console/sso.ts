// /console/sso: single sign-on to the console (core/console/sso.ts). `start` sends the browser to the issuer with a
// state, a nonce and a PKCE challenge, whose values wait in a sealed, short-lived cookie; `callback` checks the
// issuer's answer and opens the console session (or, for a flow the portal began, a portal session:
// sso-portal.ts); `logout` sends the browser on to the issuer's own sign-out.
// Every failure in the browser's path is a page (sso-page.ts), and leaves no session.
import { OidcFailure } from '../../../auth/oidc-issuer.ts';
import { SsoRefused, ssoSignIn, type SsoDeps } from '../../../core/console/sso.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { setCookieHeader } from './cookie.ts';
import { beginSignIn, FLOW_PATH, flowCookie, readFlow, ssoOf } from './sso-flow.ts';
import { PORTAL_PAGE, portalSignedIn } from './sso-portal.ts';

/** GET /console/sso: whether single sign-on is on, and the name the sign-in page's button shows. */
export const info = fastifyRoute(({ deps }) => {
  const c = deps.config.oidc;
  const body = c ? { enabled: true, name: c.name, start_url: `${FLOW_PATH}/start` } : { enabled: false };
  return async () => body;
});

export const start = fastifyRoute((p) => beginSignIn(p, () => ({})));

export const callback = fastifyRoute<{ Querystring: Record<string, string | string[] | undefined> }>((p) => {
  const { deps, secure, page, off } = ssoOf(p);
  return async (req, reply) => {
    const c = deps.config.oidc;
    if (!deps.oidc || !c) return off(req, reply);
    const q = req.query;
    const flow = readFlow(p, req);
    const bad = (message: string) => {
      req.log.warn({ reason: message }, 'single sign-on: callback refused');
      return page(req, reply, 400, 'Sign-in failed', message);
    };
    if (typeof q.error === 'string') {
      const what = typeof q.error_description === 'string' ? `${q.error}: ${q.error_description}` : q.error;
      return bad(`The sign-in service refused the sign-in (${what.slice(0, 300)}).`);
    }
    if (!flow) return bad('This sign-in did not start here, or took too long: start again from the console.');
    if (typeof q.state !== 'string' || q.state !== flow.state)
      return bad("The sign-in's state does not match the one this browser started with: start again from the console.");
    if (typeof q.code !== 'string' || q.code === '') return bad('The sign-in service sent no authorization code.');
    const here = new URL(c.redirectUri);
    here.search = new URL(req.url, 'http://x').search;
    try {
      const claims = await deps.oidc.finish(here, flow);
      if (flow.to === 'portal') return await portalSignedIn(p, req, reply, claims, flow.account);
      const sso: SsoDeps = {
        oidc: c,
        repos: deps.repos,
        sessions: {
          sessions: deps.repos.consoleSessions,
          adminKey: deps.adminKey,
          sessionMs: deps.config.console.sessionMs,
        },
      };
      const { secret, session } = await ssoSignIn(sso, claims, req.state.client, req.id);
      return reply
        .code(303)
        .header('cache-control', 'no-store')
        .header('set-cookie', [
          flowCookie('', new Date(0), secure(req)),
          setCookieHeader(secret, session.expiresAt, secure(req)),
        ])
        .redirect('/console/', 303);
    } catch (e) {
      if (e instanceof SsoRefused)
        return flow.to === 'portal'
          ? page(req, reply, 403, 'No access to the portal', e.message, PORTAL_PAGE)
          : page(req, reply, 403, 'No access to this console', e.message);
      if (e instanceof OidcFailure && e.kind === 'refused') return bad(`${e.message}.`);
      req.log.warn({ err: e }, 'single sign-on: the code exchange failed');
      return page(req, reply, 502, 'The sign-in service is unreachable', (e as Error).message);
    }
  };
});

/** After the console's own sign-out: on to the issuer's, when it has one; else back to the console. */
export const logout = fastifyRoute(({ deps }) => async (_req, reply) => {
  const url = deps.oidc ? await deps.oidc.logoutUrl() : null;
  return reply.header('cache-control', 'no-store').redirect(url ?? '/console/', 303);
});
