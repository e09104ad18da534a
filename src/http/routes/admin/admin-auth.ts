import type { FastifyInstance, FastifyRequest } from 'fastify';
import { safeEqual } from '../../../auth/token-secret.ts';
import { bearerOf } from '../../../auth/token-auth.ts';
import { checkStaffKey, sessionOf, staffOfConsole, type StaffKeyDeps } from '../../../core/console/sessions.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { Actor } from '../../../core/admin/deps.ts';
import type { HasState } from '../../../core/call.ts';
import { permits, rolesFor, type Staff } from '../../../core/staff/roles.ts';
import { sameOrigin, sessionCookie } from '../console/cookie.ts';

/**
 * Admin endpoints take the admin key or a personal staff key (a wrong one counted against its address:
 * checkStaffKey), or (with the console on) a live console session cookie; never a client token. A change made with
 * the cookie must carry the session's CSRF token and, when sent, this server's Origin. Then the caller's role must
 * permit the route's rule (its route-table row): 403 otherwise, before the body is read.
 */
export function requireAdmin(
  scope: FastifyInstance,
  deps: Pick<GatewayDeps, 'adminKey' | 'adminKeys' | 'repos' | 'config'>,
): void {
  const keys: StaffKeyDeps = { ...deps.adminKeys, staff: deps.repos.staff };
  scope.addHook('onRequest', async (req) => {
    const staff = await caller(req, deps, keys);
    req.state.staff = staff;
    const row = req.routeOptions.config?.row;
    // A path no route has carries no rule: it answers 404 or 405 as usual.
    if (row && !permitted(staff, row.rule, req.method))
      throw new GatewayError(
        'permission_denied',
        `The ${staff.role} role may not ${req.method} ${row.path}` +
          (row.rule ? ` (allowed: ${rolesFor(row.rule, req.method).join(', ')})` : ''),
      );
  });
}

/** A route without a rule is refused to everyone: a forgotten rule closes the route rather than opening it. */
const permitted = (staff: Staff, rule: Parameters<typeof permits>[1] | undefined, method: string) =>
  rule !== undefined && permits(staff.role, rule, method);

async function caller(
  req: FastifyRequest,
  deps: Pick<GatewayDeps, 'adminKey' | 'repos' | 'config'>,
  keys: StaffKeyDeps,
): Promise<Staff> {
  const h = req.headers.authorization;
  const key = h ? bearerOf(h) : undefined;
  if (key) return checkStaffKey(keys, key, req.state.client);
  const secret = deps.config.console.enabled ? sessionCookie(req) : undefined;
  if (!secret)
    throw new GatewayError('missing_token', 'Admin API requires Authorization: Bearer <admin key or staff key>');
  const session = await sessionOf({ sessions: deps.repos.consoleSessions, adminKey: deps.adminKey }, secret);
  if (!session)
    throw new GatewayError('invalid_token', 'The console session has expired or was signed out; sign in again');
  const staff = await staffOfConsole(keys, session);
  if (!staff)
    throw new GatewayError('invalid_token', 'Your staff access was disabled or your key revoked; sign in again');
  if (req.method !== 'GET' && req.method !== 'HEAD') checkCsrf(req, session.csrf, deps.config.publicUrl);
  req.state.consoleSession = session.id;
  return staff;
}

function checkCsrf(req: FastifyRequest, csrf: string, publicUrl: string | undefined): void {
  const sent = req.headers['x-csrf-token'];
  if (typeof sent !== 'string' || !safeEqual(sent, csrf))
    throw new GatewayError('permission_denied', "A console change needs the session's X-CSRF-Token header");
  if (!sameOrigin(req, publicUrl))
    throw new GatewayError('permission_denied', 'Cross-origin console requests are refused');
}

/**
 * The audit line's author for a change made through the admin API: the console session when signed in by cookie, and
 * the staff person and key behind it.
 */
export const adminActor = (req: HasState & { readonly id: string }): Actor => {
  const { consoleSession: session, staff } = req.state;
  const who = {
    ...(staff?.personId ? { person: staff.personId } : {}),
    ...(staff?.keyId ? { key: staff.keyId } : {}),
  };
  return session !== null
    ? { actor: 'console', session, requestId: req.id, ...who }
    : { actor: 'admin', requestId: req.id, ...who };
};
