// /portal: the customer portal's page and bundle (the console's strict headers on every answer) and its API under
// /portal/api. A `member` row takes a live portal session cookie; a change made with it must carry the session's
// CSRF token and, when sent, this server's Origin — as the console's changes do.
import type { FastifyRequest } from 'fastify';
import { safeEqual } from '../../../auth/token-secret.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { portalMemberOf, type PortalDeps } from '../../../core/portal/sessions.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { peerIsTrustedProxy } from '../../front/address.ts';
import { fastifyRoute, type FastifyRoute, type Scope } from '../../front/route-row.ts';
import { useJsonBodyParser } from '../../json-body.ts';
import { CONSOLE_HEADERS } from '../console/index.ts';
import { overHttps, sameOrigin } from '../console/cookie.ts';
import { portalCookie } from './cookie.ts';

/** The portal's sign-in rules, built once per server. */
export function portalDeps(deps: GatewayDeps): PortalDeps {
  return {
    members: deps.repos.members,
    accounts: deps.repos.accounts,
    sessions: deps.repos.portalSessions,
    limiter: deps.adminKeys.limiter,
    trusted: deps.adminKeys.trusted,
    sessionMs: deps.config.console.sessionMs,
  };
}

/** Whether a request reached the portal over HTTPS (the cookie's Secure flag). */
export function secureOf(deps: GatewayDeps): (req: FastifyRequest) => boolean {
  const viaProxy = peerIsTrustedProxy(deps.config.trustProxy);
  return (req) => overHttps(req, deps.config.publicUrl, viaProxy(req.raw.socket.remoteAddress));
}

export const PORTAL_SCOPE: Scope = {
  prefix: '/portal',
  setup(scope, { deps }, unknownRoute) {
    const core = portalDeps(deps);
    scope.addHook('onSend', (_req, reply, payload, done) => {
      reply.headers(CONSOLE_HEADERS);
      done(null, payload);
    });
    scope.addHook('onRequest', async (req) => {
      if (req.routeOptions.config?.row?.auth !== 'member') return;
      const who = await portalMemberOf(core, portalCookie(req));
      if (!who) throw new GatewayError('missing_token', 'Not signed in to the portal (or the session ended); sign in');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        const sent = req.headers['x-csrf-token'];
        if (typeof sent !== 'string' || !safeEqual(sent, who.session.csrf))
          throw new GatewayError('permission_denied', "A portal change needs the session's X-CSRF-Token header");
        if (!sameOrigin(req, deps.config.publicUrl))
          throw new GatewayError('permission_denied', 'Cross-origin portal requests are refused');
      }
      req.state.portal = {
        memberId: who.member.id,
        accountId: who.accountId,
        sessionId: who.session.id,
        keyId: who.session.keyId,
      };
    });
    useJsonBodyParser(scope, 'absent', deps.config);
    scope.setNotFoundHandler((req, reply) =>
      unknownRoute(req, reply, new GatewayError('not_found', 'No such portal address')),
    );
  },
};

/** The portal's files: built with the console's (dist/console/portal.*); the page itself is never cached. */
const file = (name: string, cache: string): FastifyRoute =>
  fastifyRoute(({ consoleFiles }) => {
    const a = consoleFiles.get(name)!;
    return async (_req, reply) => reply.type(a.type).header('cache-control', cache).send(a.body);
  });

export const page = file('portal.html', 'no-store');
export const script = file('portal.js', 'no-cache');
export const style = file('portal.css', 'no-cache');
