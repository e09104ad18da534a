// /portal/api/session: sign in with a member key (a portal session cookie), read the session, sign out; and
// /portal/api/key/rotate: the member rotates the key they signed in with.
import { safeEqual } from '../../../auth/token-secret.ts';
import { isObject } from '../../../json/json.ts';
import { memberView, parseRotateMemberKey, rotateMemberKey } from '../../../core/portal/members.ts';
import { portalMemberOf, portalSignIn, portalSignOut } from '../../../core/portal/sessions.ts';
import type { Actor } from '../../../core/admin/deps.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { HasState } from '../../../core/call.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { sameOrigin } from '../console/cookie.ts';
import { clearPortalCookie, portalCookie, setPortalCookie } from './cookie.ts';
import { portalDeps, secureOf } from './index.ts';

/** The member a `member` row's request stands for (set by the portal's auth hook). */
export function memberOf(req: HasState): {
  memberId: string;
  accountId: string;
  sessionId: string;
  keyId: string | null;
} {
  const p = req.state.portal;
  if (!p) throw new GatewayError('missing_token', 'Not signed in to the portal');
  return p;
}

/** The audit line's author for a member's change. */
export const memberActor = (req: HasState & { readonly id: string }): Actor => ({
  actor: 'member',
  member: memberOf(req).memberId,
  requestId: req.id,
});

export const signIn = fastifyRoute(({ deps }) => {
  const core = portalDeps(deps);
  const secure = secureOf(deps);
  return async (req, reply) => {
    if (!sameOrigin(req, deps.config.publicUrl))
      throw new GatewayError('permission_denied', 'Cross-origin sign-in is refused');
    const key = isObject(req.body) ? req.body.key : undefined;
    const { secret, session } = await portalSignIn(core, key, req.state.client);
    reply.header('set-cookie', setPortalCookie(secret, session.expiresAt, secure(req)));
    const who = await portalMemberOf(core, secret);
    if (!who) throw new GatewayError('invalid_token', 'The portal session ended at once; sign in again');
    return reply.code(201).send(await sessionView(deps, who));
  };
});

async function sessionView(
  deps: Parameters<typeof portalDeps>[0],
  who: NonNullable<Awaited<ReturnType<typeof portalMemberOf>>>,
) {
  const a = await deps.repos.accounts.get(who.accountId);
  const key = who.session.keyId === null ? null : await deps.repos.members.key(who.member.id, who.session.keyId);
  return {
    object: 'portal.session',
    session_id: who.session.id,
    csrf: who.session.csrf,
    expires_at: who.session.expiresAt,
    member: memberView(who.member),
    account: { id: who.accountId, name: a?.name ?? who.accountId },
    key: key && { id: key.id, prefix: key.prefix, expires_at: key.expiresAt },
  };
}

export const current = fastifyRoute(({ deps }) => {
  const core = portalDeps(deps);
  return async (req) => {
    const who = await portalMemberOf(core, portalCookie(req));
    if (!who) throw new GatewayError('missing_token', 'Not signed in to the portal');
    return sessionView(deps, who);
  };
});

export const signOut = fastifyRoute(({ deps }) => {
  const core = portalDeps(deps);
  const secure = secureOf(deps);
  return async (req, reply) => {
    const secret = portalCookie(req);
    const who = await portalMemberOf(core, secret);
    // Signing out needs the CSRF token too: another site must not be able to sign the member out.
    if (who) {
      const sent = req.headers['x-csrf-token'];
      if (typeof sent !== 'string' || !safeEqual(sent, who.session.csrf) || !sameOrigin(req, deps.config.publicUrl))
        throw new GatewayError('permission_denied', "Signing out needs the session's X-CSRF-Token header");
    }
    await portalSignOut(core, secret);
    reply.header('set-cookie', clearPortalCookie(secure(req)));
    return reply.code(204).send();
  };
});

export const rotateKey = fastifyRoute(({ deps }) => async (req) => {
  const { days } = parseRotateMemberKey(req.body);
  const me = memberOf(req);
  const key = await rotateMemberKey(deps, memberActor(req), me.memberId, me.keyId, days);
  // This session goes on with the new key; others opened with the old one end.
  await deps.repos.portalSessions.rekey(me.sessionId, key.id);
  return key;
});
