// Portal sign-in: a member key is exchanged for a portal session whose secret lives only in an HttpOnly cookie (and,
// hashed, in the store), apart from the console's. Wrong member keys are counted per client address and refused for
// a while after a few, as the console's sign-in does. An identity provider's sign-in (OIDC) opens the same session
// through openMemberSession, for a member found by e-mail (membersByEmail).
import { hashToken } from '../../auth/token-secret.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { RateLimiter } from '../../limits/rate-limiter.ts';
import type { MemberKeyRecord, MemberRecord, MembersRepo } from '../../store/repos/members.ts';
import type { AccountsRepo } from '../../store/repos/accounts.ts';
import type { PortalSession, PortalSessionsRepo } from '../../store/repos/portal-sessions.ts';
import { newSession, storeSession } from '../session-open.ts';
import { SignInLockout } from '../sign-in-lockout.ts';
import { normalEmail } from './members.ts';

export interface PortalDeps {
  readonly members: MembersRepo;
  readonly accounts: AccountsRepo;
  readonly sessions: PortalSessionsRepo;
  readonly limiter: Pick<RateLimiter, 'countEvent' | 'events'>;
  /** Is the client address in a network TOLLWAY_TRUST_PROXY trusts? Never refused for want of room to count it. */
  readonly trusted: (client: string) => boolean;
  readonly sessionMs: number;
}

/** Who a live portal session stands for: the member and their account. */
export interface PortalMember {
  member: MemberRecord;
  accountId: string;
  session: PortalSession;
}

const lockout = new SignInLockout('portal', 'member keys');

/** Why a member or key cannot act now (their account revoked too), or null when all are live. */
async function refusal(
  deps: Pick<PortalDeps, 'accounts'>,
  member: MemberRecord,
  key: MemberKeyRecord | null,
  now: number,
): Promise<GatewayError | null> {
  if (member.revokedAt !== null) return new GatewayError('permission_denied', 'This portal member was revoked');
  if (key?.revokedAt != null)
    return new GatewayError('token_revoked', `The member key ${key.prefix}… was revoked or rotated`);
  if (key && key.expiresAt <= now)
    return new GatewayError('token_expired', `The member key ${key.prefix}… expired; ask your operator for a new one`);
  const a = await deps.accounts.get(member.accountId);
  if (!a || a.revokedAt !== null) return new GatewayError('permission_denied', "This member's account was revoked");
  return null;
}

async function open(
  deps: PortalDeps,
  member: MemberRecord,
  keyId: string | null,
  client: string,
  now: number,
): Promise<{ secret: string; session: PortalSession }> {
  const { secret, base } = newSession('psn', client, now, deps.sessionMs);
  const session: PortalSession = { ...base, memberId: member.id, keyId };
  await storeSession(deps.sessions, session, hashToken(secret), now);
  return { secret, session };
}

/**
 * Exchange a member key for a portal session, or refuse: a wrong key (counted against the address), a revoked or
 * expired key or member (refused as such, not counted: it guesses nothing), or too many wrong keys lately (429).
 */
export async function portalSignIn(
  deps: PortalDeps,
  key: unknown,
  client: string,
  now = Date.now(),
): Promise<{ secret: string; session: PortalSession }> {
  const seen = await lockout.check(deps, client);
  if (typeof key !== 'string' || key.trim().length === 0)
    throw new GatewayError('missing_parameter', 'Enter your member key (twm-…)', { param: 'key' });
  const found = await deps.members.byHash(hashToken(key.trim()));
  if (!found) {
    await lockout.wrong(deps, client, seen);
    throw new GatewayError('permission_denied', 'That is not a member key');
  }
  const refused = await refusal(deps, found.member, found.key, now);
  if (refused) throw refused;
  return open(deps, found.member, found.key.id, client, now);
}

/**
 * The OIDC hook: the live members an identity provider's verified e-mail names (one per account it belongs to). The
 * sign-in picks one (or asks) and calls openMemberSession; none: no portal access.
 */
export function membersByEmail(deps: Pick<PortalDeps, 'members'>, email: string): Promise<MemberRecord[]> {
  return deps.members.liveByEmail(normalEmail(email));
}

/** A portal session for a member signed in by an identity provider (no member key). */
export async function openMemberSession(
  deps: PortalDeps,
  member: MemberRecord,
  client: string,
  now = Date.now(),
): Promise<{ secret: string; session: PortalSession }> {
  const refused = await refusal(deps, member, null, now);
  if (refused) throw refused;
  return open(deps, member, null, client, now);
}

/**
 * The member a cookie's secret names, read afresh (a revoked member, key or account applies at once), or null when
 * there is no live session or its member may no longer act.
 */
export async function portalMemberOf(
  deps: Pick<PortalDeps, 'sessions' | 'members' | 'accounts'>,
  secret: string | undefined,
  now = Date.now(),
): Promise<PortalMember | null> {
  if (!secret) return null;
  const session = await deps.sessions.findLive(hashToken(secret), now);
  if (!session) return null;
  const member = await deps.members.get(session.memberId);
  if (!member) return null;
  const key = session.keyId === null ? null : await deps.members.key(member.id, session.keyId);
  if (session.keyId !== null && !key) return null;
  if (await refusal(deps, member, key, now)) return null;
  return { member, accountId: member.accountId, session };
}

export async function portalSignOut(deps: Pick<PortalDeps, 'sessions'>, secret: string | undefined): Promise<void> {
  if (secret) await deps.sessions.revoke(hashToken(secret));
}
