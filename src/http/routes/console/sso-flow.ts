// The single sign-on flow's parts the console's and the portal's sign-ins share: the sealed, short-lived cookie that
// carries the state, nonce and PKCE verifier (and where the sign-in goes after), and the failure pages.
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OidcFlow } from '../../../auth/oidc-issuer.ts';
import { peerIsTrustedProxy } from '../../front/address.ts';
import type { RouteParts } from '../../front/route-row.ts';
import { overHttps } from './cookie.ts';
import { type PageLink, ssoPage } from './sso-page.ts';

export const FLOW_COOKIE = 'tollway_sso';
export const FLOW_PATH = '/console/sso';
/** How long a person has at the issuer before the sign-in must start again. */
export const FLOW_MS = 10 * 60_000;

/**
 * SameSite=Lax, not Strict: the issuer's redirect back is a cross-site navigation, which a Strict cookie would miss.
 * Sealed (AES-GCM with TOLLWAY_SECRET's key): the browser can neither read the PKCE verifier nor forge a state.
 */
export function flowCookie(value: string, expires: Date, secure: boolean): string {
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

export function ssoOf({ deps }: RouteParts) {
  const viaProxy = peerIsTrustedProxy(deps.config.trustProxy);
  const secure = (req: FastifyRequest) => overHttps(req, deps.config.publicUrl, viaProxy(req.raw.socket.remoteAddress));
  const page = (
    req: FastifyRequest,
    reply: FastifyReply,
    status: number,
    title: string,
    message: string,
    opts: { links?: readonly PageLink[]; back?: PageLink } = {},
  ) =>
    reply
      .code(status)
      .header('cache-control', 'no-store')
      .header('set-cookie', flowCookie('', new Date(0), secure(req)))
      .type('text/html; charset=utf-8')
      .send(ssoPage(title, message, req.id, opts));
  const off = (req: FastifyRequest, reply: FastifyReply) =>
    page(req, reply, 404, 'Single sign-on is off', 'This gateway has no single sign-on issuer (TOLLWAY_OIDC_ISSUER).');
  return { deps, secure, page, off };
}

/** Where a sign-in goes once the issuer answers: the console (default), or the portal (for `account`, if chosen). */
export interface FlowTarget {
  to?: 'portal';
  account?: string;
}

/** The flow the cookie carries, or null: none, not sealed by this gateway, or expired. */
export function readFlow(parts: RouteParts, req: FastifyRequest, now = Date.now()): (OidcFlow & FlowTarget) | null {
  const raw = req.headers.cookie ? parseCookie(req.headers.cookie)[FLOW_COOKIE] : undefined;
  if (!raw) return null;
  try {
    const f = JSON.parse(parts.deps.box.open(raw)) as Partial<OidcFlow & FlowTarget> & { exp?: number };
    if (typeof f.exp !== 'number' || f.exp <= now) return null;
    if (typeof f.state !== 'string' || typeof f.nonce !== 'string' || typeof f.verifier !== 'string') return null;
    const target: FlowTarget = f.to === 'portal' ? { to: 'portal' } : {};
    if (target.to === 'portal' && typeof f.account === 'string') target.account = f.account;
    return { state: f.state, nonce: f.nonce, verifier: f.verifier, ...target };
  } catch {
    return null;
  }
}

/** Send the browser to the issuer, the flow (and where it goes after: `target`) sealed in a short-lived cookie. */
export function beginSignIn(p: RouteParts, target: (req: FastifyRequest) => FlowTarget) {
  const { deps, secure, page, off } = ssoOf(p);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (!deps.oidc) return off(req, reply);
    try {
      const { url, flow } = await deps.oidc.begin();
      const exp = Date.now() + FLOW_MS;
      const sealed = deps.box.seal(JSON.stringify({ ...flow, ...target(req), exp }));
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
}
