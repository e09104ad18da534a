import type { FastifyInstance, FastifyRequest } from 'fastify';
import { safeEqual } from '../../../auth/token-secret.ts';
import { bearerOf } from '../../../auth/token-auth.ts';
import { checkAdminKey, sessionOf } from '../../../core/console/sessions.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { Actor } from '../../../core/admin/deps.ts';
import type { HasState } from '../../../core/call.ts';
import { sameOrigin, sessionCookie } from '../console/cookie.ts';

/**
 * Admin endpoints take the admin key (a wrong one counted against its address: checkAdminKey), or (with the console
 * on) a live console session cookie; never a client token. A change made with the cookie must carry the session's
 * CSRF token and, when sent, this server's Origin.
 */
export function requireAdmin(
  scope: FastifyInstance,
  deps: Pick<GatewayDeps, 'adminKey' | 'adminKeys' | 'repos' | 'config'>,
): void {
  scope.addHook('onRequest', async (req) => {
    const h = req.headers.authorization;
    const key = h ? bearerOf(h) : undefined;
    if (key) return checkAdminKey(deps.adminKeys, key, req.state.client);
    const secret = deps.config.console.enabled ? sessionCookie(req) : undefined;
    if (!secret) throw new GatewayError('missing_token', 'Admin API requires Authorization: Bearer <admin key>');
    const session = await sessionOf({ sessions: deps.repos.consoleSessions, adminKey: deps.adminKey }, secret);
    if (!session)
      throw new GatewayError('invalid_token', 'The console session has expired or was signed out; sign in again');
    if (req.method !== 'GET' && req.method !== 'HEAD') checkCsrf(req, session.csrf, deps.config.publicUrl);
    req.state.consoleSession = session.id;
  });
}

function checkCsrf(req: FastifyRequest, csrf: string, publicUrl: string | undefined): void {
  const sent = req.headers['x-csrf-token'];
  if (typeof sent !== 'string' || !safeEqual(sent, csrf))
    throw new GatewayError('permission_denied', "A console change needs the session's X-CSRF-Token header");
  if (!sameOrigin(req, publicUrl))
    throw new GatewayError('permission_denied', 'Cross-origin console requests are refused');
}

/** The audit line's author for a change made through the admin API (the console session, when signed in by cookie). */
export const adminActor = (req: HasState & { readonly id: string }): Actor => {
  const session = req.state.consoleSession;
  return session !== null ? { actor: 'console', session, requestId: req.id } : { actor: 'admin', requestId: req.id };
};
