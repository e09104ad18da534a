// /console/api/session: sign in with the admin key (a session cookie), read the session's CSRF token, sign out.
import { isObject } from '../../../json/json.ts';
import { sessionOf, signIn, signOut, staffOfConsole, type ConsoleDeps } from '../../../core/console/sessions.ts';
import type { ConsoleSession } from '../../../store/repos/console-sessions.ts';
import { accessMap } from '../../../core/staff/roles.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { peerIsTrustedProxy } from '../../front/address.ts';
import { fastifyRoute, type RouteParts } from '../../front/route-row.ts';
import { clearCookieHeader, overHttps, sameOrigin, sessionCookie, setCookieHeader } from './cookie.ts';

/** The console's sign-in rules, and whether a request reached the console over HTTPS (the cookie's Secure flag). */
function consoleOf({ deps }: RouteParts) {
  const core: ConsoleDeps = {
    ...deps.adminKeys,
    sessions: deps.repos.consoleSessions,
    staff: deps.repos.staff,
    sessionMs: deps.config.console.sessionMs,
  };
  const viaProxy = peerIsTrustedProxy(deps.config.trustProxy);
  const secure = (req: Parameters<typeof overHttps>[0]) =>
    overHttps(req, deps.config.publicUrl, viaProxy(req.raw.socket.remoteAddress));
  return { deps, core, secure };
}

/**
 * A session as the console reads it: its CSRF token, the person signed in (null: the bootstrap admin key), their role
 * and what the role may do in each area (the console hides the rest).
 */
async function sessionView(core: ConsoleDeps, session: ConsoleSession) {
  const staff = await staffOfConsole(core, session);
  if (!staff)
    throw new GatewayError('invalid_token', 'Your staff access was disabled or your key revoked; sign in again');
  const person = staff.personId === null ? null : await core.staff.person(staff.personId);
  return {
    session_id: session.id,
    csrf: session.csrf,
    expires_at: session.expiresAt,
    person: person && { id: person.id, name: person.name, email: person.email },
    key_id: staff.keyId,
    role: staff.role,
    access: accessMap(staff.role),
  };
}

export const signInRoute = fastifyRoute((p) => {
  const { deps, core, secure } = consoleOf(p);
  return async (req, reply) => {
    if (!sameOrigin(req, deps.config.publicUrl))
      throw new GatewayError('permission_denied', 'Cross-origin sign-in is refused');
    const key = isObject(req.body) ? req.body.key : undefined;
    const { secret, session } = await signIn(core, key, req.state.client);
    reply.header('set-cookie', setCookieHeader(secret, session.expiresAt, secure(req)));
    return reply.code(201).send(await sessionView(core, session));
  };
});

export const current = fastifyRoute((p) => {
  const { core } = consoleOf(p);
  return async (req) => {
    const session = await sessionOf(core, sessionCookie(req));
    if (!session) throw new GatewayError('missing_token', 'Not signed in to the console');
    return sessionView(core, session);
  };
});

export const signOutRoute = fastifyRoute((p) => {
  const { deps, core, secure } = consoleOf(p);
  return async (req, reply) => {
    const secret = sessionCookie(req);
    const session = await sessionOf(core, secret);
    // Signing out needs the CSRF token too: another site must not be able to sign the operator out.
    if (session) {
      const sent = req.headers['x-csrf-token'];
      if (sent !== session.csrf || !sameOrigin(req, deps.config.publicUrl))
        throw new GatewayError('permission_denied', "Signing out needs the session's X-CSRF-Token header");
      await signOut(core, secret);
    }
    reply.header('set-cookie', clearCookieHeader(secure(req)));
    return reply.code(204).send();
  };
});
