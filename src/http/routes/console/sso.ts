// /console/sso: single sign-on to the console (core/console/sso.ts). `start` sends the browser to the issuer with a
// state, a nonce and a PKCE challenge, whose values wait in a sealed, short-lived cookie; `callback` checks the
// issuer's answer and opens the console session; `logout` sends the browser on to the issuer's own sign-out.
// Every failure in the browser's path is a page (sso-page.ts), and leaves no session.
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OidcFailure, type OidcFlow } from '../../../auth/oidc-issuer.ts';
import { SsoRefused, ssoSignIn, type SsoDeps } from '../../../core/console/sso.ts';
import { peerIsTrustedProxy } from '../../front/address.ts';
import { fastifyRoute, type RouteParts } from '../../front/route-row.ts';
import { overHttps, setCookieHeader } from './cookie.ts';
import { ssoPage } from './sso-page.ts';

const FLOW_COOKIE = 'tollway_sso';
const FLOW_PATH = '/console/sso';
/** How long a person has at the issuer before the sign-in must start again. */
const FLOW_MS = 10 * 60_000;

/**
 * SameSite=Lax, not Strict: the issuer's redirect back is a cross-site navigation, which a Strict cookie would miss.
 * Sealed (AES-GCM with TOLLWAY_SECRET's key): the browser can neither read the PKCE verifier nor forge a state.
 */
function flowCookie(value: string, expires: Date, secure: boolean): string {
  return stringifySetCookie({
    name: FLOW_COOKIE,
    value,
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: FLOW_PATH,
    expires,
  });
}

function ssoOf({ deps }: RouteParts) {
  const viaProxy = peerIsTrustedProxy(deps.config.trustProxy);
  const secure = (req: FastifyRequest) => overHttps(req, deps.config.publicUrl, viaProxy(req.raw.socket.remoteAddress));
  const page = (req: FastifyRequest, reply: FastifyReply, status: number, title: string, message: string) =>
    reply
      .code(status)
      .header('cache-control', 'no-store')
      .header('set-cookie', flowCookie('', new Date(0), secure(req)))
      .type('text/html; charset=utf-8')
      .send(ssoPage(title, message, req.id));
  const off = (req: FastifyRequest, reply: FastifyReply) =>
    page(req, reply, 404, 'Single sign-on is off', 'This gateway has no single sign-on issuer (TOLLWAY_OIDC_ISSUER).');
  return { deps, secure, page, off };
}

/** The flow the cookie carries, or null: none, not sealed by this gateway, or expired. */
function readFlow(parts: RouteParts, req: FastifyRequest, now = Date.now()): OidcFlow | null {
  const raw = req.headers.cookie ? parseCookie(req.headers.cookie)[FLOW_COOKIE] : undefined;
  if (!raw) return null;
  try {
    const f = JSON.parse(parts.deps.box.open(raw)) as Partial<OidcFlow> & { exp?: number };
    if (typeof f.exp !== 'number' || f.exp <= now) return null;
    if (typeof f.state !== 'string' || typeof f.nonce !== 'string' || typeof f.verifier !== 'string') return null;
    return { state: f.state, nonce: f.nonce, verifier: f.verifier };
  } catch {
    return null;
  }
}

/** GET /console/sso: whether single sign-on is on, and the name the sign-in page's button shows. */
export const info = fastifyRoute(({ deps }) => {
  const c = deps.config.oidc;
  const body = c ? { enabled: true, name: c.name, start_url: `${FLOW_PATH}/start` } : { enabled: false };
  return async () => body;
});

export const start = fastifyRoute((p) => {
  const { deps, secure, page, off } = ssoOf(p);
  return async (req, reply) => {
    if (!deps.oidc) return off(req, reply);
    try {
      const { url, flow } = await deps.oidc.begin();
      const exp = Date.now() + FLOW_MS;
      const sealed = deps.box.seal(JSON.stringify({ ...flow, exp }));
      return reply
        .code(303)
        .header('cache-control', 'no-store')
        .header('set-cookie', flowCookie(sealed, new Date(exp), secure(req)))
        .redirect(url, 303);
    } catch (e) {
      req.log.warn({ err: e }, 'single sign-on: the issuer could not be reached');
      return page(req, reply, 502, 'The sign-in service is unreachable', (e as Error).message);
    }
  };
});

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
      if (e instanceof SsoRefused) return page(req, reply, 403, 'No access to this console', e.message);
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
