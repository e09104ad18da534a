// Single sign-on to the customer portal (core/portal/sso.ts): the same issuer, flow and callback as the console's,
// the flow marked for the portal. A member found by the verified e-mail gets a portal session cookie; a person who is
// a member of several accounts picks one (the sign-in starts again for it); anyone else gets a page saying why.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Claims } from '../../../auth/oidc-issuer.ts';
import { openMemberSession } from '../../../core/portal/sessions.ts';
import { portalSsoMember } from '../../../core/portal/sso.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { fastifyRoute, type RouteParts } from '../../front/route-row.ts';
import { setPortalCookie } from '../portal/cookie.ts';
import { portalDeps } from '../portal/index.ts';
import { beginSignIn, flowCookie, ssoOf } from './sso-flow.ts';

/** A portal sign-in's pages lead back to the portal. */
export const PORTAL_PAGE = { back: { href: '/portal/', text: "Back to the portal's sign-in" } };

/** GET /portal/sso/start[?account=]: the portal's sign-in through the issuer (for that account, when chosen). */
export const portalStart = fastifyRoute<{ Querystring: { account?: string } }>((p) =>
  beginSignIn(p, (req) => {
    const account = (req.query as { account?: unknown }).account;
    return typeof account === 'string' && account !== '' ? { to: 'portal', account } : { to: 'portal' };
  }),
);

/** The issuer answered a portal sign-in with these claims: a session, a choice of accounts, or a refusal page. */
export async function portalSignedIn(
  p: RouteParts,
  req: FastifyRequest,
  reply: FastifyReply,
  claims: Claims,
  account: string | undefined,
) {
  const { deps, secure, page } = ssoOf(p);
  const core = portalDeps(deps);
  const out = await portalSsoMember(core, claims, account);
  if ('choose' in out) {
    const links = out.choose.map((c) => ({
      href: `/portal/sso/start?account=${encodeURIComponent(c.accountId)}`,
      text: c.name,
    }));
    const message = `${out.email} is a member of several accounts: choose the one to sign in to.`;
    return page(req, reply, 200, 'Choose an account', message, { ...PORTAL_PAGE, links });
  }
  try {
    const { secret, session } = await openMemberSession(core, out.member, req.state.client);
    return reply
      .code(303)
      .header('cache-control', 'no-store')
      .header('set-cookie', [
        flowCookie('', new Date(0), secure(req)),
        setPortalCookie(secret, session.expiresAt, secure(req)),
      ])
      .redirect('/portal/', 303);
  } catch (e) {
    // The member, or its account, may no longer act (revoked, expired): no session, and the reason.
    if (e instanceof GatewayError) return page(req, reply, 403, 'No access to the portal', e.message, PORTAL_PAGE);
    throw e;
  }
}
